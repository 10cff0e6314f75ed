"""Optimizers against PyTorch 2.13's single-tensor updates, bit for bit: 200 seeded steps in
float32 with the gradient fed from numpy (the same bits on both sides), so that only the
update's op order and rounding are compared. PyTorch's sqrt of a contiguous tensor is MKL's
VML, not correctly rounded; for the optimizers that take one, torch's Tensor.sqrt is swapped
for the correctly rounded one for the run, which leaves every other op PyTorch's own."""
import contextlib

import numpy as np
import pytest

import gradviz.torch as gt


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@contextlib.contextmanager
def _rounded_sqrt(torch):
    original = torch.Tensor.sqrt, torch.Tensor.sqrt_

    def sqrt(self):
        return torch.from_numpy(np.asarray(np.sqrt(self.detach().numpy())))

    def sqrt_(self):
        return self.copy_(sqrt(self))

    torch.Tensor.sqrt, torch.Tensor.sqrt_ = sqrt, sqrt_
    try:
        yield
    finally:
        torch.Tensor.sqrt, torch.Tensor.sqrt_ = original


def _fake_grad(w, step, seed):
    """A gradient that moves with the weights and changes sign now and then."""
    rng = np.random.default_rng(seed * 1000 + step)
    noise = rng.standard_normal(w.shape).astype(np.float32)
    return np.asarray(np.sin(w * np.float32(3)) + noise * np.float32(0.5), dtype=np.float32)


def _run(lib, make, seed, steps=200):
    rng = np.random.default_rng(seed)
    shapes = [(7, 5), (13,), ()]
    params = [lib.nn.Parameter(lib.from_numpy(rng.standard_normal(s).astype(np.float32))) for s in shapes]
    opt = make(lib, params)
    for step in range(steps):
        for i, p in enumerate(params):
            p.grad = lib.from_numpy(_fake_grad(p.detach().numpy(), step, seed + i))
        opt.step()
    return [p.detach().numpy().copy() for p in params], [p._version for p in params]


OPTIMIZERS = {
    "sgd": lambda T, p: T.optim.SGD(p, lr=0.01),
    "sgd_momentum_wd": lambda T, p: T.optim.SGD(p, lr=0.01, momentum=0.9, weight_decay=0.01),
    "sgd_dampening": lambda T, p: T.optim.SGD(p, lr=0.02, momentum=0.7, dampening=0.3),
    "sgd_nesterov_maximize": lambda T, p: T.optim.SGD(p, lr=0.005, momentum=0.9, nesterov=True, maximize=True,
                                                      weight_decay=0.1),
    "adam": lambda T, p: T.optim.Adam(p, lr=0.01),
    "adam_wd_amsgrad": lambda T, p: T.optim.Adam(p, lr=0.01, betas=(0.8, 0.95), weight_decay=0.05, amsgrad=True),
    "adam_maximize": lambda T, p: T.optim.Adam(p, lr=0.003, eps=1e-6, maximize=True),
    "adamw": lambda T, p: T.optim.AdamW(p, lr=0.01),
    "adamw_amsgrad_maximize": lambda T, p: T.optim.AdamW(p, lr=0.01, weight_decay=0.3, amsgrad=True, maximize=True),
    "rmsprop": lambda T, p: T.optim.RMSprop(p, lr=0.001),
    "rmsprop_centered_momentum_wd": lambda T, p: T.optim.RMSprop(p, lr=0.001, alpha=0.9, momentum=0.5, centered=True,
                                                                 weight_decay=0.1),
    "rmsprop_maximize": lambda T, p: T.optim.RMSprop(p, lr=0.001, momentum=0.3, maximize=True),
    "adagrad": lambda T, p: T.optim.Adagrad(p, lr=0.05),
    "adagrad_decay_wd": lambda T, p: T.optim.Adagrad(p, lr=0.1, lr_decay=0.01, weight_decay=0.1,
                                                     initial_accumulator_value=0.1, maximize=True),
}


class _Lib:
    def __init__(self, module):
        self.module = module
        self.nn = module.nn
        self.optim = module.optim
        self.from_numpy = module.from_numpy


@pytest.mark.parametrize("name", list(OPTIMIZERS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_200_steps_bit_exact(torch, name, seed):
    make = OPTIMIZERS[name]
    ours, our_versions = _run(_Lib(gt), make, seed)
    with _rounded_sqrt(torch):
        theirs, their_versions = _run(_Lib(torch), make, seed)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype == np.float32
        mismatched = int((a.view(np.int32) != b.view(np.int32)).sum())
        assert mismatched == 0, f"{mismatched} of {a.size} values differ"
    assert our_versions == their_versions


def test_sgd_needs_no_sqrt_so_runs_on_torch_untouched(torch):
    ours, _ = _run(_Lib(gt), OPTIMIZERS["sgd_nesterov_maximize"], 5)
    theirs, _ = _run(_Lib(torch), OPTIMIZERS["sgd_nesterov_maximize"], 5)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 7, 33, 1000])
def test_engine_addcmul_fuses_as_aten(torch, dtype, n):
    rng = np.random.default_rng(n)
    a, b, c = (rng.standard_normal(n).astype(dtype) for _ in range(3))
    for value in (1, 0.3, -0.001):
        ours = gt.from_numpy(a.copy()).addcmul_(gt.from_numpy(b), gt.from_numpy(c), value=value).numpy()
        theirs = torch.from_numpy(a.copy()).addcmul_(torch.from_numpy(b), torch.from_numpy(c), value=value).numpy()
        np.testing.assert_array_equal(ours, theirs)
