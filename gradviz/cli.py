"""The ``gradviz`` command: a thin click group over scripting and render.

Only click is imported up front, so ``gradviz --help`` is quick; each command imports
what it needs (the engine, numpy, rich) when it runs.  ``GradvizGroup.main`` is the one
error boundary: usage problems become one line on stderr and exit status 2, an
interrupt exits 130, and a failure of gradviz itself is one line (exit 3; set
GRADVIZ_DEBUG=1 for its traceback) -- never a raw traceback.

Exit status of ``gradviz run``: 0 when no cell raised, 1 when any cell raised.
"""

import os
import sys

import click

from gradviz import __version__

# click >= 8.2 raises this for a bare `gradviz`; older clicks print the help themselves
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())

EXIT_OK, EXIT_SCRIPT_ERROR, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


def _echo_err(msg: str) -> None:
    click.echo(msg, err=True)


class GradvizGroup(click.Group):
    """A click group whose ``main`` is gradviz's error boundary."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _NO_ARGS_IS_HELP as e:  # bare `gradviz`: show the help
            click.echo(e.ctx.get_help())
            code = EXIT_OK
        except click.UsageError as e:
            path = e.ctx.command_path if e.ctx is not None else (prog_name or "gradviz")
            _echo_err(f"{path}: error: {e.format_message()} (see '{path} --help')")
            code = EXIT_USAGE
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
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            except (OSError, ValueError, AttributeError):
                pass
            code = EXIT_SCRIPT_ERROR
        except Exception as e:  # noqa: BLE001 - the one boundary
            if os.environ.get("GRADVIZ_DEBUG"):
                import traceback

                traceback.print_exc()
            _echo_err(f"gradviz: internal error: {type(e).__name__}: {e} "
                      "(set GRADVIZ_DEBUG=1 for the traceback)")
            code = EXIT_INTERNAL
        if code is None:
            code = EXIT_OK
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
      gradviz run samples/seed_graph.py          # run, then a table of the tensors
      gradviz run notebook.py --cells            # a table after every '# %%' cell
      gradviz run notebook.py --json > out.json  # machine-readable, nothing else on stdout
    """


@cli.command("run", context_settings=CONTEXT_SETTINGS)
@click.argument("script", type=click.Path(dir_okay=True, path_type=str), metavar="SCRIPT")
@click.argument("script_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- ARGS]...")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON document (the conformance schema) and nothing else on "
                   "stdout; the script's own output goes into the JSON.")
@click.option("--cells", is_flag=True,
              help="Print the tensor table after every cell instead of once at the end.")
@click.pass_context
def run_cmd(ctx, script, script_args, as_json, cells):
    """Run SCRIPT with `import torch` resolving to gradviz's engine.

    SCRIPT is a PyTorch-style Python file. Lines starting with '# %%' split it into
    cells with notebook semantics: one shared namespace, an exception ends its cell only
    (the next cell still runs), and a trailing bare expression has its repr printed.

    The script's output is passed through; afterwards a table lists its named tensors
    (name, shape, dtype, requires_grad, is_leaf, grad_fn, grad, data). Errors are
    reported with their cell, line and traceback on stderr. Arguments after '--' are
    passed to the script in sys.argv.

    \b
    Exit status: 0 no cell raised, 1 a cell raised, 2 usage error
    (e.g. SCRIPT does not exist), 3 gradviz itself failed.
    """
    from gradviz import scripting

    try:
        src = scripting.read_source(script)  # a usage problem shows before anything runs
    except scripting.ScriptError as e:
        raise click.UsageError(str(e), ctx) from None

    if as_json:
        from gradviz.render import jsonout

        result = scripting.run_script(script, script_args, echo=False)
        sys.stdout.write(jsonout.dumps(result) + "\n")
        sys.stdout.flush()
        return EXIT_OK if result.ok else EXIT_SCRIPT_ERROR

    from gradviz.render import tables

    out = tables.make_console(sys.stdout)
    err = tables.make_console(sys.stderr)
    total = len(scripting.split_cells(src))

    def on_cell(cell):
        sys.stdout.flush()
        if cell.error is not None:
            tables.print_cell_error(err, cell, total)
        if cells:
            tables.print_tensors(out, cell.tensors,
                                 f"After cell {cell.number} of {total} (line {cell.line})")

    result = scripting.run_script(script, script_args, echo=True, on_cell=on_cell)
    sys.stdout.flush()
    if not cells:
        tables.print_tensors(out, result.tensors, f"Tensors after {script}")
    if len(result.cells) < result.total_cells:
        _echo_err(f"gradviz: the script exited in cell {len(result.cells)}; "
                  f"{result.total_cells - len(result.cells)} cell(s) not run")
    tables.print_error_summary(err, result)
    return EXIT_OK if result.ok else EXIT_SCRIPT_ERROR


def main(argv=None) -> None:
    """Console-script entry point (``gradviz``, ``python -m gradviz``)."""
    cli.main(args=argv, prog_name="gradviz")


if __name__ == "__main__":
    main()
