"""What a picture of a graph can be: the file formats and the default box budget.

The one place they are spelled: the CLI's help texts, the output checks
(``commands.common.output_target``), the writers (``dot``, ``layout``) and their error
messages all read them from here. Also the graph options ``run``, ``graph`` and
``%%gradviz`` share (:class:`GraphOptions`). Imports nothing of gradviz, so the CLI can
read it while it builds its options without loading rich or graphviz.
"""
from dataclasses import dataclass
from typing import Optional

#: Each extension a graph can be written to, and the format it is written in: DOT as
#: text (``.dot``, its alias ``.gv``), or a picture laid out and drawn by Graphviz.
EXTENSIONS = {"dot": "dot", "gv": "dot", "svg": "svg", "png": "png", "pdf": "pdf"}
#: the extensions, in the order error messages list them
GRAPH_FORMATS = tuple(EXTENSIONS)
#: the formats Graphviz draws (the others are DOT, written as text)
DRAWN_FORMATS = tuple(fmt for fmt in dict.fromkeys(EXTENSIONS.values()) if fmt != "dot")
#: the extensions written as DOT text
DOT_EXTENSIONS = tuple(ext for ext, fmt in EXTENSIONS.items() if fmt == "dot")
DOT = DOT_EXTENSIONS[0]

#: Box budget of a picture (--max-nodes, ``max_nodes=``): past it, long chains and
#: repeated structure are collapsed into summary nodes. 0 never collapses.
DEFAULT_MAX_NODES = 300


def format_of(ext: str):
    """The format an extension (without its dot, lower case) is written in; None if unknown."""
    return EXTENSIONS.get(ext)


def _dotted(formats) -> list:
    return [f".{f}" for f in formats]


def one_of(formats=GRAPH_FORMATS) -> str:
    """'.dot, .gv, .svg, .png or .pdf'."""
    names = _dotted(formats)
    return ", ".join(names[:-1]) + " or " + names[-1]


#: the extensions listed in error messages: every one ('.dot, .gv, .svg, .png or .pdf'),
#: and one per format ('.dot, .svg, .png or .pdf')
ANY_EXTENSION = one_of(GRAPH_FORMATS)
ANY_FORMAT = one_of((DOT,) + DRAWN_FORMATS)
#: for help texts: '.svg, .png, .pdf or .dot/.gv'
HELP_CHOICES = ", ".join(_dotted(DRAWN_FORMATS)) + " or " + "/".join(_dotted(DOT_EXTENSIONS))
#: for short hints: '.svg, .png, .pdf, .dot'
SHORT_CHOICES = ", ".join(_dotted(DRAWN_FORMATS + (DOT,)))
#: a hint that starts from the first drawn format: 'graph.svg (or .png, .pdf, .dot'
EXAMPLE_PICTURE = f"graph.{DRAWN_FORMATS[0]} (or " + ", ".join(_dotted(DRAWN_FORMATS[1:] + (DOT,)))


#: the views a picture can have: the forward graph, the backward graph, or both side by side
VIEWS = ("both", "forward", "backward")
DEFAULT_VIEW = VIEWS[0]


@dataclass(frozen=True)
class GraphOptions:
    """The graph options ``gradviz run``, ``gradviz graph`` and ``%%gradviz`` share (the
    flags ``cli.graph_options`` defines): built once from the command line, then passed
    down whole."""

    output: Optional[str] = None  # OUT: a file (its extension picks the format), '-' for DOT on stdout
    view: str = DEFAULT_VIEW  # --view
    max_nodes: int = DEFAULT_MAX_NODES  # --max-nodes: the box budget
    tree: bool = False  # --tree: also print the backward graph as a tree
    backward_twice: bool = False  # --backward-twice
    retain_graph: bool = False  # --retain-graph
    depth: Optional[int] = None  # --depth: module levels drawn open (None: chosen from the picture's size)

    def picture_flags_given(self) -> list:
        """The flags that only shape a picture and were given ('--view', '--max-nodes'):
        without a picture to draw they do nothing, and the commands say so."""
        return [flag for flag, given in (("--view", self.view != DEFAULT_VIEW),
                                          ("--max-nodes", self.max_nodes != DEFAULT_MAX_NODES)) if given]
