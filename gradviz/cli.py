"""The ``gradviz`` command: a thin click group over ``gradviz.commands``.

Only click is imported up front, so ``gradviz --help`` is quick; each command imports
its module in ``gradviz.commands`` (and through it the engine, numpy, rich, graphviz)
when it runs.  ``GradvizGroup.main`` is the one error boundary: usage problems and
``CommandError`` become one line on stderr (exit 2 unless the error says otherwise), an
interrupt exits 130, and a failure of gradviz itself is one line (exit 3; set
GRADVIZ_DEBUG=1 for its traceback) -- never a raw traceback.

Exit status: 0 ok; 1 the script or expression raised, or explain does not know the
message; 2 usage error, refused input or output that cannot be written; 3 gradviz
itself failed; 130 interrupted.
"""

import functools
import os
import sys

import click

from gradviz._version import __version__
from gradviz.commands import CommandError
from gradviz.render.options import (  # imports nothing of gradviz
    DEFAULT_MAX_NODES, DEFAULT_VIEW, HELP_CHOICES, SHORT_CHOICES, VIEWS, GraphOptions)

# click >= 8.2 raises this for a bare `gradviz`; older clicks print the help themselves
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())

EXIT_OK, EXIT_SCRIPT_ERROR, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_OUTPUT_CLOSED = 141  # as a shell reports a command stopped by SIGPIPE
_OUTPUT_DEVICE_ERRORS = {28, 27, 5, 122}  # ENOSPC, EFBIG, EIO, EDQUOT


def _echo_err(msg: str) -> None:
    from .safe_text import visible  # a path or a message may carry escape sequences: shown, not obeyed

    click.echo(visible(msg), err=True)


def _cannot_write_output(reason: str) -> int:
    """The one line for a stdout that failed (a full disk, > /dev/full): a usage error."""
    _echo_err(f"gradviz: error: cannot write the output: {reason}")
    return EXIT_USAGE


def _failed(e: Exception) -> int:
    """The exit status for an exception no command handled, with its one line."""
    if isinstance(e, OSError) and e.errno in _OUTPUT_DEVICE_ERRORS:
        # the terminal or file the report goes to failed (a full disk, > /dev/full): not a bug
        return _cannot_write_output(e.strerror)
    if os.environ.get("GRADVIZ_DEBUG"):
        import traceback

        traceback.print_exc()
    _echo_err(f"gradviz: internal error: {type(e).__name__}: {e} (set GRADVIZ_DEBUG=1 for the traceback)")
    return EXIT_INTERNAL


