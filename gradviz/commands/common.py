"""What ``run``, ``graph`` and ``explain`` share: output targets, consoles, the
second backward (``--backward-twice``) and writing a graph.

Imports the engine, inspection and rendering modules lazily, so that checking the
command line (``output_target``) costs nothing.
"""
import contextlib
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Optional

from ..render import options as graph_options  # imports nothing: the formats and the box budget
from ..render.options import GRAPH_FORMATS, GraphOptions
from ..safe_text import visible  # every name and path printed goes through it: shown, never obeyed
from . import EXIT_USAGE, CommandError


# --------------------------------------------------------------------------- engines


@dataclass(frozen=True)
class Engine:
    """Which autograd runs the user's code: gradviz's own, or the installed PyTorch."""

    name: str  # 'gradviz' or 'torch'
    torch: Any  # the module `import torch` gives the script
    nn: Any

    @property
    def module_name(self) -> str:
        """What scripting's run takes: the module ``import torch`` resolves to."""
        return "gradviz.torch" if self.name == "gradviz" else "torch"

    @property
    def real(self) -> bool:
        return self.name == "torch"


def engine(name: str = "gradviz") -> Engine:
    """The engine called ``name``; for 'torch', a missing or too old PyTorch is a
    CommandError (one line, exit 2)."""
    if name == "torch":
        from gradviz.inspect.real_torch import TorchUnavailable, import_torch

        try:
            torch = import_torch()
        except TorchUnavailable as e:
            raise CommandError(str(e), EXIT_USAGE) from None
        import torch.nn as nn  # noqa: F811 - the real one, imported with torch

        return Engine("torch", torch, nn)
    import gradviz.torch as torch
    import gradviz.torch.nn as nn

    return Engine("gradviz", torch, nn)


# --------------------------------------------------------------------------- output targets


@dataclass(frozen=True)
class Target:
    """Where a graph goes: a file (the extension picks the format) or stdout (DOT)."""

    path: Optional[str]  # None: stdout
    format: str  # a format of render.options (the extension's, .gv written as DOT)

    @property
    def stdout(self) -> bool:
        return self.path is None


