"""``gradviz explain``: every autograd error of the catalog, explained, and diagnosed from the
user's own script.

The API the CLI calls (all results are plain data via ``.as_dict()``, the ``--json`` shape
``{"id", "candidates", "title", "cause", "fix", "context"}``)::

    explain_message(text)  -> Explanation   # a message or a whole pasted traceback
    diagnose_script(path)  -> Diagnosis     # run in the engine until the first error
    lint_script(path)      -> [LintWarning] # silent pitfalls of a whole run
    list_entries()         -> [dict]        # --list
    render.print_explanation(obj, file=None)  # rich panels (rich imported lazily)

``obj.exit_code`` is what the command should exit with (1: unknown message / unknown error).
Nothing here imports the engine, rich or click at import time.
"""
from .catalog import ENTRIES, get, list_entries  # noqa: F401
from .match import Explanation, explain_message  # noqa: F401


def diagnose_script(path, argv=(), *, lint=True):
    """Run ``path`` in gradviz's engine until its first error; return a :class:`Diagnosis`."""
    from .diagnose import diagnose_script as _d
    return _d(path, argv, lint=lint)


def lint_script(path, argv=()):
    """Run ``path`` to the end in gradviz's engine; return its silent pitfalls (LintWarning list)."""
    from .lint import lint_script as _l
    return _l(path, argv)


def explain(arg, argv=()):
    """What ``gradviz explain ARG`` does: a path to an existing ``.py`` file is diagnosed,
    anything else is taken as a message (``-`` is for the CLI to read stdin first)."""
    import os
    if isinstance(arg, str) and arg.endswith((".py", ".ipynb")) and os.path.isfile(arg):
        return diagnose_script(arg, argv)
    return explain_message(arg)


__all__ = ["explain_message", "diagnose_script", "lint_script", "list_entries", "explain", "Explanation", "get",
           "ENTRIES"]