def _silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so that what is still buffered for a failed
    stdout goes nowhere when Python flushes it at exit (it would print "Exception ignored
    ... OSError" and exit 120 instead of our status)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _settle_stdout(code: int) -> int:
    """Flush stdout inside the boundary, whatever its buffering, and turn a failure into the
    documented status: 141 quietly for a reader that went away, else one line and 2 (a full
    disk, > /dev/full). A command that already said its output failed keeps its status."""
    if code == EXIT_OUTPUT_CLOSED:
        _silence_stdout()
        return code
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
        return code
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OUTPUT_CLOSED
    except (OSError, ValueError) as e:  # ValueError: the script closed our stdout
        _silence_stdout()
        if code != EXIT_USAGE:
            code = _cannot_write_output(getattr(e, "strerror", None) or str(e))
        return code


def _never_fail_encoding() -> None:
    """Let stdout and stderr write what their encoding lacks as escapes (``\\xfc``), not
    raise: a name in Unicode on a terminal set to ASCII (``PYTHONIOENCODING=ascii``), or a
    lone surrogate a script printed (which even surrogateescape cannot write), is the
    user's text, not gradviz's failure."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) in ("strict", "surrogateescape") and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (OSError, ValueError):  # a closed stream: its own failure is reported later
                pass


class GradvizGroup(click.Group):
    """A click group whose ``main`` is gradviz's error boundary."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        _never_fail_encoding()
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except SystemExit:
            if not isinstance(sys.stdout, click.utils.PacifyFlushWrapper):
                raise
            # click turns a closed pipe (EPIPE) into exit 1 after pacifying stdout: ours is 141
            code = EXIT_OUTPUT_CLOSED
        except _NO_ARGS_IS_HELP as e:  # bare `gradviz`: show the help
            click.echo(e.ctx.get_help())
            code = EXIT_OK
        except click.UsageError as e:
            path = e.ctx.command_path if e.ctx is not None else (prog_name or "gradviz")
            _echo_err(f"{path}: error: {e.format_message()} (see '{path} --help')")
            code = EXIT_USAGE
        except CommandError as e:
            path = getattr(e, "command_path", None) or prog_name or "gradviz"
            hint = f" (see '{path} --help')" if e.usage else ""
            _echo_err(f"{path}: error: {e.message}{hint}")
            if e.detail:
                _echo_err(e.detail)
            code = e.code
        except click.Abort:
            _echo_err("Aborted.")
            code = EXIT_INTERRUPTED
        except click.ClickException as e:
            e.show()
            code = e.exit_code
        except KeyboardInterrupt:
            _echo_err("gradviz: interrupted")
            code = EXIT_INTERRUPTED
        except BrokenPipeError:
            # the reader went away (`gradviz run x | head`): leave quietly
            code = EXIT_OUTPUT_CLOSED
        except Exception as e:  # noqa: BLE001 - the one boundary
            code = _failed(e)
        if code is None:
            code = EXIT_OK
        code = _settle_stdout(code)
        if standalone_mode:
            sys.exit(code)
        return code


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group("gradviz", cls=GradvizGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "-V", "--version", prog_name="gradviz")
def cli():
    """See what autograd does.

    gradviz runs PyTorch-style code on its own tracing engine (numpy only, no PyTorch
    needed) and shows you the tensors, gradients and grad_fn nodes autograd produced.

    \b
    Examples:
      gradviz run samples/seed_graph.py                     # run, then a table of the tensors
      gradviz run samples/seed_graph.py --graph g.svg       # ... and a picture of the graph
      gradviz graph "(x*y + z**2).sum()" -o g.png           # one expression, no script
      gradviz explain "Trying to backward through the graph a second time"
      gradviz explain my_script.py                          # diagnose the script's error

    \b
    Exit status: 0 ok; 1 the script or expression raised, or explain does not
    know the message; 2 usage error, refused input, or an output that cannot be
    written; 3 gradviz itself failed (set GRADVIZ_DEBUG=1); 130 interrupted.
    """


def _command(fn):
    """Tag a CommandError with the command it came from (``gradviz run: error: ...``)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        ctx = click.get_current_context()
        try:
            return fn(*args, **kwargs)
        except CommandError as e:
            e.command_path = ctx.command_path
            raise

    return wrapper


VIEW = click.Choice(list(VIEWS))
ENGINE_HELP = ("Whose autograd runs the code: gradviz's own engine (numpy, no PyTorch needed), or "
               "'torch', the installed PyTorch (2.0 or newer): the same tables and pictures of the real graph.")


def _engine_option(fn):
    return click.option("--engine", type=click.Choice(["gradviz", "torch"]), default="gradviz", show_default=True,
                        help=ENGINE_HELP)(fn)
MAX_NODES = click.IntRange(min=0)
DEPTH = click.IntRange(min=0)


class _Seconds(click.ParamType):
    """A time limit: a finite number of seconds above 0 and at most a week."""
    name = "seconds"
    MAX = 7 * 24 * 3600

    def convert(self, value, param, ctx):
        import math
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds) or seconds <= 0 or seconds > self.MAX:
            self.fail(f"{value} is not a time limit: give seconds above 0 and at most {self.MAX:,} (a week)",
                      param, ctx)
        return seconds


TIMEOUT = _Seconds()


class _Seed(click.ParamType):
    """A seed manual_seed takes: an integer from -2**63 to 2**64 - 1 (negative ones wrap,
    as in PyTorch). Checked here so an out-of-range seed is a usage error, not the
    expression's failure."""
    name = "integer"
    LOW, HIGH = -2 ** 63, 2 ** 64 - 1

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            seed = value
        else:
            try:
                seed = int(str(value).strip(), 10)
            except ValueError:
                self.fail(f"{value!r} is not a valid integer.", param, ctx)
        if not self.LOW <= seed <= self.HIGH:
            self.fail(f"{seed} is not a seed manual_seed takes: give an integer from {self.LOW} to {self.HIGH}",
                      param, ctx)
        return seed


SEED = _Seed()
PRECISION = click.IntRange(min=1, max=17)


def value_options(fn):
    """--precision and --full-values: how the tables show values (PyTorch's printoptions)."""
    fn = click.option("--full-values", is_flag=True,
                      help="List every value of data and grad (tensors up to 1000 elements; a matrix one "
                           "row a line), each tensor as a record, instead of fitting a one-line table "
                           "cell ('[0.1, …, 0.9]', 'min..max, mean m').")(fn)
    return click.option("--precision", type=PRECISION, default=None, metavar="N",
                        help="Significant digits of the values in the table. [default: 4 for listed "
                             "values, 3 for min..max, mean summaries]")(fn)


def take_graph_options(params: dict) -> GraphOptions:
    """The GraphOptions of the flags ``graph_options`` adds, taken out of a command's ``params``."""
    return GraphOptions(output=params.pop("out"), view=params.pop("view"), max_nodes=params.pop("max_nodes"),
                        tree=params.pop("tree"), backward_twice=params.pop("backward_twice"),
                        retain_graph=params.pop("retain_graph"), depth=params.pop("depth"))


def graph_options(out_flags, out_help):
    """The options `run`, `graph` and `%%gradviz` share, in the order --help shows them. The
    command's function gets them as one ``graph`` argument, a GraphOptions."""
    def deco(fn):
        @functools.wraps(fn)
        def with_graph_options(**params):
            return fn(graph=take_graph_options(params), **params)

        for opt in reversed([
            click.option(*out_flags, "out", metavar="OUT", default=None, help=out_help),
            click.option("--view", type=VIEW, default=DEFAULT_VIEW, show_default=True,
                         help="Which graphs the picture shows: the forward graph (tensors and ops), "
                              "the backward graph (grad_fn nodes, saved tensors), or both side by side."),
            click.option("--max-nodes", type=MAX_NODES, default=DEFAULT_MAX_NODES, show_default=True, metavar="N",
                         help="Box budget of the picture: past it, long chains and repeated structure are "
                              "collapsed into summary nodes ('×998 TanhBackward0'). 0 never collapses."),
            click.option("--depth", type=DEPTH, default=None, metavar="N",
                         help="Module levels drawn as nested boxes (clusters) when the graph was made by "
                              "nn.Modules; deeper modules are one box each ('model.h.3 (GPT2Block)'). "
                              "[default: the deepest that fits the picture]"),
            click.option("--tree", is_flag=True,
                         help="Also print the backward graph as a tree in the terminal."),
            click.option("--backward-twice", is_flag=True,
                         help="After the backward pass, run backward again on the root: PyTorch's error "
                              "is shown verbatim next to a graph whose freed buffers are marked."),
            click.option("--retain-graph", is_flag=True,
                         help="Make backward keep the graph (retain_graph=True), so a second backward "
                              "succeeds and the gradients accumulate (doubled)."),
        ]):
            with_graph_options = opt(with_graph_options)
        return with_graph_options
    return deco


@cli.command("run", context_settings=CONTEXT_SETTINGS)
@click.argument("script", type=click.Path(dir_okay=True, path_type=str), metavar="SCRIPT")
@click.argument("script_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- ARGS]...")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON document (the conformance schema) and nothing else on "
                   "stdout; the script's own output goes into the JSON. Strict JSON: NaN and "
                   "infinities are the strings \"NaN\", \"Infinity\", \"-Infinity\".")
