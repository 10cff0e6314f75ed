"""Adamax, NAdam, RAdam, Adadelta, ASGD, Rprop and Adafactor against PyTorch 2.13's
single-tensor updates, bit for bit over 200 seeded float32 steps (the harness of
test_optim_bitexact_oracle: gradients fed from numpy, MKL's sqrt swapped for the correctly
rounded one on PyTorch's side); LBFGS to rounding (its dot products are BLAS's in PyTorch);
SparseAdam's refusal of dense gradients; and every optimizer's repr, state_dict round trip,
param group defaults and argument errors, word for word."""
import copy
import warnings

import numpy as np
import pytest

import gradviz.torch as gt
from test_optim_bitexact_oracle import _Lib, _rounded_sqrt, _run


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


OPTIMIZERS = {
    "adamax": lambda T, p: T.optim.Adamax(p, lr=0.01),
    "adamax_wd_maximize": lambda T, p: T.optim.Adamax(p, lr=0.02, betas=(0.8, 0.9), eps=1e-4, weight_decay=0.1,
                                                      maximize=True),
    "nadam": lambda T, p: T.optim.NAdam(p, lr=0.01),
    "nadam_wd_momentum_decay": lambda T, p: T.optim.NAdam(p, lr=0.005, weight_decay=0.05, momentum_decay=0.01),
    "nadam_decoupled_maximize": lambda T, p: T.optim.NAdam(p, lr=0.01, weight_decay=0.2,
                                                           decoupled_weight_decay=True, maximize=True),
    "radam": lambda T, p: T.optim.RAdam(p, lr=0.01),
    "radam_wd": lambda T, p: T.optim.RAdam(p, lr=0.01, betas=(0.7, 0.9), weight_decay=0.1),
    "radam_decoupled_maximize": lambda T, p: T.optim.RAdam(p, lr=0.003, weight_decay=0.3,
                                                           decoupled_weight_decay=True, maximize=True),
    "adadelta": lambda T, p: T.optim.Adadelta(p),
    "adadelta_wd_maximize": lambda T, p: T.optim.Adadelta(p, lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1,
                                                          maximize=True),
    "asgd": lambda T, p: T.optim.ASGD(p, lr=0.01),
    "asgd_averaging": lambda T, p: T.optim.ASGD(p, lr=0.02, lambd=1e-3, alpha=0.6, t0=50, weight_decay=0.01,
                                                maximize=True),
    "rprop": lambda T, p: T.optim.Rprop(p, lr=0.01),
    "rprop_bounds_maximize": lambda T, p: T.optim.Rprop(p, lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2),
                                                        maximize=True),
    "adafactor": lambda T, p: T.optim.Adafactor(p),
    "adafactor_wd_maximize": lambda T, p: T.optim.Adafactor(p, lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=2.0,
                                                            weight_decay=0.1, maximize=True),
}


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
