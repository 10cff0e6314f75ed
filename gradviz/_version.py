"""The version, in a module of its own: ``gradviz`` and ``gradviz.cli`` both read it
(the CLI importing the package for it would make a cycle). Keep it equal to
pyproject.toml's ``version``."""
__version__ = "0.1.0"