@click.option("--cells", is_flag=True,
              help="Print the tensor table after every cell instead of once at the end.")
@click.option("--changed-only", is_flag=True,
              help="With --cells (implied): list per cell only the tensors it made or changed "
                   "(value, grad, grad_fn, flags), and the names it dropped.")
@value_options
@graph_options(("--graph", "-o"),
                f"Write the graph to OUT: {HELP_CHOICES}; "
                "'-' prints DOT on stdout.")
@click.option("--root", "roots", multiple=True, metavar="NAME",
              help="Draw the graph of this named tensor as it is after the run (repeatable). "
                   "Default: what the script's last backward()/autograd.grad() was called on.")
@click.option("--lint", is_flag=True,
              help="Also warn about silent autograd pitfalls (.data edits, .grad of non-leaves, "
                   "missing zero_grad, float() of tensors that require grad). Runs the script again.")
@click.option("--timeout", type=TIMEOUT, default=None, metavar="SECONDS",
              help="Stop the script after SECONDS; what it computed until then is still reported.")
@click.option("--html", "html", metavar="REPORT", default=None,
              help="Also write REPORT.html: one self-contained page with every cell's code, output, "
                   "errors (explained), tensors and graph.")
@click.option("--by-module", is_flag=True,
              help="Sum up the tensors named after a module (model.fc1.weight) in a row per module: "
                   "how many, their elements, their gradients' 2-norm, how many lack a .grad. "
                   "--depth N groups them N levels below the model.")
