"""Op-table entries for nn's multilinear layers: at::_trilinear, the product of three
tensors each unsqueezed at its ``expand`` dims, summed over ``sumdim`` (F.bilinear is one).
Its gradients are _trilinear again, with the roles of the expand lists and sumdim
exchanged, as ATen's _trilinear_backward computes them: double backward is the same op."""
import numpy as np

from ._ops import Op
from .autograd import graph


def _letters(count):
    return "abcdefghijklmnopqrstuvwxyz"[:count]


def trilinear_array(i1, i2, i3, expand1, expand2, expand3, sumdim):
    """One einsum: each input's subscripts are the dims it is not expanded at, the result's
    those not summed."""
    total = i1.ndim + len(expand1)
    letters = _letters(total)

    def subscripts(expand):
        return "".join(letters[d] for d in range(total) if d not in expand)

    spec = f"{subscripts(expand1)},{subscripts(expand2)},{subscripts(expand3)}->{subscripts(sumdim)}"
    return np.einsum(spec, i1, i2, i3, optimize=True).astype(np.result_type(i1, i2, i3), copy=False)


def trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim):
    return graph.apply(_trilinear, (i1, i2, i3), {"expand1": tuple(expand1), "expand2": tuple(expand2),
                                                   "expand3": tuple(expand3), "sumdim": tuple(sumdim)})


_trilinear = Op(
    "TrilinearBackward0",
    lambda i1, i2, i3, *, expand1, expand2, expand3, sumdim: trilinear_array(
        i1, i2, i3, expand1, expand2, expand3, sumdim),
    i1=lambda grad, i2, i3, expand1, expand2, expand3, sumdim: trilinear(
        grad, i2, i3, sumdim, expand2, expand3, expand1),
    i2=lambda grad, i1, i3, expand1, expand2, expand3, sumdim: trilinear(
        i1, grad, i3, expand1, sumdim, expand3, expand2),
    i3=lambda grad, i1, i2, expand1, expand2, expand3, sumdim: trilinear(
        i1, i2, grad, expand1, expand2, sumdim, expand3))
