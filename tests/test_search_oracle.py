"""unique / unique_consecutive, searchsorted / bucketize and quantile / nanquantile against
real PyTorch 2.13: values, dtypes, grad_fn names, gradients and errors over several seeds
(the breadth harness), and quantile's whole grad_fn graph, saved names and double backward
(oracle.case_tests)."""
import pytest

import oracle
from oracle import A, Case
from test_torch_breadth_oracle import SEEDS, _same, observe

import gradviz.torch as gtorch

torch = pytest.importorskip("torch")

CALLS = [
    # unique: sorted values, the inverse and the counts, over every dtype, NaNs, dims and empties
    "T.unique(i)", "T.unique(j, return_inverse=True)", "T.unique(i, return_counts=True)",
    "T.unique(j, return_inverse=True, return_counts=True)", "T.unique(x)", "T.unique(x.round())",
    "T.unique(x / (x > 0), return_inverse=True, return_counts=True)", "T.unique(m, return_counts=True)",
    "T.unique(f.round(), sorted=False, return_inverse=True)", "i.unique(return_counts=True)",
    "T.unique(j, dim=0, return_inverse=True, return_counts=True)", "T.unique(j, dim=1, return_counts=True)",
    "T.unique(j.round(), dim=-1)", "T.unique((x > 0).float(), dim=0, return_inverse=True)",
    "T.unique(j[:, :1].expand(3, 4), dim=1, return_counts=True)", "T.unique(T.zeros(0, 3), dim=0)",
    "T.unique(T.zeros(2, 0), dim=1, return_counts=True)", "T.unique(T.zeros(2, 0), dim=0)", "T.unique(j, dim=2)",
    "T.unique(T.tensor(3.0), return_inverse=True)", "T.unique(T.zeros(0), return_inverse=True, return_counts=True)",
    "T.unique(x).sum()", "T.unique(x, dim=0)", "T.unique(x.view(12)[j.flatten()])",
    "T.unique_consecutive(j)", "T.unique_consecutive(j.flatten().sort()[0], return_counts=True)",
    "T.unique_consecutive(j, return_inverse=True, return_counts=True)", "j.unique_consecutive(dim=0)",
    "T.unique_consecutive(j[:, :1].expand(3, 4), dim=1, return_inverse=True, return_counts=True)",
    "T.unique_consecutive(x)", "T.unique_consecutive(x / (x > 0))", "T.unique_consecutive(T.zeros(2, 0), dim=0)",
    # searchsorted / bucketize: left and right, side, sorter, rows, scalars, dtype mixes, NaN
    "T.searchsorted(v.sort()[0], x)", "T.searchsorted(v.sort()[0], x, right=True)",
    "T.searchsorted(x.sort()[0], y)", "T.searchsorted(x.sort()[0], y, side='right')",
    "T.searchsorted(j.sort()[0], i, out_int32=True)", "T.searchsorted(j[0].sort()[0], 2)",
    "T.searchsorted(j[0].sort()[0], 2.5)", "T.searchsorted(v.sort()[0], f)", "T.searchsorted(j.sort()[0], x)",
    "T.searchsorted(v, x, sorter=v.argsort())", "T.searchsorted(x, y, sorter=x.argsort(), right=True)",
    "T.searchsorted(v.sort()[0], x / (x > 0))", "T.searchsorted(T.tensor([1.0, float('nan')]), v)",
    "T.searchsorted(v.sort()[0], T.zeros(0))", "T.searchsorted(T.zeros(0), v)",
    "T.bucketize(x, v.sort()[0])", "T.bucketize(x, v.sort()[0], right=True)", "T.bucketize(i, j[0].sort()[0])",
    "T.bucketize(3, j[0].sort()[0])", "T.bucketize(f, v.sort()[0], out_int32=True)",
    "T.bucketize(x, x)", "T.searchsorted(v, x, side='lft')", "T.searchsorted(v, x, side='left', right=True)",
    "T.searchsorted(x, v)", "T.searchsorted(x, T.tensor(1.0))", "T.searchsorted(v, x, sorter=v.argsort()[:2])",
    "T.searchsorted(v, x, sorter=v.argsort().int())", "T.searchsorted(v[0], x)",
    # quantile / nanquantile: every interpolation, dims, keepdim, q tensors, NaN rows, errors
    "T.quantile(x, 0.3)", "T.quantile(x, 0.0)", "T.quantile(x, 1.0)", "T.quantile(x, 0.5, dim=0)",
    "T.quantile(x, 0.7, dim=1, keepdim=True)", "T.quantile(x, 0.25, keepdim=True)",
    "T.quantile(x, T.tensor([0.1, 0.5, 0.9], dtype=T.float64), dim=-1)",
    "T.quantile(x, T.tensor([0.2, 0.8], dtype=T.float64), dim=0, keepdim=True)",
    "T.quantile(f, 0.35)", "T.quantile(f, T.tensor([0.33, 0.66]), dim=1)", "x.quantile(0.6, 1)",
    "T.quantile(v, 0.5)", "T.quantile(x[0, 0], 0.5)", "T.quantile(x[0, 0], 0.5, dim=0, keepdim=True)",
    "T.quantile(x / (x > 0), 0.5, dim=1)", "T.nanquantile(x / (x > 0), 0.5, dim=1)",
    "T.nanquantile(x / (x > 0), T.tensor([0.0, 0.4, 1.0], dtype=T.float64))", "T.nanquantile(x / 0 * 0, 0.5, dim=0)",
    "x.nanquantile(0.3, dim=0, keepdim=True)",
    "T.quantile(x, 0.3, dim=1, interpolation='lower')", "T.quantile(x, 0.3, dim=1, interpolation='higher')",
    "T.quantile(x, 0.3, dim=1, interpolation='nearest')", "T.quantile(x, 0.5, dim=0, interpolation='nearest')",
    "T.quantile(x, 0.3, dim=1, interpolation='midpoint')", "T.quantile(f, 0.45, interpolation='midpoint')",
    "T.nanquantile(x / (x > 0), 0.3, dim=1, interpolation='lower')",
    "T.nanquantile(f / (f > 0), 0.6, interpolation='midpoint')",
    "T.quantile(x, 1.3)", "T.quantile(x, T.tensor([1.3], dtype=T.float64))", "T.quantile(x, 0.3, interpolation='foo')",
    "T.quantile(x, T.tensor(0.3))", "T.quantile(i, 0.3)", "T.quantile(x[:0], 0.3)",
    "T.quantile(x, T.ones(2, 2, dtype=T.float64) / 2)", "T.quantile(x, 0.5, dim=3)",
]


