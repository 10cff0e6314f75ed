"""DOT, SVG, PNG and PDF pictures of a graph snapshot.

The only module that imports the ``graphviz`` package (lazily, when a picture is
built). It reads a ``GraphSnapshot`` and nothing else from gradviz's inspection layer.

Conventions (torchviz's where it has them): edges run the way the forward pass did,
from ``next_functions`` to the node that uses them, so leaves are at the top and the
root at the bottom. Leaves and AccumulateGrad are light blue, roots/outputs green
(darkolivegreen1), saved tensors orange; a saved tensor freed by backward is grey with a
red dashed border, one modified in place since it was saved is red. Summary nodes of a
collapsed graph are yellow folders. Every picture has a legend of what it uses.

Writing: the extension picks the format. ``.dot``/``.gv`` is written as text; the
others are laid out and drawn by ``layout`` (Graphviz in a child process; a picture
over ``max_pixels`` is refused between the two steps). Files are written to a
temporary name and renamed, so an error never leaves an empty or truncated file behind.
"""
import os
import re
import textwrap
from dataclasses import dataclass
from typing import Optional

from . import collapse, estimate, marks, modules
from . import options as graph_options
from ..safe_text import utf8, visible_line
from .files import atomic_write
from .values import byte_size, format_shape, site_text
from .layout import (DEFAULT_MAX_PIXELS, DEFAULT_TIMEOUT, MAX_SIDE, GraphvizNotFound, ImageTooLarge,  # noqa: F401
                     RenderError, draw)

DEFAULT_MAX_NODES = graph_options.DEFAULT_MAX_NODES
# What a readable picture is: text at its own size (the smallest, 8 pt, is 10.7 px at
# 96 dpi: the picture is never scaled down), and a size one can pan around in a viewer.
# Past READABLE, repeated structure (loops) is folded, whatever the box budget
# (--max-nodes) allows; folding a loop loses nothing. Past LARGEST, more is collapsed
# (chains, bands, siblings), which does lose detail, so only a picture that would
# otherwise be too big for a viewer pays for it. The hard limit, the pixel budget
# (50 megapixels), is layout's.
READABLE_PIXELS = 12_000_000
READABLE_SIDE = 4_500
LARGEST_PIXELS = 24_000_000
LARGEST_SIDE = 8_000
MIN_FONT_PX = 10.0
MIN_BUDGET = 24  # boxes: collapsing stops here, however big the estimate
MAX_PARALLEL = 8  # arrows between the same two boxes drawn one by one, at most; more are one '×k'
# A default picture (--max-nodes N > 0) is always drawn, and never bigger than this:
# Graphviz's size is checked after its layout, and the picture folded further if over.
PICTURE_PIXELS = 30_000_000
PICTURE_SIDE = 16_000
RETRIES = 4  # layouts tried, each folded more, before a default picture is given up
OVER = 1.5  # an estimate this far over the pixel budget is refused without a layout
VIEWS = ("both", "forward", "backward")
FORMATS = graph_options.EXTENSIONS  # extension -> format

LEAF = "lightblue"
ROOT = "darkolivegreen1"
SAVED = "orange"
NODE = "lightgrey"
OP = "white"
SUMMARY = "lightyellow"
MODULE = "lightsteelblue1"  # a module call collapsed into one box
FRAME = {"style": "rounded", "color": "steelblue", "fontcolor": "steelblue4"}  # a module's cluster
FOLD_FRAME = {"style": "rounded,dashed", "color": "darkgoldenrod", "fontcolor": "darkgoldenrod4"}
PLAIN = {"shape": "plaintext", "style": "", "fontsize": "9"}  # legend texts about arrows and lines
FREED = {"fillcolor": "gray92", "color": "red3", "fontcolor": "gray40", "style": "filled,dashed"}
RECOMPUTED_STYLE = {"fillcolor": "lightcyan", "color": "darkcyan", "style": "filled,dashed"}
RECOMPUTED = "recomputed in backward"  # a slot torch.utils.checkpoint did not keep
RECOMPUTES = "recomputes its forward in backward"  # a reentrant checkpoint's node
STALE = {"fillcolor": "tomato", "color": "red3", "penwidth": "2"}
HIGHLIGHT = {"fillcolor": "mistyrose", "color": "red3", "penwidth": "3"}  # Graph(highlight=): the failing node


@dataclass(frozen=True)
class RenderResult:
    path: str
    format: str
    width: Optional[int] = None  # pixels: the PNG's own, else the layout's size at 96 dpi
    height: Optional[int] = None
    notes: tuple = ()  # e.g. what was collapsed


# --------------------------------------------------------------------------- public API


def to_dot(snap, view="both", max_nodes=DEFAULT_MAX_NODES, **options) -> str:
    """DOT source of ``snap``. See ``Graph`` for the options."""
    return Graph(snap, view=view, max_nodes=max_nodes, **options).source


def render(snap, path, view="both", max_nodes=DEFAULT_MAX_NODES, *, max_pixels=DEFAULT_MAX_PIXELS,
           timeout=DEFAULT_TIMEOUT, **options) -> RenderResult:
    """Write a picture of ``snap`` to ``path`` (the extension picks the format: ``render.options.EXTENSIONS``)."""
    return Graph(snap, view=view, max_nodes=max_nodes, **options).save(path, max_pixels=max_pixels, timeout=timeout)


def make_dot(roots, names=None, recorder=None, sites=None, **options) -> "Graph":
    """torchviz's ``make_dot``, gradviz style: snapshot ``roots`` and return a Graph."""
    from gradviz.inspect import snapshot
    snap = snapshot(roots, names=names, recorder=recorder, sites=sites)
    if "view" not in options and not snap.has_forward:
        options["view"] = "backward"
    return Graph(snap, **options)