def output_target(path: Optional[str], option: str = "--graph") -> Optional[Target]:
    """Check an output path before anything runs; None when no path was given.

    ``-`` is DOT on stdout. Raises CommandError (exit 2) for an unknown extension, a
    directory, a folder that does not exist or cannot be written.
    """
    if path is None:
        return None
    if path == "-":
        return Target(None, graph_options.DOT)
    if not path.strip():
        raise CommandError(f"{option} needs a file name (or - for DOT on stdout)", usage=True)
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if not ext:
        raise CommandError(f"cannot write '{path}': add an extension to pick the format "
                           f"({graph_options.ANY_EXTENSION})")
    if ext not in GRAPH_FORMATS:
        raise CommandError(f"cannot write '{path}': unknown graph format '.{ext}' "
                           f"(use {graph_options.ANY_EXTENSION})")
    if os.path.isdir(path):
        raise CommandError(f"cannot write '{path}': it is a directory")
    folder = os.path.dirname(path) or "."
    if not os.path.exists(folder):
        raise CommandError(f"cannot write '{path}': the folder '{folder}' does not exist")
    if not os.path.isdir(folder):
        raise CommandError(f"cannot write '{path}': '{folder}' is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise CommandError(f"cannot write '{path}': permission denied")
    return Target(path, graph_options.format_of(ext))


def refuse_the_input_as_output(source: str, outputs) -> None:
    """Refuse (exit 2) an output that is the script or notebook itself, before anything runs.

    gradviz runs a script whatever its extension, so ``gradviz run s.svg --graph s.svg``
    would replace the user's script with a picture. The files are compared by identity
    (device and inode), not by name, so a symbolic or hard link to the script, or another
    spelling of its path, is refused too. ``outputs`` holds (option, path or None) pairs.
    """
    try:
        script = os.stat(source)
    except (OSError, ValueError):
        return  # loading the script reports it
    for option, path in outputs:
        if path is None or path == "-":
            continue
        try:
            out = os.stat(path)
        except (OSError, ValueError):
            continue  # not there yet: it cannot be the script
        if (out.st_dev, out.st_ino) == (script.st_dev, script.st_ino):
            raise CommandError(f"{option} '{path}' is the script itself ('{source}'): writing it would replace "
                               "your code; choose another file name")


# --------------------------------------------------------------------------- consoles


class Streams:
    """The report console and the error console.

    When stdout carries data (a JSON document or DOT), the human report goes to stderr
    with the errors, so stdout holds exactly one thing.
    """

    def __init__(self, data_on_stdout: bool = False):
        from gradviz.render import console

        self.data_on_stdout = data_on_stdout
        self.err = console.make_console(sys.stderr)
        self.report = self.err if data_on_stdout else console.make_console(sys.stdout)

    def note(self, text: str) -> None:
        """A one-line remark on stderr: ``gradviz: note: ...``."""
        from gradviz.render.console import print_text

        print_text(self.err, f"gradviz: note: {visible(text)}", soft_wrap=True)

    def warn(self, text: str) -> None:
        from gradviz.render.console import print_text

        print_text(self.err, f"gradviz: warning: {visible(text)}", "yellow", soft_wrap=True)


# --------------------------------------------------------------------------- retain_graph


@contextlib.contextmanager
def retain_graph_patch(autograd=None):
    """While active, every ``backward()`` / ``autograd.grad()`` keeps its graph
    (``retain_graph=True``), as if the script had asked for it. Restored afterwards.

    ``Tensor.backward`` looks the function up when called: PyTorch's in ``torch.autograd``,
    gradviz's engine in the module that defines it (``autograd.entry``, which the Tensor can
    import without the rest of torch.autograd). Replacing the two functions in both
    modules covers every way in.
    """
    if autograd is None:
        from gradviz.torch import autograd

    real_backward, real_grad = autograd.backward, autograd.grad
    homes = [autograd] + [m for m in {sys.modules.get(real_backward.__module__)} if m is not None and m is not autograd]

    def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
                 inputs=None):
        return real_backward(tensors, grad_tensors, True, create_graph, grad_variables, inputs)

    def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
             allow_unused=None, is_grads_batched=False, materialize_grads=False):
        return real_grad(outputs, inputs, grad_outputs, True, create_graph, only_inputs, allow_unused,
                         is_grads_batched, materialize_grads)

    for new, old in ((backward, real_backward), (grad, real_grad)):
        new.__name__, new.__qualname__, new.__doc__ = old.__name__, old.__qualname__, old.__doc__
        new.__module__ = old.__module__
    for home in homes:
        home.backward, home.grad = backward, grad
    try:
        yield
    finally:
        for home in homes:
            home.backward, home.grad = real_backward, real_grad


# --------------------------------------------------------------------------- backward passes


@dataclass
class RootSpec:
    """A root of the graph: a tensor when there is one, else a (node, output_nr) edge."""

    name: Optional[str]
    tensor: Any = None
    edge: Any = None
    shape: Optional[tuple] = None
    dtype: Optional[str] = None

    @property
    def node(self):
        if self.tensor is not None:
            return self.tensor.grad_fn
        return self.edge[0] if self.edge is not None else None

    def target(self):
        """What ``inspect.snapshot`` takes."""
        return self.tensor if self.tensor is not None else self.edge


@dataclass
class PassResult:
    ok: bool
    error_type: Optional[str] = None
    message: Optional[str] = None  # str(exception), verbatim
    gradient: str = "ones"  # what the pass started from
    extra: dict = field(default_factory=dict)

    @property
    def error_line(self) -> Optional[str]:
        return None if self.ok else f"{self.error_type}: {self.message}"


