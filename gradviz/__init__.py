"""gradviz: see what autograd does.

Importing this package loads nothing heavy: the engine lives in ``gradviz.torch``
(numpy only), the CLI in ``gradviz.cli`` (click, rich, graphviz, loaded on demand).
"""
__version__ = "0.1.0"
