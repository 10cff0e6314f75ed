"""How big a picture will be, before Graphviz lays it out.

Graphviz's layout of a few hundred boxes can take minutes, and only then says how big
the picture is. ``dot`` picks collapsing by this estimate instead: it knows every box's
text and font, so it can size boxes as Graphviz will, and place them in ranks the way
``dot`` does (a box one rank below the boxes it comes from; a leaf just above its first
user). A rank is as tall as its tallest box and as wide as its boxes side by side, plus
the edges that cross it; a cluster is as tall as its ranks and as wide as its widest
rank; the clusters stand side by side. Calibrated against Graphviz on gradviz's own
pictures (RNNs, MLPs, chains, the samples): within about 30% either way, which is
enough to choose how much to fold. The picture is still measured after the layout and
refused over the pixel budget (``layout``).

Everything is iterative and linear in the size of the graph.
"""
from dataclasses import dataclass, field

POINTS = 72.0
DPI = 96  # as layout.DPI: what the pixel budget is measured in
CHAR = 0.61  # width of a monospace character, in ems (DejaVu Sans Mono, as cairo draws it)
LINE = 1.2  # line height, in ems
RANKSEP, NODESEP = 0.3 * POINTS, 0.25 * POINTS  # the picture's graph attributes (dot.py)
MIN_WIDTH, MIN_HEIGHT = 0.75 * POINTS, 0.2 * POINTS  # Graphviz's minimum box (width default, height set)
MARGIN_X, MARGIN_Y = 0.08 * POINTS, 0.04 * POINTS  # the picture's node margin
CLUSTER_PAD = 16.0  # cluster margins and gaps, points
FRAME_PAD = LINE * 10 + 2 * 8.0  # a module's cluster: its label line and margins, points
FRAME_WIDEN = 0.2  # how much wider each level of nested clusters makes a picture
# Graphviz packs a rank less tightly than side by side, and routes edges around boxes.
WIDTH_SLACK = 1.05
# dot's layout time, fitted on RNNs and MLPs of 100 to 1,100 boxes: a little per box, and
# much more for edges that cross ranks (a weight every step of an RNN uses), whose
# crossings dot minimizes: 17 s at 3,800 rank crossings, 77 s at 6,800.
SECONDS_BASE, SECONDS_PER_BOX, SECONDS_CROSSING, CROSSING_POWER = 0.1, 0.0005, 0.6, 2.5


@dataclass
class Sketch:
    """What a picture will hold: its boxes per cluster and its edges (built by ``dot``)."""

    clusters: dict = field(default_factory=dict)  # cluster name -> {node id: (width pt, height pt)}
    edges: list = field(default_factory=list)  # (src, dst, label or None)
    title_lines: int = 0
    fontsizes: set = field(default_factory=set)  # every font size the picture uses, points
    frames: int = 0  # module clusters nested this deep (each adds a label and margins)

    def node(self, cluster, name, text, fontsize=10.0, shape="box"):
        self.clusters.setdefault(cluster, {})[name] = box_size(text, fontsize, shape)
        self.fontsizes.add(float(fontsize))

    def edge(self, src, dst, label=None, fontsize=8.0):
        self.edges.append((src, dst, label))
        if label:
            self.fontsizes.add(float(fontsize))

    @property
    def boxes(self) -> int:
        return sum(len(c) for c in self.clusters.values())


@dataclass(frozen=True)
class Estimate:
    width: int  # pixels at 96 dpi
    height: int
    boxes: int
    min_font_px: float  # the smallest text, in pixels, at the picture's own scale
    crossings: int = 0  # rank crossings of edges longer than a rank: what makes dot slow

    @property
    def pixels(self) -> int:
        return self.width * self.height

    @property
    def seconds(self) -> float:
        """A rough guess at the layout time, to warn before a long one."""
        return (SECONDS_BASE + SECONDS_PER_BOX * self.boxes
                + SECONDS_CROSSING * (self.crossings / 1000) ** CROSSING_POWER)

    def text(self) -> str:
        return f"about {self.width:,} x {self.height:,} px"


