"""gradviz inside Jupyter: ``%load_ext gradviz`` and ``gradviz.show()``.

``%%gradviz [options]`` runs its cell in gradviz's engine, in the notebook's own
namespace (later cells see its variables), then shows what autograd did: a table of
the tensors the cell made or changed (HTML) and the graph of the cell's last backward
call (SVG), as ``gradviz run`` would. Its options are ``run``'s that make sense in a
cell: ``--view``, ``--max-nodes``, ``--tree``, ``--backward-twice``, ``--retain-graph``,
``--root NAME`` and ``--graph OUT`` (also write the picture to a file).

In the cell, ``torch`` is gradviz's engine: ``import torch`` gives it, and a name the
notebook had bound to the real ``torch`` (or ``torch.nn`` ...) means gradviz's module
while the cell runs, and the real one again afterwards.

An error in the cell is shown as the CLI shows it (the user's traceback, none of
gradviz's frames), after the table and graph of what the cell computed, and it still
fails the cell, so "Run all" stops there as it would without the magic.

``show(y)`` is torchviz's ``make_dot(y)`` for gradviz: the backward graph of a tensor
(or of several; gradviz's or a real PyTorch tensor), leaves named after the caller's
variables, as an object that shows itself as SVG and can ``.save("g.png")``.

Thin, like ``cli.py``: the work is done by ``gradviz.commands`` and ``gradviz.render``.
IPython is imported only when the magic runs.
"""
import contextlib
import importlib
import io
import os
import shlex
import sys
import traceback
import types

from .render.options import DEFAULT_MAX_NODES, HELP_CHOICES  # imports nothing
from .safe_text import visible, visible_line  # what the cell named or raised: shown, never obeyed

MAGIC = "gradviz"


def load_ipython_extension(ipython) -> None:
    """``%load_ext gradviz``: register the ``%%gradviz`` cell magic."""
    ipython.register_magic_function(_magic, magic_kind="line_cell", magic_name=MAGIC)


class CellFailed(Exception):
    """The cell raised: IPython shows ``_render_traceback_`` instead of its own traceback."""

    def __init__(self, lines):
        super().__init__(lines[-1] if lines else "the cell raised")
        self.lines = lines

    def _render_traceback_(self):
        return self.lines


# --------------------------------------------------------------------------- options