class Graph:
    """A picture of a snapshot; shows itself inline in Jupyter.

    view: 'both' (forward and backward side by side), 'forward' or 'backward'.
    max_nodes: box budget before collapsing (None or 0: never collapse).
    show_saved: draw saved tensors; show_attrs: list saved options (dim, alpha...) in
    node labels; show_sites: file:line in labels; legend: draw the legend.
    title: the picture's first line; notes: more lines under it, e.g. the error a second
    backward raised (long lines are wrapped).
    highlight: backward node ids (``n3``) to draw as the failing node, never collapsed.
    heat: fill backward nodes and module boxes by the bytes they saved for backward.
    reasons: ``{tensor name: grad_reason}``; those leaves are marked, the others named in a note.
    depth: module levels drawn as open clusters when the snapshot knows its modules
    (None: the deepest that fits; see ``modules``); deeper modules are one box each.
    """

    def __init__(self, snap, view="both", max_nodes=DEFAULT_MAX_NODES, *, show_saved=True, show_attrs=False,
                 show_sites=True, legend=True, title=None, notes=(), highlight=(), depth=None, heat=False,
                 reasons=None):
        if view not in VIEWS:
            raise ValueError(f"view must be one of {', '.join(VIEWS)}, not {view!r}")
        if view == "forward" and not snap.has_forward:
            raise ValueError("this snapshot has no forward graph (take it with a Recorder to get one)")
        self.snapshot = snap
        self.view = view
        self.max_nodes = max_nodes
        self._options = (show_saved, show_attrs, show_sites, legend, title, notes)
        self._highlight = frozenset(highlight)
        self._marks = (heat, dict(reasons or {}))
        self.depth = depth
        self._plans = {"backward": {}, "forward": {}}  # modules.plan's cache, per view, kept between budgets
        self._compose(READABLE_PIXELS, READABLE_SIDE, LARGEST_PIXELS, LARGEST_SIDE)

    def _compose(self, pixels, side, most_pixels, most_side):
        """Build the DOT, collapsing until the estimated picture is readable: first as
        the box budget says, then with loops folded (over ``pixels`` or ``side``), then
        with ever smaller budgets (over ``most_pixels`` or ``most_side``)."""
        def build(fold, budget, unfolded=None):
            b = _Builder(self.snapshot, self.view, budget, *self._options, fold=fold, unfolded=unfolded,
                         limit=self.max_nodes, depth=self.depth, plans=self._plans)
            b.highlight = self._highlight
            b.heat, b.reasons = self._marks
            with collapse.gc_paused():
                source = b.build()
            return b, source

        def fits(b, area, longest):
            e = b.estimate
            return e.pixels <= area and max(e.width, e.height) <= longest

        builder, source = build(False, self.max_nodes)
        if self.max_nodes and not fits(builder, pixels, side):
            first = builder.estimate
            budget = self.max_nodes  # folding loops alone: the box budget already held
            # Ungrouped, loops are folded first. Grouped by module, repeats are folded
            # already: the depth goes down (a smaller budget) only while the picture is over
            # the largest size, so a folded block's representative stays open as deep as fits.
            if not builder.grouped:
                builder, source = build(True, budget, first)
            else:
                # The estimate of nested frames runs about 20% over Graphviz's picture (a
                # transformer block: 6,159 x 3,128 estimated, 5,061 x 2,973 drawn), and save()
                # folds again if the drawn picture is over the hard limit: a grouped picture
                # may aim at that limit, so a lesson-sized model keeps every node in sight.
                most_pixels *= PICTURE_PIXELS / LARGEST_PIXELS
            while not fits(builder, most_pixels, most_side) and budget > MIN_BUDGET:
                e = builder.estimate
                ratio = min(most_pixels / e.pixels, most_side / max(e.width, e.height)) ** 0.5
                budget = max(MIN_BUDGET, min(int(min(budget, e.boxes) * 0.8), int(min(budget, e.boxes) * ratio)))
                smaller, smaller_source = build(True, budget, first)
                if smaller.estimate.pixels >= e.pixels:  # collapsing more no longer helps
                    break
                builder, source = smaller, smaller_source
        self.source = source
        self._drawn = builder.drawn
        self.notes = tuple(builder.notes)
        self.estimate = builder.estimate  # of the picture as built, before Graphviz's layout

    def save(self, path, *, max_pixels=DEFAULT_MAX_PIXELS, timeout=DEFAULT_TIMEOUT) -> RenderResult:
        if not self.max_nodes:  # every box, as asked: over the budget it is refused, never folded
            return write(self.source, path, max_pixels=max_pixels, timeout=timeout, notes=self.notes,
                         estimate=self.estimate)
        # A default picture is always drawn, within PICTURE_PIXELS and PICTURE_SIDE: when
        # the estimate was short of the truth, fold by what Graphviz measured, and again.
        pixels, side = min(max_pixels, PICTURE_PIXELS), PICTURE_SIDE
        factor = 1.0
        for attempt in range(RETRIES + 1):
            try:
                return write(self.source, path, max_pixels=pixels, max_side=side, timeout=timeout,
                             notes=self.notes, keep_dot=attempt == RETRIES)
            except ImageTooLarge as e:
                if e.width is None or attempt == RETRIES:
                    raise
                factor *= min(pixels / (e.width * e.height), side / max(e.width, e.height)) * 0.7
            self._compose(READABLE_PIXELS * factor, READABLE_SIDE * factor ** 0.5, LARGEST_PIXELS * factor,
                          LARGEST_SIDE * factor ** 0.5)

    @property
    def module_levels(self):
        """(depth drawn, deepest level) when the picture is grouped by module, else None."""
        plans = [p for p in self._drawn.values() if getattr(p, "levels", None)]
        if not plans:
            return None
        return max(p.depth for p in plans), max(p.levels for p in plans)

    def drawn_as(self, item):
        """The DOT name of the box that stands for a node, op or value in the picture:
        its own (``b_n3``, ``f_v2``), or the folded box it is in; None when not drawn."""
        view, prefix = ("forward", "f_") if item[:1] in ("v", "f") else ("backward", "b_")
        plan = self._drawn.get(view)
        return None if plan is None else prefix + plan.rep(item)

    def pipe(self, format="svg", *, max_pixels=DEFAULT_MAX_PIXELS, timeout=DEFAULT_TIMEOUT) -> bytes:
        data, _, _ = draw(self.source, format, max_pixels, timeout)
        return data

    def _repr_svg_(self):
        return self.pipe("svg").decode("utf-8")

    def _repr_mimebundle_(self, include=None, exclude=None):
        """What a notebook shows: the explorer (text/html; a notebook that runs no script
        shows its picture, static), the picture (image/svg+xml), and the graph as the
        tree for a text-only front end (text/plain)."""
        bundle = {"text/plain": repr(self) + "\n" + self._tree_text()}
        try:
            svg = self._repr_svg_()
            bundle["image/svg+xml"] = svg
            from . import explorer, html
            bundle["text/html"] = html.notebook_figure(svg, explorer.data(self.snapshot, self))
        except RenderError as e:  # no Graphviz, too big: the text still says why
            bundle["text/plain"] += f"\n({e})"
        if include:
            bundle = {k: v for k, v in bundle.items() if k in include}
        if exclude:
            bundle = {k: v for k, v in bundle.items() if k not in exclude}
        return bundle

    def _tree_text(self, width=100) -> str:
        import io

        from . import tables, tree
        buf = io.StringIO()
        tree.print_tree(self.snapshot, console=tables.make_console(buf, width=width, plain=True), depth=self.depth)
        return buf.getvalue().rstrip("\n")

    def __repr__(self):
        s = self.snapshot
        parts = [f"{len(s.nodes)} backward nodes"]
        if s.has_forward:
            parts.append(f"{len(s.ops)} forward ops")
        return f"<gradviz Graph: {', '.join(parts)}, view={self.view!r}>"


