"""data_ptr, untyped_storage and storage (fast.ai's matmul lesson looks at an expanded
tensor's storage and strides): sizes, shared memory between views, element lists and the
printed form, against real PyTorch over views of several dtypes and shapes."""
import warnings

import numpy as np
import pytest

import gradviz.torch as T
from gradviz.torch import _errors

torch = pytest.importorskip("torch")

VIEWS = [
    ("whole", lambda x: x),
    ("slice", lambda x: x[1:]),
    ("transpose", lambda x: x.reshape(2, -1).t()),
    ("expand", lambda x: x[:3].expand(4, 3)),
    ("step", lambda x: x[::2]),
    ("reshape view", lambda x: x.view(2, 3)),
]
DTYPES = [("float32", np.float32), ("float64", np.float64), ("int64", np.int64), ("bool", np.bool_)]


def _storage_facts(module, values, view):
    base = module.tensor(values)
    tensor = view(base)
    untyped = tensor.untyped_storage()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        typed = tensor.storage()
    return (untyped.nbytes(), untyped.size(), len(untyped), untyped.element_size(), untyped.tolist(), str(untyped),
            typed.size(), typed.nbytes(), typed.element_size(), typed.tolist(), str(typed), str(typed.dtype),
            tensor.data_ptr() - base.data_ptr(), untyped.data_ptr() == base.data_ptr(), typed[1], untyped[3])


@pytest.mark.parametrize("name, view", VIEWS)
@pytest.mark.parametrize("dtype_name, dtype", DTYPES)
@pytest.mark.parametrize("seed", range(3))
def test_storage_of_views_matches_pytorch(name, view, dtype_name, dtype, seed):
    values = np.random.default_rng(seed).standard_normal(6).round(3).astype(dtype)
    ours = _storage_facts(T, values, view)
    theirs = _storage_facts(torch, values, view)
    assert ours == theirs


def test_empty_storage_prints_as_pytorchs_and_typed_storage_warns_once_in_its_words():
    assert str(T.empty(0).untyped_storage()) == str(torch.empty(0).untyped_storage())
    _errors.reset_warnings_once()  # a fresh process, as PyTorch warns once per process
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        T.tensor([1.0]).storage()
        T.tensor([2.0]).storage()
    torch.storage._reset_warn_typed_storage_removal()
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.tensor([1.0]).storage()
        torch.tensor([2.0]).storage()
    assert len(ours) == len(theirs) == 1 and str(ours[0].message) == str(theirs[0].message)
    assert ours[0].category is theirs[0].category is UserWarning
    assert T.empty(3, device="meta").data_ptr() == torch.empty(3, device="meta").data_ptr() == 0