def backward_pass(roots, retain_graph: bool, torch=None) -> PassResult:
    """Backward from ``roots`` with a gradient of ones for each (exactly what ``L.backward()``
    does for a scalar L); the engine's error is caught, verbatim. ``torch``: the engine's
    module (gradviz's by default, or the real PyTorch)."""
    if torch is None:
        import gradviz.torch as torch

    def go():
        if all(r.tensor is not None for r in roots):
            tensors = [r.tensor for r in roots]
            torch.autograd.backward(tensors, [torch.ones_like(t) for t in tensors], retain_graph=retain_graph)
            return
        grads = [torch.ones(tuple(r.shape or ()), dtype=getattr(torch, r.dtype or "float32")) for r in roots]
        if not torch.__name__.startswith("gradviz"):  # PyTorch: from a node, through a GradientEdge
            edge_type = getattr(getattr(torch.autograd, "graph", None), "GradientEdge", None)
            try:
                edges = [edge_type(*r.edge) for r in roots]
                torch.autograd.backward(edges, grads, retain_graph=retain_graph)
            except (TypeError, AttributeError) as e:  # before 2.2 no GradientEdge; backward takes one since 2.5 or so
                if edge_type is not None and "GradientEdge" not in str(e):
                    raise
                raise NotImplementedError(f"PyTorch {torch.__version__} cannot run backward from a graph node "
                                          "without its tensor (backward through a GradientEdge is newer)") from None
        else:
            from gradviz.torch.autograd.engine import run_backward

            run_backward([r.edge for r in roots], grads, retain_graph, False)

    try:
        without_caller(go)
    except Exception as e:  # noqa: BLE001 - the error is what --backward-twice shows
        return PassResult(False, type(e).__name__, str(e))
    return PassResult(True)


def without_caller(fn):
    """``fn()`` on a thread of its own whose stack holds gradviz's frames only.

    The engine labels nodes and backward calls with the innermost frame outside
    gradviz, the user's line. What gradviz runs itself (the passes of --backward-twice,
    an expression of ``gradviz graph``) has no such line: run from the CLI's stack it
    would be labelled with a line of click. On a bare thread there is no frame to find,
    so the engine records no site at all. The calling thread waits; grad mode and the
    listeners are global, so this is the same as a call in place.
    """
    import _thread

    done = _thread.allocate_lock()
    done.acquire()
    box = {}

    def target():
        try:
            real = sys.modules.get("gradviz.inspect.real_torch")  # a PyTorch run: follow its recorders here
            with real.follow_active() if real is not None else contextlib.nullcontext():
                box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            box["error"] = e
        finally:
            done.release()

    _thread.start_new_thread(target, ())
    done.acquire()
    if "error" in box:
        raise box["error"]
    return box.get("value")


def roots_of_snapshot(snap, edges) -> list:
    """RootSpecs for the edges of a captured backward call (names and shapes from ``snap``)."""
    out = []
    for k, edge in enumerate(edges):
        r = snap.roots[k] if k < len(snap.roots) else None
        out.append(RootSpec(name=r.name if r else None, edge=edge, shape=r.shape if r else None,
                            dtype=r.dtype if r else None))
    return out


def second_backward_note(second: PassResult) -> str:
    if second.ok:
        return ("second backward (--backward-twice) succeeded because the graph was retained "
                "(--retain-graph): the gradients accumulated, so they are doubled")
    return f"second backward (--backward-twice) raised {second.error_line}"


def second_backward_lines(second: PassResult, freed: int, root_names: str) -> list:
    """The second pass's outcome, PyTorch's error verbatim: a heading, then what it means."""
    if second.ok:
        return [f"Second backward on {root_names} (--backward-twice): succeeded",
                "The graph was retained (--retain-graph), so its saved tensors were still there; "
                "the gradients accumulated and are doubled in the table."]
    lines = [f"Second backward on {root_names} (--backward-twice) raised, as PyTorch does:", second.error_line]
    if freed:
        lines.append(f"The first backward freed {freed} saved tensor{'s' if freed != 1 else ''}; "
                     "the graph marks them freed. Pass --retain-graph to keep them.")
    return lines


def print_second_backward(streams: Streams, second: PassResult, freed: int, root_names: str) -> None:
    """The second pass's outcome in the report, PyTorch's error verbatim."""
    from gradviz.render.console import print_text

    con = streams.report
    con.print()
    head, *rest = second_backward_lines(second, freed, root_names)
    print_text(con, visible(head), "bold green" if second.ok else "bold red")
    for line in rest:
        print_text(con, visible(line), soft_wrap=True)


def freed_count(snap) -> int:
    return sum(1 for n in snap.nodes for x in n.saved if x.freed)


# --------------------------------------------------------------------------- writing graphs


@dataclass
class GraphOutcome:
    result: Any = None  # dot.RenderResult, None for stdout
    source: Optional[str] = None  # DOT, when printed to stdout
    notes: tuple = ()
    error: Optional[CommandError] = None

    def as_dict(self, target: Target) -> dict:
        if self.error is not None:
            return {"path": target.path, "format": target.format, "error": self.error.message}
        r = self.result
        return {"path": r.path if r else None, "format": r.format if r else graph_options.DOT,
                "width": r.width if r else None, "height": r.height if r else None,
                "notes": list(self.notes), "error": None}