# --------------------------------------------------------------------------- building


# Graphviz refuses a quoted string over 16,384 bytes (the .dot would be invalid), and a
# line thousands of characters long is unreadable in a picture anyway.
MAX_LABEL_LINE = 500  # characters of one line of a label; the rest is counted, not drawn
MAX_LABEL_BYTES = 15_000  # of a whole label as written in the DOT


def _label(*lines, end="\\n"):
    """A DOT label: lines joined by Graphviz's \\n (centred) or \\l (left-aligned), never
    read as HTML. Every label of the picture is made here, so what a script named is drawn
    as it is: control characters and lone surrogates shown as escapes (a NUL would end the
    string), backslashes and entities kept literal (Graphviz would draw ``&amp;`` as ``&``
    and ``&#x41;`` as ``A``), an over-long line shortened visibly."""
    import graphviz
    parts = [_label_line(str(x)) for x in lines if x]
    text = end.join(parts)
    if len(text.encode("utf-8")) > MAX_LABEL_BYTES:
        size, kept = 0, []
        for part in parts:
            size += len(part.encode("utf-8")) + len(end)
            if size > MAX_LABEL_BYTES - 100:
                break
            kept.append(part)
        kept.append(f"… {len(parts) - len(kept):,} more lines")
        text = end.join(kept)
    return graphviz.nohtml(text + end if end == "\\l" else text)


def _label_line(line: str) -> str:
    """One line of a label as DOT writes it (see ``_label``)."""
    line = visible_line(line)
    if len(line) > MAX_LABEL_LINE:
        line = f"{line[:MAX_LABEL_LINE]}… ({len(line) - MAX_LABEL_LINE:,} more characters)"
    return line.replace("\\", "\\\\").replace("&", "&amp;")


def _shape(shape):
    """Written as the table writes it, Python's way: (3,), (3, 4), ()."""
    return format_shape(shape) if shape is not None else "?"


def _tensor_line(shape, dtype):
    """'(3, 3)', with the dtype when it is not the default float32."""
    text = _shape(shape)
    return text if dtype in (None, "float32") else f"{text} {dtype}"


def _call(call):
    if call is None:
        return "backward"
    where = site_text(call.site)
    return f"{call.kind} at {where}" if where else call.kind


class _Drawn:
    """A graphviz (sub)graph that also sketches what it is given, for the estimate."""

    def __init__(self, g, sketch, cluster):
        self.g, self.sketch, self.cluster = g, sketch, cluster

    def attr(self, *args, **kwargs):
        self.g.attr(*args, **kwargs)

    def node(self, name, label=None, **attrs):
        self.g.node(name, label, **attrs)
        self.sketch.node(self.cluster, name, str(label if label is not None else name),
                         float(attrs.get("fontsize", 10)), attrs.get("shape", "box"))

    def edge(self, src, dst, **attrs):
        self.g.edge(src, dst, **attrs)
        self.sketch.edge(src, dst, attrs.get("label"))