@click.option("--nan", "nonfinite", is_flag=False, flag_value="nan", default=None, type=click.Choice(["nan", "inf"]),
              help="Find where the first NaN starts (--nan=inf: or infinity), in forward or backward, with its "
                   "line, its elements, its inputs and the usual fix; the script runs on.")
@click.option("--memory", is_flag=True,
              help="The saved-for-backward ledger: the bytes each backward call's graph held, by distinct "
                   "storage, per module, line and node, parameters apart from activations.")
@_engine_option
@_command
def run_cmd(script, script_args, as_json, cells, changed_only, precision, full_values, graph, roots, lint, timeout,
            html, by_module, nonfinite, memory, engine):
    """Run SCRIPT with `import torch` resolving to gradviz's engine.

    SCRIPT is a PyTorch-style Python file or a Jupyter notebook (.ipynb). Lines starting
    with '# %%' split a script into cells; a notebook's code cells are its cells. Cells
    have notebook semantics: one shared namespace, an exception ends its cell only (the
    next cell still runs), and a trailing bare expression has its repr printed. In a
    notebook, IPython-only lines (%magics, !shell, obj?) are skipped with a note each,
    and cells and lines are named as the notebook shows them ('In [5], line 3').

    The script's output is passed through; afterwards a table lists its named tensors
    (name, shape, dtype, requires_grad, is_leaf, grad_fn, grad, data), fitted to the
    terminal's width ($COLUMNS; 160 columns in a pipe): narrow terminals get compact flag
    columns and shorter value summaries, never a value cut in two. Errors are reported
    with their cell, line and traceback on stderr. Arguments after '--' are passed to the
    script in sys.argv.

    With --graph, the graph of the script's last backward()/autograd.grad() call is
    captured as that call returns (so the buffers it freed show as freed) and written
    to OUT; --root NAME draws named tensors instead.

    \b
    Examples:
      gradviz run samples/seed_graph.py
      gradviz run samples/autograd_basics.ipynb --cells
      gradviz run samples/tiny_mlp.py --cells --changed-only
      gradviz run samples/tiny_mlp.py --precision 6 --full-values
      gradviz run samples/autograd_basics.ipynb --html report.html
      gradviz run samples/seed_graph.py --graph seed.svg --root L
      gradviz run samples/seed_graph.py --backward-twice --tree
      gradviz run train.py --graph - --view backward | dot -Tpng > g.png
      gradviz run train.py --timeout 30 --lint -- --epochs 1
      gradviz run model.py --engine torch --graph g.svg     # the real PyTorch graph
      gradviz run samples/tiny_mlp.py --by-module            # gradient norm per module
      gradviz run samples/nan_sqrt.py --nan                  # where the NaN starts
      gradviz run samples/tiny_mlp.py --memory               # what backward keeps, by module

    \b
    Exit status: 0 no cell raised, 1 a cell raised (or --timeout stopped it),
    2 usage error (e.g. SCRIPT does not exist, OUT cannot be written or drawn:
    the DOT is still written), 3 gradviz itself failed, 130 interrupted.
    """
    from gradviz.commands import run as command

    return command.run(command.RunOptions(
        script=script, script_args=tuple(script_args), as_json=as_json, cells=cells or changed_only,
        changed_only=changed_only, precision=precision, full_values=full_values, graph=graph,
        roots=tuple(roots), lint=lint, timeout=timeout, html=html, engine=engine, by_module=by_module,
        nonfinite=nonfinite, memory=memory))


@cli.command("graph", context_settings=CONTEXT_SETTINGS)
@click.argument("expression", metavar="EXPRESSION")
@click.option("--shape", metavar="SHAPE", default=None,
              help="Shape of every free name (leaf), e.g. 3,3 or 3x3 (default: 3).")
@click.option("--var", "var", multiple=True, metavar="NAME=SPEC",
              help="One leaf's shape (a=3x3) or value (x=\"linspace(0,1,5)\", w=\"[1.,2.]\"); repeatable.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed for the random leaves, so runs repeat.")
@click.option("--dtype", type=click.Choice(["float32", "float64", "float16", "bfloat16"]), default=None,
              help="dtype of the leaves (default float32).")
@click.option("--no-backward", is_flag=True,
              help="Only the forward pass: no backward, no gradients.")
@graph_options(("-o", "--output"),
                f"Write the graph to OUT: {HELP_CHOICES}; "
                "'-' prints DOT on stdout. Without it the backward graph is printed as a tree.")
@value_options
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON document (result, tensors, backward, graph, error) and nothing "
                   "else on stdout.")
