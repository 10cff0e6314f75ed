"""What each ``gradviz`` command does, apart from its click definition in ``gradviz.cli``.

``run.py``, ``graph.py`` and ``explain.py`` each have one entry point that takes plain
arguments and returns the exit status; ``common.py`` holds what they share (output
targets, consoles, the second backward, graph writing). The CLI imports a module
when its command runs, so ``gradviz --help`` stays quick. Importing this package loads
nothing.

A command that cannot do what was asked raises :class:`CommandError`: the CLI prints its
message as one line on stderr and exits with its code.
"""

EXIT_OK = 0
EXIT_SCRIPT_ERROR = 1  # the script, the expression or a message gradviz does not know
EXIT_USAGE = 2  # bad input or options, refused expressions, output that cannot be written
EXIT_INTERNAL = 3  # gradviz itself failed
EXIT_INTERRUPTED = 130  # Ctrl-C


class CommandError(Exception):
    """A one-line failure for the user: ``gradviz CMD: error: MESSAGE`` and ``code``.

    usage: also point at ``--help`` (for mistakes in the command line itself).
    detail: more lines printed after the message (e.g. a caret under an expression).
    """

    def __init__(self, message, code=EXIT_USAGE, *, usage=False, detail=""):
        super().__init__(message)
        self.message = message
        self.code = code
        self.usage = usage
        self.detail = detail