def _command():
    import click

    from gradviz import cli

    @click.command(f"%%{MAGIC}", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
    @cli.graph_options(("--graph", "-o"), f"Also write the graph to OUT: {HELP_CHOICES}.")
    @cli.value_options
    @click.option("--root", "roots", multiple=True, metavar="NAME",
                  help="Draw the graph of this named tensor (repeatable). Default: what the cell's last "
                       "backward()/autograd.grad() was called on.")
    def command(**options):
        """Run the cell in gradviz's engine; show its tensors and autograd graph."""
        return options  # with the graph options as one GraphOptions, under "graph"

    return command


def parse_options(line: str):
    """The magic's options as ``RunOptions`` (None when --help was asked for and shown).
    A bad option raises IPython's UsageError: one line, no traceback."""
    import click
    from IPython.core.error import UsageError

    from gradviz.commands.run import RunOptions

    command = _command()
    try:
        args = shlex.split(line)
        ctx = command.make_context(f"%%{MAGIC}", args)
    except click.exceptions.Exit:  # --help was printed
        return None
    except click.UsageError as e:
        raise UsageError(f"%%{MAGIC}: {e.format_message()} (see '%%{MAGIC} --help')") from None
    except ValueError as e:  # shlex: an unclosed quote
        raise UsageError(f"%%{MAGIC}: cannot read the options: {e}") from None
    o = command.invoke(ctx)
    return RunOptions(script="", graph=o["graph"], roots=tuple(o["roots"]), precision=o["precision"],
                      full_values=o["full_values"])


# --------------------------------------------------------------------------- the magic


def _magic(line, cell=None):
    """``%%gradviz [options]`` on a cell; ``%gradviz --help`` on a line lists the options."""
    from IPython import get_ipython
    from IPython.core.error import UsageError

    opts = parse_options(line)
    if opts is None:
        return None
    if cell is None:
        raise UsageError(f"%{MAGIC} runs a whole cell: put %%{MAGIC} on the cell's first line "
                         f"(%{MAGIC} --help lists its options)")
    run_cell(get_ipython(), cell, opts)
    return None


def run_cell(ip, cell: str, opts) -> None:
    """Run ``cell`` in gradviz's engine in ``ip``'s namespace and display what it did."""
    from IPython.core.error import UsageError
    from IPython.display import display

    import gradviz.torch as engine
    import gradviz.torch.nn as nn
    from gradviz import notebook, scripting
    from gradviz.commands import CommandError, common
    from gradviz.inspect.watch import Names, Watch

    target = None
    if opts.graph.output is not None:
        try:
            target = common.output_target(opts.graph.output, "--graph")
        except CommandError as e:
            raise UsageError(f"%%{MAGIC}: {e.message}") from None
    ns = ip.user_ns
    number = _cell_number(ip)
    label = f"In [{number}]"
    code = ip.transform_cell(cell)
    filename = ip.compile.cache(code, number)  # IPython keeps the lines for tracebacks
    program = scripting.Program("", code, (scripting.Cell(0, 1, code, 1, label, notebook.ends_quietly(code)),),
                                notebook=True, code_file=filename)
    names = Names(filename)
    names.bind(ns)
    watch = Watch(names, sites=program.site, replay=True)  # the explorer replays the cell's backward
    before = scripting.snapshot(ns, engine.Tensor, nn.Module)
    real = _real_torch_objects(ns)  # what earlier cells made with the real PyTorch
    internal = [scripting.GRADVIZ_DIR]
    error = None
    with contextlib.ExitStack() as stack:
        stack.enter_context(scripting.torch_alias())
        stack.enter_context(_engine_names(ns))
        stack.enter_context(watch)
        if opts.graph.retain_graph:
            stack.enter_context(common.retain_graph_patch())
        try:
            scripting.run_cell(program.cells[0], ns, label, filename, show=display)
        except scripting.CompileError as ce:
            scripting.show_compile_error(ce.shown, program)
            error = "".join(traceback.format_exception_only(type(ce.shown), ce.shown))
        except Exception as e:  # noqa: BLE001 - the cell's error: shown below, then the cell fails
            recorded = scripting.format_error(e, program, internal)
            error = recorded.traceback + (recorded.hint + "\n" if recorded.hint else "")
    after = scripting.snapshot(ns, engine.Tensor, nn.Module)
    from gradviz.render import values

    with values.printoptions(opts.precision, opts.full_values):
        _display_report(ip, opts, watch, names, program, before, after, target)
    if error is not None:
        mixed = _mixed_engines(real, code)
        lines = [f"Error in {label}:"] + ([mixed] if mixed else visible(error.rstrip("\n")).split("\n"))
        raise CellFailed(lines)


def _real_torch_objects(ns) -> dict:
    """{name: 'a real PyTorch tensor'} of the namespace's real torch tensors and modules."""
    from gradviz.inspect.engines import real_torch_module

    torch = real_torch_module()
    if torch is None:
        return {}
    out = {}
    for name, value in list(ns.items()):
        if isinstance(value, torch.Tensor):
            out[name] = "a real PyTorch tensor"
        elif isinstance(value, torch.nn.Module):
            out[name] = f"a real PyTorch module ({type(value).__name__})"
    return out


def _mixed_engines(real: dict, code: str):
    """One line when a failed cell read a real PyTorch object of an earlier cell: %%gradviz
    runs gradviz's own engine, which cannot compute with them."""
    if not real:
        return None
    import dis

    try:
        stack, read = [compile(code, "<cell>", "exec")], []
    except SyntaxError:
        return None
    while stack:  # the cell's code and the functions, classes and comprehensions in it
        co = stack.pop()
        stack.extend(c for c in co.co_consts if isinstance(c, types.CodeType))
        read += [i.argval for i in dis.get_instructions(co)
                 if i.opname in ("LOAD_NAME", "LOAD_GLOBAL") and i.argval in real and i.argval not in read]
    if not read:
        return None
    name = read[0]
    return (f"{visible_line(name)} is {real[name]}, made by an earlier cell outside %%{MAGIC}; %%{MAGIC} runs "
            f"gradviz's own engine, which cannot compute with it. To inspect real PyTorch, draw it with "
            f"gradviz.show(...) in a plain cell, or run the notebook with: gradviz run NOTEBOOK.ipynb --engine torch")


def _cell_number(ip) -> int:
    """The execution count of the cell running the magic: the number IPython compiled the
    calling cell under (IPython counts up before or after a cell, depending on its version)."""
    numbers = getattr(ip.compile, "_filename_map", {})
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename in numbers:
            return numbers[frame.f_code.co_filename]
        frame = frame.f_back
    return ip.execution_count


@contextlib.contextmanager
def _engine_names(ns):
    """Names the notebook bound to real torch modules mean gradviz's while the cell runs."""
    swapped = {}
    for name, value in list(ns.items()):
        module = getattr(value, "__name__", "") if isinstance(value, types.ModuleType) else ""
        if module == "torch" or module.startswith("torch."):
            try:
                ours = importlib.import_module("gradviz." + module)
            except ImportError:
                continue
            swapped[name] = (value, ours)
            ns[name] = ours
    try:
        yield
    finally:
        for name, (real, ours) in swapped.items():
            if ns.get(name) is ours:
                ns[name] = real


def _display_report(ip, opts, watch, names, program, before, after, target) -> None:
    from IPython.display import display

    from gradviz import scripting
    from gradviz.commands import CommandError, common
    from gradviz.commands import run as run_command
    from gradviz.render import dot

    changed = scripting.changed_tensors(before, after)
    try:
        rep = run_command.graph_report(opts, watch, names, program)
    except CommandError as e:  # --root NAME that the namespace does not have
        display(_table(changed, "Tensors this cell made or changed"))
        print(f"%%{MAGIC}: error: {visible(e.message)}", file=sys.stderr)
        return
    if rep.tensors is not None:  # after --backward-twice: gradients as they now are
        changed = scripting.changed_tensors(before, rep.tensors)
    if changed:
        display(_table(changed, "Tensors this cell made or changed"))
    else:
        print("No tensor was made or changed by this cell.")
    if rep.snapshot is None:
        print(f"No graph: {visible(rep.nothing)}")
        return
    who = visible_line(run_command.root_names(rep))  # a notebook renders escape sequences too
    print(f"Graph of {who}: {len(rep.snapshot.nodes)} backward nodes, {len(rep.snapshot.ops)} forward ops; "
          f"root chosen by {visible_line(rep.how)}")
    graph = dot.Graph(rep.snapshot, view=opts.graph.view, max_nodes=opts.graph.max_nodes, notes=rep.picture_notes,
                      depth=opts.graph.depth)
    display(graph)
    if opts.graph.tree:
        print(_tree_text(rep.snapshot, opts.graph.depth))
    if rep.first is not None and not rep.first.ok:
        print(f"Backward on {who} (run by gradviz for --backward-twice) raised:\n{visible(rep.first.error_line)}")
    if rep.second is not None:
        print(visible("\n".join(common.second_backward_lines(rep.second, common.freed_count(rep.snapshot), who))))
    if target is not None:
        outcome = common.write_graph(rep.snapshot, target, opts.graph, notes=rep.picture_notes)
        if outcome.error is not None:
            print(f"%%{MAGIC}: error: {visible(outcome.error.message)}", file=sys.stderr)
        elif outcome.result is not None:
            print(common.describe_written(outcome))


def _table(tensors, caption):
    """The tensor table as HTML, with the terminal's table for a text-only front end."""
    from gradviz.render import html, tables

    buf = io.StringIO()
    tables.print_tensors(tables.make_console(buf, width=110, plain=True), tensors, caption)
    return html.TensorTable(tensors, caption, buf.getvalue().rstrip("\n"))


def _tree_text(snap, depth=None) -> str:
    from gradviz.render import tables, tree

    buf = io.StringIO()
    tree.print_tree(snap, console=tables.make_console(buf, width=110), depth=depth)
    return buf.getvalue().rstrip("\n")


# --------------------------------------------------------------------------- show()


def show(tensors, params=None, *, names=None, view="backward", max_nodes=DEFAULT_MAX_NODES, show_saved=True,
         show_attrs=False, title=None):
    """The backward graph of ``tensors``, drawn inline in Jupyter; ``.save("g.png")`` writes it.

    tensors: a tensor, a list or tuple of tensors, or a dict ``{name: tensor}``.
    params:  ``{name: tensor}``, as torchviz's ``make_dot`` takes them
             (``dict(model.named_parameters())``), to name the leaves.
    names:   more ``{name: tensor}``. Without them, the caller's variables (and the
             parameters of its ``nn.Module`` variables) name what they hold.
    The other options are ``gradviz.render.dot.Graph``'s.
    """
    from gradviz.render import dot

    given = {}
    if isinstance(tensors, dict):
        given.update({str(k): v for k, v in tensors.items()})
        tensors = list(tensors.values())
    by_id = {}  # the first name given for a tensor wins: the dict's, params=, names=, then the caller's
    for source in (given, params or {}, names or {}, _caller_names(_types_of(tensors))):
        for name, t in source.items():
            by_id.setdefault(id(t), name)
    return dot.make_dot(tensors, names=by_id, view=view, max_nodes=max_nodes, show_saved=show_saved,
                        show_attrs=show_attrs, title=title)


def _types_of(tensors):
    """(Tensor, Module) of the engine the tensors come from: gradviz's, or the real PyTorch's."""
    from gradviz.inspect.engines import is_torch_object, real_torch_module

    if is_torch_object(tensors):
        torch = real_torch_module()
        return torch.Tensor, torch.nn.Module
    import gradviz.torch as engine
    import gradviz.torch.nn as nn

    return engine.Tensor, nn.Module


def _caller_names(types) -> dict:
    """{name: tensor} of the first frame outside gradviz: its locals over its globals."""
    from gradviz import scripting

    here = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(here):
        frame = frame.f_back
    if frame is None:
        return {}
    scope = dict(frame.f_globals)
    scope.update(frame.f_locals)
    return dict(scripting.named_tensors(scope, *types))