class _Builder:
    def __init__(self, snap, view, max_nodes, show_saved, show_attrs, show_sites, legend, title, notes,
                 fold=False, unfolded=None, limit=None, depth=None, plans=None):
        self.snap = snap
        self.plans = plans or {"backward": {}, "forward": {}}
        self.grouped = False  # a view was grouped by module
        self.depth = depth  # --depth: module levels drawn open (None: chosen by size)
        self.fold = fold  # fold loops even within the box budget: the picture was too big
        self.unfolded = unfolded  # the estimate before folding, for the notes
        self.limit = max_nodes if limit is None else limit  # the user's --max-nodes
        self.sketch = estimate.Sketch()
        self.estimate = None
        # The forward graph's names of its values ('w1*a'), for saved tensors unnamed by the script.
        self.value_names = forward_names(snap)
        self.extra = [notes] if isinstance(notes, str) else list(notes)
        self.show_saved, self.show_attrs, self.show_sites = show_saved, show_attrs, show_sites
        self.legend, self.title = legend, title
        self.forward = view in ("both", "forward") and snap.has_forward
        self.backward = view in ("both", "backward")
        self.max_nodes = max_nodes
        self.notes = []
        self.drawn = {}  # view -> its collapse plan: what box stands for each node (``Graph.drawn_as``)
        self.used = set()  # legend entries in use
        self.highlight = frozenset()  # backward node ids drawn as the failing node
        self.heat = False  # fill backward nodes by the bytes they saved (marks.heat_fill)
        self.reasons = {}  # tensor name -> grad_reason: those leaves are marked
        self.bytes = {}  # backward node id -> bytes it saved, with heat

    def build(self):
        import graphviz
        g = graphviz.Digraph("gradviz")
        g.attr("graph", rankdir="TB", fontname="monospace", fontsize="11", ranksep="0.3", nodesep="0.25",
               newrank="true")
        g.attr("node", shape="box", style="filled", fillcolor=NODE, fontname="monospace", fontsize="10",
               height="0.2", margin="0.08,0.04")
        g.attr("edge", fontname="monospace", fontsize="8", arrowsize="0.7")
        fw_budget, bw_budget = self._budgets()
        if self.forward:
            with g.subgraph(name="cluster_forward") as c:
                c.attr(label="forward", style="rounded", color="gray60", fontcolor="gray30")
                self._forward(_Drawn(c, self.sketch, "forward"), fw_budget)
        if self.backward:
            with g.subgraph(name="cluster_backward") as c:
                c.attr(label="backward", style="rounded", color="gray60", fontcolor="gray30")
                self._backward(_Drawn(c, self.sketch, "backward"), bw_budget)
        if self.legend and self.used:
            self._legend(g)
        title = self._title_lines()
        self.sketch.title_lines = len(title)
        self.estimate = estimate.estimate(self.sketch)
        g.attr("graph", label=_label(*title, end="\\l"), labelloc="t", labeljust="l")
        return g.source

    def _title_lines(self):
        s = self.snap
        roots = ", ".join(r.name or "?" for r in s.roots) or "?"
        lines = [self.title or f"gradviz: graph of {roots}"]
        for note in self.extra + list(s.notes) + self.notes:
            lines += textwrap.wrap(note, 110, break_on_hyphens=False) or [""]
        return lines

    def _budgets(self):
        """Split the box budget between the two graphs by their sizes."""
        if not self.max_nodes or self.max_nodes <= 0:
            return None, None
        fw = (len(self.snap.ops) + len(self.snap.values)) if self.forward else 0
        bw = sum(1 + len(n.saved) for n in self.snap.nodes) if self.backward else 0
        if not fw or not bw:
            return self.max_nodes, self.max_nodes
        # Each graph gets a little room however lopsided the two are, but never more than
        # the whole budget allows: the two shares add up to --max-nodes.
        floor = min(20, max(1, self.max_nodes // 4))
        share = max(1, min(self.max_nodes - floor, max(floor, round(self.max_nodes * fw / (fw + bw)))))
        return share, max(floor, self.max_nodes - share)

    # -- backward ----------------------------------------------------------------
    def _backward(self, g, budget):
        s = self.snap
        nodes = s.nodes
        saved = {n.id: [x for x in n.saved if x.is_tensor] if self.show_saved else [] for n in nodes}
        root_of = {}
        for k, r in enumerate(s.roots):
            if r.node is not None:
                root_of.setdefault(r.node, []).append(k)
        weight = {n.id: 1 + len(saved[n.id]) + (1 if n.leaf else 0) + len(root_of.get(n.id, ())) for n in nodes}
        edges = [(n.id, e.target) for n in nodes for e in n.edges if e.target is not None]
        pinned = set(root_of) | {n.id for n in nodes if n.leaf is not None and n.leaf.name}
        pinned |= self.highlight
        kind = {n.id: n.label_name for n in nodes}
        place = {n.id: (n.module, n.module_call) for n in nodes if n.module}
        plan = self._module_plan("backward", [n.id for n in nodes], edges, kind, weight, place, pinned,
                                 set(root_of) | self.highlight, budget, len(nodes), "nodes")
        if plan is None:
            plan = collapse.plan([n.id for n in nodes], edges, kind, weight, pinned, budget, fold=self.fold,
                                 roots=set(root_of))
            if plan.collapsed:
                self.notes.append(self._collapse_note("backward", plan, len(nodes), "nodes"))
        self.drawn["backward"] = plan
        if self.heat:
            self.bytes = {n.id: marks.saved_bytes(n) for n in nodes}
            self.top = max(self.bytes.values(), default=0)
        if self.reasons:
            note = marks.undrawn_reasons_note(self.reasons, {n.leaf.name for n in nodes if n.leaf is not None})
            if note:
                self.notes.append(note)
        at = _Placer(g, plan, "b")
        for n in nodes:
            if n.id in plan.group_of:
                continue
            self._backward_node(at(n.id), n, saved[n.id])
        by_id = {n.id: n for n in nodes}
        for grp in plan.groups:
            members = [by_id[m] for m in grp.members]
            if getattr(grp, "title", ()):
                self._module_box(at(grp.id), f"b_{grp.id}", grp, self._heat(grp.members))
                continue
            lines = _count_lines(grp, len(members))
            tensors = [x for m in members for x in m.saved if x.is_tensor] if self.show_saved else []
            if tensors:
                freed = sum(1 for x in tensors if x.freed)
                lines.append(_per_block(lines, grp, len(tensors), "saved tensors") + (
                    "" if not freed else ", all freed" if freed == len(tensors) else f", {freed:,} freed"))
            leaves = [m.leaf.name for m in members if m.leaf is not None and m.leaf.name]
            if leaves:
                lines.append(_names_line("leaves", leaves))
            heat = self._heat(grp.members)
            if heat:
                lines.append(heat[0])
            at(grp.id).node(f"b_{grp.id}", _label(*lines), shape="folder", fillcolor=heat[1] if heat else SUMMARY)
            self.used.add("repeat" if grp.repeats else "summary")
        at.close()
        # next_functions edges, pointing from the input's node to its user (torchviz's way).
        edges = []
        for n in nodes:
            many = sum(1 for e in n.edges if e.target is not None) > 1
            edges += [(e.target, n.id, str(e.input) if many else None, None) for e in n.edges if e.target is not None]
        _edges(g, "b_", edges, plan, self.used)
        for k, r in enumerate(s.roots):
            rid = f"b_root{k}"
            g.node(rid, _label(r.name or "root", _tensor_line(r.shape, r.dtype)), fillcolor=ROOT)
            self.used.add("root")
            if r.node is not None:
                g.edge(f"b_{plan.rep(r.node)}", rid)

    def _backward_node(self, g, n, saved):
        lines = [n.label_name]
        if n.inner:
            lines[0] += f" ({n.inner})"
        if self.show_attrs:
            lines += [f"{x.slot}={x.text}" for x in n.saved if x.kind == "value"]
        if n.recomputes_forward:
            lines.append(RECOMPUTES)
        if self.show_sites:
            lines.append(site_text(n.site))
        attrs = {}
        if n.site:
            attrs["tooltip"] = _label(f"{n.site[0]}:{n.site[1]}")
        if n.leaf is not None:
            attrs["fillcolor"] = LEAF
            self.used.add("accumulate")
        else:
            self.used.add("node")
        heat = self._heat((n.id,))
        if heat:
            lines.append(heat[0])
            attrs["fillcolor"] = heat[1]
        if n.id in self.highlight:
            attrs.update(HIGHLIGHT)
            self.used.add("failing")
        g.node(f"b_{n.id}", _label(*lines), **attrs)
        if n.leaf is not None:
            leaf = n.leaf
            why = self.reasons.get(leaf.name) if leaf.name else None
            lines = [leaf.name or "leaf", _tensor_line(leaf.shape, leaf.dtype)]
            if why:
                lines.append(f"no grad: {marks.reason_kind(why)}")
                self.used.add("no_grad")
            g.node(f"b_{n.id}_leaf", _label(*lines), fillcolor=LEAF, **(marks.NO_GRAD_STYLE if why else {}))
            g.edge(f"b_{n.id}_leaf", f"b_{n.id}")
            self.used.add("leaf")
        for k, x in enumerate(saved):
            sid = f"b_{n.id}_s{k}"
            g.node(sid, _label(*_saved_lines(x, n, self.value_names)), fontsize="9", **_saved_style(x))
            g.edge(f"b_{n.id}", sid, dir="none", style="dashed" if x.freed else "solid")
            self.used.add("freed" if x.freed else "stale" if x.stale else "saved")
            self.used.add("saved_line")

    # -- forward -----------------------------------------------------------------
    def _forward(self, g, budget):
        s = self.snap
        values = {v.id: v for v in s.values}
        roots = {r.value for r in s.roots if r.value is not None}
        constants = {v.id for v in s.values if v.kind == "constant"}
        items, kind, weight, edges = [], {}, {}, []
        for v in s.values:
            if v.id not in constants:
                items.append(v.id)
                kind[v.id] = "tensor"
                weight[v.id] = 1
        for op in s.ops:
            items.append(op.id)
            kind[op.id] = op.name
            weight[op.id] = 1 + len([i for i in op.inputs if i in constants])
            edges += [(i, op.id) for i in op.inputs if i not in constants]
            edges += [(op.id, o) for o in op.outputs]
        pinned = roots | {v.id for v in s.values if v.named}
        # Reversed, so depth counts from the outputs, as in the backward graph: an input
        # used at step t of a loop then sits next to step t, not with the first inputs.
        place = forward_places(s, constants)
        plan = self._module_plan("forward", items, [(v, u) for u, v in edges], kind, weight, place, pinned, roots,
                                 budget, len(s.ops), "ops", lambda m: kind[m] != "tensor")
        if plan is None:
            plan = collapse.plan(items, [(v, u) for u, v in edges], kind, weight, pinned, budget, fold=self.fold,
                                 roots=roots)
        self.drawn["forward"] = plan
        if plan.collapsed and not place:
            if any(kind[m] != "tensor" for g in plan.groups for m in g.members):
                note = self._collapse_note("forward", plan, len(s.ops), "ops", lambda m: kind[m] != "tensor")
            else:  # only tensors collapsed (a fan of named ones): count them, not "0 of 3 ops"
                note = self._collapse_note("forward", plan, len(items) - len(s.ops), "tensors",
                                           lead=f"{len(s.ops):,} ops drawn")
            self.notes.append(note)
        at = _Placer(g, plan, "f")
        for v in s.values:
            if v.id in constants or v.id in plan.group_of:
                continue
            self._value(at(v.id), v, v.id in roots)
        declared = set()  # a Python number used by ops in two clusters is drawn in the first one's
        for op in s.ops:
            if op.id in plan.group_of:
                continue
            lines = [op.name] + ([site_text(op.site)] if self.show_sites else [])
            attrs = {"shape": "ellipse", "fillcolor": OP}
            if op.site:
                attrs["tooltip"] = _label(f"{op.site[0]}:{op.site[1]}")
            if op.during_backward:
                attrs["style"] = "filled,dashed"
                self.used.add("op_backward")
            at(op.id).node(f"f_{op.id}", _label(*lines), **attrs)
            self.used.add("op")
            for i in op.inputs:
                if i in constants and (i not in declared or not place):
                    declared.add(i)
                    at(op.id).node(f"f_{i}", _label(values[i].name), shape="plaintext", style="",
                                   fontcolor="gray30")
        for grp in plan.groups:
            if getattr(grp, "title", ()):
                self._module_box(at(grp.id), f"f_{grp.id}", grp)
                continue
            tensors = [values[m] for m in grp.members if kind[m] == "tensor"]
            ops = len(grp.members) - len(tensors)
            if ops:
                lines = _count_lines(grp, ops, skip="tensor")
                if tensors:
                    lines.append(_per_block(lines, grp, len(tensors), "tensors"))
            else:  # a fan of tensors (x.unbind()'s 10,000 outputs): no op to count
                lines = [f"×{len(tensors)} tensors"]
            named = [v.name for v in tensors if v.named]
            if named:
                lines.append(_names_line("named", named))
            at(grp.id).node(f"f_{grp.id}", _label(*lines), shape="folder", fillcolor=SUMMARY)
            self.used.add("repeat" if grp.repeats else "summary")
        at.close()
        edges = []
        for op in s.ops:
            many = sum(1 for i in op.inputs if i not in constants) > 1
            for k, i in enumerate(op.inputs):
                if i in constants:
                    if op.id not in plan.group_of:  # drawn only next to an op that is drawn
                        edges.append((i, op.id, None, {"arrowsize": "0.5", "color": "gray50"}))
                else:
                    edges.append((i, op.id, str(k) if many else None, None))
            edges += [(op.id, o, None, None) for o in op.outputs]
        _edges(g, "f_", edges, plan, self.used)

    def _module_plan(self, which, items, edges, kind, weight, place, pinned, roots, budget, count, noun,
                     counted=lambda m: True):
        """Group by module when the snapshot knows its modules (None: it does not, the
        picture is drawn as before): clusters, module boxes, folded repeats (``modules``)."""
        if not place:
            return None
        plan = modules.plan(items, edges, kind, weight, place, self.snap.modules, roots=roots, pinned=pinned,
                            budget=budget, depth=self.depth, fold=self.fold, noun=noun, repeats=bool(budget),
                            cache=self.plans[which])
        self.grouped = True
        if plan.collapsed or plan.refused:
            members = sum(1 for grp in plan.groups for m in grp.members if counted(m))
            n = len(plan.groups)
            note = (f"{which}: {count - members:,} {noun} drawn, {members:,} of {count:,} {noun} are collapsed "
                    f"into {n} box{'es' if n != 1 else ''}, grouped by module at depth {plan.depth} of "
                    f"{plan.levels} (--depth N to choose)")
            if plan.summarized:
                note += f"; {plan.summarized:,} in summaries to stay within {self.limit} boxes (--max-nodes)"
            if plan.refused:
                note += f"; {plan.refused} grouping{'s' if plan.refused != 1 else ''} left open, as folding " \
                        "would have drawn a cycle"
            self.notes.append(note)
        return plan

    def _module_box(self, g, name, grp, heat=None):
        """A module call, or a folded run of siblings or calls, as one box."""
        title = grp.title + ((heat[0],) if heat else ())
        if grp.repeats:
            g.node(name, _label(*title), shape="folder", fillcolor=heat[1] if heat else SUMMARY)
            self.used.add("module_repeat")
        else:
            g.node(name, _label(*title), shape="box3d", fillcolor=heat[1] if heat else MODULE)
            self.used.add("module")

    def _heat(self, node_ids):
        """('saved 1.5 MiB', fill) of what ``node_ids`` saved, with heat; else None."""
        if not self.heat:
            return None
        size = sum(self.bytes.get(k, 0) for k in node_ids)
        if not size:
            return None
        self.used.add("heat")
        return f"saved {byte_size(size)}", marks.heat_fill(size, self.top)

    def _value(self, g, v, is_root):
        lines = [v.name, _tensor_line(v.shape, v.dtype)]
        if v.grad is not None:
            lines.append(f"grad {_shape(v.grad.shape)}")
        if is_root:
            fill = ROOT
            self.used.add("root")
        elif v.is_leaf and v.requires_grad:
            fill = LEAF
            self.used.add("leaf")
        else:
            fill = OP
            self.used.add("tensor" if v.requires_grad else "constant")
        attrs = {"fillcolor": fill}
        if not v.requires_grad:
            attrs["style"] = "filled,dotted"
        why = self.reasons.get(v.name) if v.is_leaf else None
        if why:  # a leaf with no gradient, or an all-zero one
            lines.append(f"no grad: {marks.reason_kind(why)}")
            attrs.update(marks.NO_GRAD_STYLE)
            self.used.add("no_grad")
        g.node(f"f_{v.id}", _label(*lines), **attrs)

    def _collapse_note(self, which, plan, count, noun, counted=lambda m: True, lead=None):
        """What the picture holds, in true numbers, and why it was collapsed. lead: what
        was drawn, when that is not the rest of the ``count``."""
        members = sum(1 for g in plan.groups for m in g.members if counted(m))
        n = len(plan.groups)
        loops = [g.repeats for g in plan.groups if g.repeats]
        how = f"{members:,} of {count:,} {noun} are collapsed into {n} summary box{'es' if n != 1 else ''}"
        if loops:
            how += f" (loop{'s' if len(loops) > 1 else ''} of {', '.join(f'{k:,}' for k in loops)} repeats)"
        why = (f"to stay within {self.limit} boxes (--max-nodes {self.limit})" if not self.fold
               else "to keep the picture readable")
        if self.unfolded is not None:
            why += f"; unfolded it would be {self.unfolded.text()}"
        return f"{which}: {lead or f'{count - members:,} {noun} drawn'}, {how}, {why}"

    # -- legend ------------------------------------------------------------------
    def _legend(self, g):
        entries = [
            ("leaf", "leaf tensor", {"fillcolor": LEAF}),
            ("accumulate", "AccumulateGrad", {"fillcolor": LEAF}),
            ("node", "grad_fn node", {}),
            ("op", "forward op", {"shape": "ellipse", "fillcolor": OP}),
            ("tensor", "tensor", {"fillcolor": OP}),
            ("constant", "no grad", {"fillcolor": OP, "style": "filled,dotted"}),
            ("root", "root / output", {"fillcolor": ROOT}),
            ("failing", "failing node", HIGHLIGHT),
            ("heat", "fill: bytes saved\\nfor backward\\n(darker: more)", {"fillcolor": marks.heat_fill(1, 1)}),
            ("no_grad", "dashed: a leaf with\\nno gradient, or an\\nall-zero one", dict(marks.NO_GRAD_STYLE,
                                                                                  fillcolor=LEAF)),
            ("saved", "saved tensor", {"fillcolor": SAVED}),
            ("stale", "saved, modified\\nin place since", STALE),
            ("freed", "saved, freed\\nby backward", FREED),
            ("summary", "collapsed", {"shape": "folder", "fillcolor": SUMMARY}),
            ("repeat", "×N repeated blocks,\\none drawn in full\\non either side", {"shape": "folder",
                                                                             "fillcolor": SUMMARY}),
            ("module", "a module call,\\ncollapsed", {"shape": "box3d", "fillcolor": MODULE}),
            ("module_repeat", "×N repeated modules\\nor calls: the first\\ndrawn, the rest here",
             {"shape": "folder", "fillcolor": SUMMARY}),
            ("op_backward", "op run during\\nbackward", {"shape": "ellipse", "fillcolor": OP,
                                                       "style": "filled,dashed"}),
            ("arrow", "arrow: from an input\\nto what uses it", PLAIN),
            ("edge_input", "0, 1 on an arrow:\\nwhich input it is", PLAIN),
            ("edge_merged", "×k on an arrow:\\nk arrows in one", PLAIN),
            ("constant_arrow", "grey arrow: a\\nPython number input", dict(PLAIN, fontcolor="gray30")),
            ("saved_line", "plain line: what a\\nnode saved (dashed:\\nfreed since)", PLAIN),
        ]
        with g.subgraph(name="cluster_legend") as c:
            c = _Drawn(c, self.sketch, "legend")
            # A column: invisible edges stack the entries one under the other.
            c.attr(label="legend", style="rounded", color="gray75", fontcolor="gray30")
            prev = None
            for key, text, attrs in entries:
                if key not in self.used:
                    continue
                name = f"legend_{key}"
                c.node(name, text, **attrs)  # the texts are ours: \n stays a line break
                if prev is not None:
                    c.edge(prev, name, style="invis")
                prev = name


class _Placer:
    """Where each drawn thing goes: the cluster of its module (``plan.cluster_of``),
    nested as the plan's clusters are, or the view itself. Call ``close`` once every node
    is placed and before the edges: it puts the clusters, innermost first, into their parents."""

    def __init__(self, view, plan, prefix):
        import graphviz
        self.view, self.plan = view, plan
        self.sub, level = {}, {}
        for k, c in enumerate(getattr(plan, "clusters", ())):
            d = graphviz.Digraph(name=f"cluster_{prefix}m{k}")
            d.attr(label=_label(c.label), labeljust="l", fontsize="10",
                   **(FOLD_FRAME if c.key.startswith("s:") else FRAME))
            self.sub[c.key] = _Drawn(d, view.sketch, view.cluster)
            level[c.key] = 1 + level.get(c.parent, 0)
            view.sketch.frames = max(view.sketch.frames, level[c.key])  # nested frames: taller and wider

    def __call__(self, unit):
        key = getattr(self.plan, "cluster_of", {}).get(unit)
        return self.sub[key] if key is not None else self.view

    def close(self):
        for c in reversed(getattr(self.plan, "clusters", ())):
            parent = self.sub[c.parent].g if c.parent is not None else self.view.g
            parent.subgraph(self.sub[c.key].g)


def forward_places(snap, constants):
    """(module, call) of each forward item: an op's own; a value's, the op that made it;
    a parameter (a named leaf that needs grad), its first user's, so it sits in its module;
    another input (a buffer, a mask, token ids), its users' when they all run in one module
    call, so it does not wait outside in a long row."""
    place = {}
    for op in snap.ops:
        if op.module:
            place[op.id] = (op.module, op.module_call)
            for o in op.outputs:
                place.setdefault(o, place[op.id])
    if not place:
        return place
    made = {o for op in snap.ops for o in op.outputs}
    params = {v.id for v in snap.values if v.is_leaf and v.requires_grad and v.named and v.id not in constants}
    users = {}  # input value -> the places of the ops that read it
    for op in snap.ops:
        for i in op.inputs:
            if i not in made and i not in constants and i not in place:
                where = users.setdefault(i, [])
                if op.id in place and i in params and not where:
                    place[i] = place[op.id]
                where.append(place.get(op.id))
    for value, where in users.items():
        if value not in place and where[0] is not None and all(w == where[0] for w in where):
            place[value] = where[0]
    return place


def _edges(g, prefix, edges, plan, used):
    """Draw (src, dst, label, attrs) edges; those touching a summary are merged, '×k'.
    ``used`` learns which marks were drawn, for the legend."""
    merged = {}
    # Parallel arrows beyond a few (stack(x.unbind()): 10,000 from one node to another)
    # are merged too: each would cost Graphviz as much as a box, and say nothing more.
    parallel = {}
    for src, dst, _, _ in edges:
        parallel[(src, dst)] = parallel.get((src, dst), 0) + 1
    for src, dst, label, attrs in edges:
        rs, rd = plan.rep(src), plan.rep(dst)
        if rs == rd:
            continue
        if rs != src or rd != dst or parallel[(src, dst)] > MAX_PARALLEL:
            merged[(rs, rd)] = merged.get((rs, rd), 0) + 1
            continue
        extra = dict(attrs or {})
        if label:
            extra["label"] = label
            used.add("edge_input")
        used.add("constant_arrow" if extra.get("color") == "gray50" else "arrow")
        g.edge(prefix + rs, prefix + rd, **extra)
    for (rs, rd), k in merged.items():
        if k > 1:
            used.add("edge_merged")
        used.add("arrow")
        g.edge(prefix + rs, prefix + rd, **({"label": f"×{k}"} if k > 1 else {}))


def forward_names(snap) -> dict:
    """{value id: name} of the forward graph's values that have a name worth showing: a
    variable's or an expression ('w1*a'), not the placeholder of an unnamed input."""
    return {v.id: v.name for v in snap.values if v.kind == "tensor" and v.name not in ("tensor", "leaf")}


def _saved_lines(x, node, value_names=None):
    head = x.attr
    name = x.tensor_name or (value_names or {}).get(x.value)
    if name:
        head += f" = {name}"
    elif x.kind == "scalar" and x.text is not None:
        return [f"{head} = {x.text}", "scalar"]
    lines = [head, _tensor_line(x.shape, x.dtype)]
    if x.recomputed:
        lines.append(RECOMPUTED)
    elif x.freed:
        lines.append(f"freed by {_call(node.freed_by)}")
    elif x.stale:
        lines.append(f"saved v{x.saved_version}, now v{x.current_version}")
    return lines


def _saved_style(x):
    if x.recomputed:
        return dict(RECOMPUTED_STYLE)
    if x.freed:
        return dict(FREED)
    if x.stale:
        return dict(STALE)
    return {"fillcolor": SAVED}


def _count_lines(grp, total, skip=None):
    """'×998 TanhBackward0', '×13 repeated blocks, each:' and what one holds, or a count
    and the most frequent kinds."""
    counts = [(k, c) for k, c in grp.counts if k != skip]
    if len(counts) == 1 and (not grp.repeats or counts[0][1] == grp.repeats):
        return [f"×{counts[0][1]} {counts[0][0]}"]
    if grp.repeats and all(c % grp.repeats == 0 for _, c in counts):
        lines = [f"×{grp.repeats} repeated blocks, each:"]
        per = sorted(((k, c // grp.repeats) for k, c in counts), key=lambda kc: (-kc[1], kc[0]))
        lines += [f"{c} {k}" for k, c in per[:5]]
        if len(per) > 5:
            lines.append(f"… {sum(c for _, c in per[5:])} more")
        return lines
    lines = [f"×{total} collapsed"]
    lines += [f"{c} {k}" for k, c in counts[:4]]
    if len(counts) > 4:
        lines.append(f"… {sum(c for _, c in counts[4:])} more")
    return lines


def _per_block(lines, grp, count, noun):
    """'4 saved tensors' in a block of a folded loop (whose label says 'each'), else the total."""
    if lines[0].endswith("each:") and count % grp.repeats == 0:
        return f"{count // grp.repeats:,} {noun}"
    return f"{count:,} {noun}"


def _names_line(what, names, limit=3):
    """'leaves: w0, w1, … w9 (10)': the names a summary holds, first and last, in
    natural order (layer 2 before layer 10)."""
    names = sorted(set(names), key=lambda n: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", n)])
    if len(names) <= limit:
        return f"{what}: {', '.join(names)}"
    return f"{what}: {', '.join(names[:limit - 1])}, … {names[-1]} ({len(names)})"


# --------------------------------------------------------------------------- writing


def write(source, path, *, max_pixels=DEFAULT_MAX_PIXELS, timeout=DEFAULT_TIMEOUT, notes=(), estimate=None,
          keep_dot=True, max_side=MAX_SIDE) -> RenderResult:
    """Write DOT ``source`` to ``path``; the extension picks the format.

    estimate: the picture's estimated size; one far over the budget is refused before a
    layout that could take minutes. When Graphviz fails, the DOT is kept next to ``path``
    (under a new name if that one is taken) unless ``keep_dot`` is false.
    """
    path = os.fspath(path)
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    fmt = FORMATS.get(ext)
    if fmt is None:
        raise ValueError(f"cannot write '{path}': unknown graph format '.{ext}' "
                         f"(use {graph_options.ANY_EXTENSION})" if ext else
                         f"cannot write '{path}': add an extension ({graph_options.ANY_FORMAT})")
    if fmt == graph_options.DOT:
        atomic_write(path, utf8(source))
        return RenderResult(path, graph_options.DOT, notes=tuple(notes))
    try:
        if estimate is not None and (estimate.pixels > OVER * max_pixels or max(estimate.width, estimate.height)
                                     > OVER * MAX_SIDE):
            raise ImageTooLarge(f"refusing to lay out a picture of {estimate.text()} ({estimate.boxes:,} boxes; "
                                f"the budget is {max_pixels:,} px and {MAX_SIDE:,} px a side); drop --max-nodes 0 "
                                "to fold repeated structure, or choose .dot")
        data, width, height = draw(source, fmt, max_pixels, timeout, max_side)
    except RenderError as e:
        if not keep_dot and isinstance(e, ImageTooLarge):
            raise
        # Keep the DOT, so the graph is not lost: it can be rendered elsewhere.
        dot_path = _free_name(os.path.splitext(path)[0], ".dot")
        atomic_write(dot_path, utf8(source))
        err = type(e)(f"{e}; the DOT source was written to {dot_path}")
        err.width, err.height = getattr(e, "width", None), getattr(e, "height", None)
        raise err from None
    atomic_write(path, data)
    return RenderResult(path, fmt, width, height, tuple(notes))


def _free_name(base, ext):
    """``base + ext``, or ``base-1 + ext``, ``base-2 + ext``...: never a file that exists."""
    path, k = base + ext, 0
    while os.path.exists(path):
        k += 1
        path = f"{base}-{k}{ext}"
    return path
