"""``run --nan``'s finding, for people: where the first NaN (or infinity) started."""
import textwrap

from rich.text import Text

from ..safe_text import visible_line
from .console import print_text
from .values import site_text


def print_finding(console, info, kind="nan") -> None:
    """The finding of ``inspect.nonfinite`` (a NonFiniteInfo), or that there was none."""
    console.print()
    what = "NaN" if kind == "nan" else "NaN or infinite value"
    if info is None:
        print_text(console, f"--nan: no {what} in any op's result or any gradient of the run.", "green")
        return
    word = "NaN" if info.kind == "nan" else "infinity"
    where = site_text(info.site) or "an unknown line"
    step = f", during backward call {info.step}" if info.phase == "backward" else \
        (f", after {info.step} backward call{'s' if info.step != 1 else ''}" if info.step else "")
    console.print(Text.assemble((f"First {word}: in {info.phase}, at {info.op}", "bold red"),
                                (f" ({visible_line(where)}{step})", "red")), soft_wrap=True)
    if info.code:
        print_text(console, "  " + visible_line(info.code), "yellow", soft_wrap=True)
    shape = "(" + ", ".join(str(s) for s in info.shape) + ("," if len(info.shape) == 1 else "") + ")"
    first = f", the first at [{', '.join(str(i) for i in info.first)}]" if info.first else ""
    noun = "NaN" if info.kind == "nan" else "infinite"
    print_text(console, f"  {visible_line(info.tensor)} {shape}: {info.count:,} of {info.total:,} "
                        f"element{'s' if info.total != 1 else ''} {noun}{first}", soft_wrap=True)
    if info.phase == "backward":
        print_text(console, "  what arrived at this node was finite: its own gradient formula made it", soft_wrap=True)
    elif info.inputs:
        read = ", ".join(f"{visible_line(name)} ({'finite' if ok else 'not finite'})" for name, ok in info.inputs)
        print_text(console, f"  its inputs: {read}", soft_wrap=True)
    for line in textwrap.wrap(info.fix, width=max(40, console.width), initial_indent="  Fix: ",
                              subsequent_indent="       "):
        print_text(console, line, "bold", soft_wrap=True)
