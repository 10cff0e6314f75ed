"""Presentation of scripting's plain results.

``tables`` (the only module that imports rich) draws terminal tables and error reports;
``jsonout`` builds the ``--json`` document.  Import the submodule you need: this package
itself loads nothing.
"""