def box_size(text, fontsize=10.0, shape="box"):
    """(width, height) in points of a box labelled ``text`` (lines split by \\n or \\l)."""
    lines = text.replace("\\l", "\n").replace("\\n", "\n").rstrip("\n").split("\n") if text else [""]
    w = max(len(line) for line in lines) * CHAR * fontsize
    h = len(lines) * LINE * fontsize
    if shape == "ellipse":  # Graphviz fits the text's box inside the ellipse
        w, h = w * 1.42, h * 1.42
    elif shape == "plaintext":
        return w + 2 * MARGIN_X, h + 2 * MARGIN_Y
    return max(MIN_WIDTH, w + 2 * MARGIN_X + 4), max(MIN_HEIGHT, h + 2 * MARGIN_Y)


def estimate(sketch: Sketch) -> Estimate:
    cluster_of = {}
    for c, nodes in sketch.clusters.items():
        for n in nodes:
            cluster_of[n] = c
    edges_by_cluster = {c: [] for c in sketch.clusters}
    labelled = False
    for u, v, label in sketch.edges:
        c = cluster_of.get(u)
        if c is not None and cluster_of.get(v) == c:
            edges_by_cluster[c].append((u, v))
            labelled = labelled or bool(label)
    width = height = 0.0
    crossings = 0
    for c, nodes in sketch.clusters.items():
        w, h, k = _cluster(nodes, edges_by_cluster[c], labelled)
        width += w + CLUSTER_PAD
        height = max(height, h)
        crossings += k
    height += sketch.title_lines * LINE * 11 + 2 * CLUSTER_PAD + sketch.frames * FRAME_PAD
    # Nested clusters keep their members together, so ranks pack less tightly: measured on
    # pictures grouped by module (GPT-like, LSTM-like, MLPs), about a fifth wider per level.
    width = width * (1 + FRAME_WIDEN * sketch.frames) + sketch.frames * 2 * CLUSTER_PAD
    scale = DPI / POINTS
    min_font = min(sketch.fontsizes) if sketch.fontsizes else 10.0
    return Estimate(max(1, round(width * scale)), max(1, round(height * scale)), sketch.boxes, min_font * scale,
                    crossings)


def _cluster(nodes, edges, labelled):
    """(width, height) in points of one cluster laid out in ranks."""
    succ = {n: [] for n in nodes}
    indeg = dict.fromkeys(nodes, 0)
    for u, v in edges:
        succ[u].append(v)
        indeg[v] += 1
    rank = dict.fromkeys(nodes, 0)
    npred = dict(indeg)
    queue = [n for n in nodes if indeg[n] == 0]
    head = 0
    while head < len(queue):  # longest path from the sources (Kahn's order)
        u = queue[head]
        head += 1
        for v in succ[u]:
            rank[v] = max(rank[v], rank[u] + 1)
            indeg[v] -= 1
            if indeg[v] == 0:
                queue.append(v)
    # dot's ranking shortens edges: a box with at least as many edges out as in moves
    # down to just above its first user (a leaf, its AccumulateGrad, a transpose of it).
    for n in reversed(queue):
        if succ[n] and len(succ[n]) >= npred[n]:
            rank[n] = max(rank[n], min(rank[v] for v in succ[n]) - 1)
    ranks = max(rank.values(), default=0) + 1
    tall = [0.0] * ranks
    wide = [0.0] * ranks
    count = [0] * ranks
    for n, (w, h) in nodes.items():
        r = rank[n]
        tall[r] = max(tall[r], h)
        wide[r] += w
        count[r] += 1
    # An edge spanning several ranks passes each rank between as a thin virtual box.
    through = [0] * (ranks + 1)
    crossings = 0
    for u, v in edges:
        a, b = sorted((rank[u], rank[v]))
        if b - a > 1:
            through[a + 1] += 1
            through[b] -= 1
            crossings += b - a - 1
    running = 0
    widest = 0.0
    for r in range(ranks):
        running += through[r]
        k = count[r] + running
        widest = max(widest, wide[r] + running * 4 + NODESEP * max(0, k - 1))
    gap = RANKSEP + (LINE * 8 + 4 if labelled else 0)  # an edge label takes a rank of its own
    height = sum(tall) + gap * max(0, ranks - 1) + 2 * CLUSTER_PAD + LINE * 11
    return widest * WIDTH_SLACK + 2 * CLUSTER_PAD, height, crossings
