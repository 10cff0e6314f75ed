"""Presentation of scripting's plain results.

``tables`` draws terminal tables and error reports, ``tree`` the backward graph as a
tree, ``console`` makes the consoles and prints the commands' one-line texts: these
are where rich is imported (and, for now, explain's panels in ``gradviz/explain/render.py``).
``options`` spells the graph formats and the default box budget; ``jsonout`` builds the
``--json`` document. Import the submodule you need: this package itself loads nothing.
"""