@click.option("--html", "html", metavar="REPORT", default=None,
              help="Also write REPORT.html: the expression, its tensors, graph and errors on one "
                   "self-contained page.")
@click.option("--timeout", type=TIMEOUT, default=30.0, show_default=True, metavar="SECONDS",
              help="Stop an evaluation (with its backward) that runs longer than this (exit 2).")
@_engine_option
@_command
def graph_cmd(expression, shape, var, seed, dtype, no_backward, graph, precision, full_values, as_json, html,
              timeout, engine):
    """Evaluate one EXPRESSION safely, backpropagate, show tensors and graph.

    EXPRESSION is one expression, or simple assignments separated by ';' or newlines
    ending in an expression ('-' reads it from stdin). Free names become leaf tensors
    with requires_grad=True; torch functions (tanh, exp, mm, relu, sum, torch.*, F.*),
    tensor methods (.sum(dim=1), .t(), .T, ...) and operators are available. It is
    parsed with `ast` and evaluated against a whitelist: imports, '_' attributes,
    lambdas, comprehensions, f-strings, builtins and huge allocations are refused
    before anything runs, with a caret under the offending part.

    A scalar result backpropagates; a non-scalar one starts from ones (with a note)
    unless --no-backward. Then the table lists every tensor (intermediates labelled
    by assignment name or source text, 'w1*a') and the graph is drawn.

    \b
    Examples:
      gradviz graph "(w3*(w1*a) + w4*(w2*a)).sum()" --shape 3,3 -o g.dot
      gradviz graph "b = w1*a; c = w2*a; L = (10 - (w3*b + w4*c)).sum()" -o g.svg
      gradviz graph "(x*y).sum()" --backward-twice
      gradviz graph "(x*y).sum()" --backward-twice --retain-graph
      gradviz graph "tanh(x @ W).sum()" --var x=2x3 --var W=3x4 --json

    \b
    Exit status: 0 ok, 1 the expression (or its backward) raised: PyTorch's error
    is shown as `gradviz explain` would, 2 refused or unparsable input or an output
    that cannot be written, 3 gradviz itself failed.
    """
    from gradviz.commands import graph as command

    return command.run(command.ExpressionOptions(
        expression=expression, shape=shape, var=tuple(var), seed=seed, dtype=dtype,
        no_backward=no_backward, graph=graph, precision=precision, full_values=full_values,
        as_json=as_json, html=html, engine=engine, timeout=timeout))


@cli.command("explain", context_settings=CONTEXT_SETTINGS)
@click.argument("args", nargs=-1, metavar="MESSAGE | - | SCRIPT [-- ARGS]")
@click.option("--list", "list_", is_flag=True, help="List every error and warning gradviz knows.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"id", "candidates", "title", "cause", "fix", "context"} as JSON.')
@click.option("--graph", "-o", "out", metavar="OUT", default=None,
              help="With a script: write the graph around the failing node to OUT "
                   f"({SHORT_CHOICES}; '-' prints DOT).")
@click.option("--timeout", type=TIMEOUT, default=None, metavar="SECONDS",
              help="With a script: give up if it has not raised after SECONDS.")
@_engine_option
@_command
def explain_cmd(args, list_, as_json, out, timeout, engine):
    """Explain an autograd error: what happened, why, and how to fix it.

    \b
    MESSAGE    an error message, or a whole traceback (quotes optional)
    -          read the message or traceback from stdin
    SCRIPT     a script.py or a notebook.ipynb: run it in gradviz's engine
               until its first error and diagnose the specific cause from
               the run (which tensor, which line, which backward freed
               what), with the fix in your names
    FILE       a saved traceback or log

    Several causes share one message; message mode gives the most common one and
    lists the others with the question that tells them apart. Script mode knows
    which one happened.

    \b
    Examples:
      gradviz explain "element 0 of tensors does not require grad and does not have a grad_fn"
      python train.py 2>&1 | gradviz explain -
      gradviz explain samples/errors/backward_twice.py --graph freed.svg
      gradviz explain --list

    \b
    Exit status: 0 explained (or the script raised nothing), 1 a message or error
    gradviz does not know (the nearest known ones are listed), 2 usage error.
    """
    from gradviz.commands import explain as command

    return command.run(command.ExplainOptions(args=tuple(args), list_=list_, as_json=as_json,
                                              graph=out, timeout=timeout, engine=engine))

def main(argv=None) -> None:
    """Console-script entry point (``gradviz``, ``python -m gradviz``)."""
    cli.main(args=argv, prog_name="gradviz")


if __name__ == "__main__":
    main()