@pytest.mark.parametrize("expression", CALLS)
def test_call_matches_pytorch(expression):
    for seed in SEEDS:
        _same(observe(gtorch, expression, seed), observe(torch, expression, seed), f"seed {seed}")


def _q(*values):
    return lambda T, x: T.quantile(x, T.tensor(values, dtype=x.dtype), dim=-1)


QUANTILE_CASES = [
    Case("quantile_all", lambda T, x: T.quantile(x, 0.3), A(3, 4)),
    Case("quantile_dim0", lambda T, x: T.quantile(x, 0.6, dim=0), A(3, 4)),
    Case("quantile_last_keepdim", lambda T, x: T.quantile(x, 0.45, dim=1, keepdim=True), A(3, 5)),
    Case("quantile_q_tensor", _q(0.1, 0.5, 0.95), A(2, 3, 5)),
    Case("quantile_midpoint", lambda T, x: T.quantile(x, 0.5, dim=1, interpolation="midpoint"), A(3, 4)),
    Case("quantile_lower", lambda T, x: T.quantile(x, 0.5, dim=0, interpolation="lower"), A(4, 3)),
    Case("quantile_nearest_q", lambda T, x: T.quantile(x, T.tensor([0.3, 0.7], dtype=x.dtype), dim=0,
                                                       interpolation="nearest"), A(5, 2)),
    Case("nanquantile_dim", lambda T, x: T.nanquantile(x, 0.4, dim=1), A(3, 6)),
    Case("quantile_float32", lambda T, x: T.quantile(x, 0.35, dim=1), A(3, 7, dtype="float32")),
]
globals().update(oracle.case_tests(QUANTILE_CASES))
