"""Tensor.storage_offset() against PyTorch 2.13: views (narrow, slicing, select, chunk, split,
unbind, transpose, diagonal, expand, detach, .real) count their start in elements of the
shared storage; fresh results start at 0."""
import numpy as np
import pytest

import gradviz.torch as gt

VIEWS = {
    "base": lambda x: x,
    "narrow": lambda x: x.narrow(2, 1, 2),
    "slice": lambda x: x[1:, 2:],
    "step_slice": lambda x: x[:, ::2, 1:],
    "select": lambda x: x.select(1, 2),
    "index": lambda x: x[2, 1, 3],
    "transpose_row": lambda x: x[1].t()[2],
    "chunk": lambda x: x.chunk(3, 2)[1],
    "split": lambda x: x.split(2, 1)[1],
    "unbind": lambda x: x.unbind(0)[-1],
    "view_of_slice": lambda x: x[1:].reshape(-1),
    "diagonal": lambda x: x[1].diagonal(offset=1),
    "detach": lambda x: x[1:].detach(),
    "expand": lambda x: x[0, 0, 1:2].expand(4, 3),
    "flat_tail": lambda x: x.flatten()[7:],
    "sum": lambda x: x.sum(0),
    "contiguous_copy": lambda x: x[:, 1:].contiguous(),
    "clone": lambda x: x[1:].clone(),
}


@pytest.mark.parametrize("shape", [(3, 4, 5), (4, 6, 7), (5, 3, 4)])
@pytest.mark.parametrize("name", list(VIEWS))
def test_storage_offset_matches_torch(name, shape):
    torch = pytest.importorskip("torch")
    data = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    ours = VIEWS[name](gt.tensor(data))
    theirs = VIEWS[name](torch.tensor(data))
    assert ours.storage_offset() == theirs.storage_offset()
    assert gt.Tensor.storage_offset(ours) == torch.Tensor.storage_offset(theirs)


def test_real_of_complex_counts_in_its_own_elements():
    torch = pytest.importorskip("torch")
    ours = gt.zeros(4, dtype=gt.complex64)[1:].real
    theirs = torch.zeros(4, dtype=torch.complex64)[1:].real
    assert ours.storage_offset() == theirs.storage_offset() == 2
