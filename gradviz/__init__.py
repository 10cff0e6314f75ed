"""gradviz: see what autograd does.

Importing this package loads nothing heavy: the engine lives in ``gradviz.torch``
(numpy only), the CLI in ``gradviz.cli`` (click, rich, graphviz, loaded on demand).
In Jupyter, ``%load_ext gradviz`` gives the ``%%gradviz`` cell magic and
``gradviz.show(y)`` draws a tensor's graph inline (``gradviz.jupyter``).
"""
from gradviz._version import __version__  # noqa: F401 - the one place it is written


def show(tensors, *args, **kwargs):
    """The backward graph of ``tensors``, drawn inline in Jupyter (see ``gradviz.jupyter.show``)."""
    from gradviz.jupyter import show as _show

    return _show(tensors, *args, **kwargs)


def load_ipython_extension(ipython):
    """``%load_ext gradviz``: the ``%%gradviz`` cell magic (see ``gradviz.jupyter``)."""
    from gradviz.jupyter import load_ipython_extension as _load

    _load(ipython)
