"""What a picture can mark on its backward nodes, beside their kind: the bytes each saved
for backward (``run --memory``: a heat fill, as the explorer's "Colour by saved bytes"),
and the leaves whose gradient is missing or all zero (``grad_reason``)."""
import colorsys
import math

from .jsonout import tensor_bytes

NO_GRAD_STYLE = {"color": "#bf3989", "penwidth": "2.5", "style": "filled,dashed"}  # the explorer's mark


def saved_bytes(node) -> int:
    """Bytes of the tensors a snapshot node saved (kept or freed since)."""
    return sum(tensor_bytes(x.shape, x.dtype) or 0 for x in node.saved if x.kind in ("tensor", "freed"))


def heat_fill(size: int, top: int) -> str:
    """A fill from near white to salmon, by ``size`` on a log scale up to ``top`` (the
    explorer's hsl(8,85%,L)): light enough at the top for black text."""
    t = math.log1p(size) / math.log1p(top) if top > 0 else 0.0
    r, g, b = colorsys.hls_to_rgb(8 / 360, (97 - 35 * t) / 100, 0.85)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def reason_kind(reason: str) -> str:
    """'unused', 'detached', 'zero', ... : a grad_reason's first word."""
    return reason.split(":", 1)[0]


def undrawn_reasons_note(reasons: dict, drawn_names) -> str:
    """A picture note naming the tensors with a grad_reason that the picture does not show
    (an unused head is on no path to the root), or ''."""
    missing = [f"{name} ({reason_kind(why)})" for name, why in reasons.items()
               if name not in drawn_names and reason_kind(why) in ("unused", "detached", "zero", "reset")]
    if not missing:
        return ""
    shown = ", ".join(missing[:6]) + (f" and {len(missing) - 6} more" if len(missing) > 6 else "")
    return f"no gradient, not in this graph: {shown}"