def write_graph(snap, target: Target, options: GraphOptions, *, notes=(), title=None,
                show_sites: bool = True, timeout: Optional[float] = None, highlight=(), heat=False,
                reasons=None) -> GraphOutcome:
    """Write ``snap`` to ``target``, drawn as ``options`` say (their view and box budget).
    Failures come back as ``GraphOutcome.error`` (exit 2), with Graphviz's advice and the
    DOT written next to the file when Graphviz failed."""
    from gradviz.render import dot

    view, max_nodes = options.view, options.max_nodes
    drawing = dict(notes=tuple(notes), title=title, show_sites=show_sites, highlight=tuple(highlight), heat=heat,
                   reasons=reasons)
    if view == "forward" and not snap.has_forward:
        view = "backward"
    try:
        if target.stdout:
            graph = dot.Graph(snap, view=view, max_nodes=max_nodes, depth=options.depth, **drawing)
            source = graph.source if graph.source.endswith("\n") else graph.source + "\n"
            sys.stdout.write(source)
            sys.stdout.flush()
            return GraphOutcome(source=source, notes=graph.notes)
        kwargs = {"timeout": timeout} if timeout else {}
        graph = dot.Graph(snap, view=view, max_nodes=max_nodes, depth=options.depth, **drawing)
        if not max_nodes:
            _warn_cost(graph, timeout or dot.DEFAULT_TIMEOUT)
        elif graph.estimate.seconds >= 1 and sys.stderr.isatty():  # progress, for people only
            print(f"gradviz: laying out {graph.estimate.boxes:,} boxes…", file=sys.stderr, flush=True)
        result = graph.save(target.path, **kwargs)
        return GraphOutcome(result=result, notes=result.notes)
    except dot.RenderError as e:  # ImageTooLarge, a failure or a timeout of Graphviz
        return GraphOutcome(error=CommandError(str(e), EXIT_USAGE))
    except BrokenPipeError:
        raise  # the reader went away: the CLI leaves quietly
    except OSError as e:
        where = "the DOT to stdout" if target.stdout else f"'{target.path}'"
        return GraphOutcome(error=CommandError(f"cannot write {where}: {e.strerror or e}", EXIT_USAGE))


# Say what a picture without collapsing (--max-nodes 0) will cost when it is this slow or big.
SLOW_LAYOUT = 10.0  # seconds


def _warn_cost(graph, timeout: float) -> None:
    """Before a layout that may take minutes (--max-nodes 0), say what it will cost: the
    user asked for every box, so it goes ahead (Ctrl-C stops it, the time limit too)."""
    from gradviz.render import dot

    e = graph.estimate
    if e.seconds < SLOW_LAYOUT and e.pixels <= dot.READABLE_PIXELS and max(e.width, e.height) <= dot.READABLE_SIDE:
        return
    minutes = e.seconds / 60
    cost = f"about {e.seconds:.0f} s" if e.seconds < 90 else f"about {minutes:.0f} min"
    text = (f"--max-nodes 0 draws all {e.boxes:,} boxes: the picture will be {e.text()} and its layout "
            f"may take {cost}")
    if e.seconds > timeout:
        text += f", past the {timeout:g} s limit"
    text += "; drop --max-nodes 0 to fold repeated structure, or write .dot"
    print(f"gradviz: warning: {text}", file=sys.stderr, flush=True)


def describe_written(outcome: GraphOutcome) -> str:
    r = outcome.result
    size = f", {r.width:,} x {r.height:,} px" if r.width and r.height else ""
    return f"Graph written to {visible(r.path)} ({r.format.upper()}{size})"


def print_graph_outcome(streams: Streams, outcome: GraphOutcome) -> None:
    from gradviz.render.console import print_text

    if outcome.error is not None or outcome.result is None:
        for note in outcome.notes:
            streams.note(note)
        return
    streams.report.print()
    print_text(streams.report, describe_written(outcome), soft_wrap=True)
    for note in outcome.notes:
        print_text(streams.report, f"note: {visible(note)}", soft_wrap=True)


def print_tree(streams: Streams, snap, **options) -> None:
    from gradviz.render import tree

    streams.report.print()
    tree.print_tree(snap, console=streams.report, **options)
