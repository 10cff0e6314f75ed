"""float32 softmax, log_softmax, cross_entropy, sigmoid and binary_cross_entropy_with_logits
against real PyTorch to the bit: values and input gradients over random shapes (sizes 1..200,
class counts that are not multiples of the vector width, every dim).

Their bits come from ATen's own kernels: SLEEF's vectorized expf / logf / log1pf
(gradviz/torch/_sleef.py), glibc's expf on the scalar tails (_libm.expf), the lane order of
vec::reduce_all, the FMAs the compiler made, and the kernels' vector / scalar splits. These
were measured on PyTorch 2.13's AVX-512 build (x86-64); on another CPU capability or
PyTorch build the last bits may differ, so the test skips there.
"""
import warnings

import numpy as np
import pytest

import gradviz.torch as G
from gradviz.torch import _sleef

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() != "AVX512",
                                reason="the kernels' last bits were matched on PyTorch's AVX-512 build")

# Still not bit-exact, and why. Left out of the exact checks below.
INEXACT = {
    "torch.exp / torch.log (float32)": "ATen hands contiguous float32 exp and log to MKL's VML"
                                       " (vmsExp / vmsLn, high accuracy), another approximation; the"
                                       " engine keeps numpy's",
    "softmax dim != -1 with more elements than one thread's share":
        "_vec_softmax splits the flat (outer, inner) range across threads (grain size 0), and each"
        " share's scalar tail uses glibc's expf: the engine assumes PyTorch's thread count is the"
        " CPUs this process may run on",
    "logsigmoid": "F.logsigmoid is not part of the engine yet (its kernel, SLEEF's log1pf of expf,"
                  " is what binary_cross_entropy_with_logits uses here)",
}


def _bits(t):
    return np.asarray(t.detach().numpy()).tobytes()


def _run(L, fn, arrays, seed):
    ts = [L.tensor(a, requires_grad=(i == 0)) for i, a in enumerate(arrays)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(L, *ts)
    if out.dim() == 0:
        (out * 1.7).backward()
    else:
        out.backward(L.tensor(np.random.RandomState(seed).randn(*out.shape).astype(np.float32)))
    return _bits(out), _bits(ts[0].grad)


def _shape(rs):
    kind = rs.randint(5)
    if kind == 0:
        return (int(rs.randint(1, 201)),)
    if kind == 1:
        return (int(rs.randint(1, 30)), int(rs.randint(1, 201)))
    if kind == 2:
        return (int(rs.randint(1, 8)), int(rs.randint(1, 40)), int(rs.randint(1, 20)))
    if kind == 3:
        return (int(rs.randint(1, 20)), int(rs.randint(1, 20)))
    return (int(rs.randint(1, 5)), int(rs.randint(1, 12)), int(rs.randint(1, 6)), int(rs.randint(1, 6)))


def _cases(name, count, seed):
    rs = np.random.RandomState(seed)
    for _ in range(count):
        shape = _shape(rs)
        x = (rs.randn(*shape) * [1, 3, 10][rs.randint(3)]).astype(np.float32)
        if name in ("softmax", "log_softmax"):
            dim = int(rs.randint(-len(shape), len(shape)))
            yield (lambda L, a, d=dim: getattr(L, name)(a, d)), [x]
        elif name == "cross_entropy":
            if x.ndim == 1:
                x = x[None]
            target = rs.randint(0, x.shape[1], size=(x.shape[0],) + x.shape[2:])
            reduction = ["mean", "sum", "none"][rs.randint(3)]
            yield (lambda L, a, t, r=reduction: L.nn.functional.cross_entropy(a, t, reduction=r)), [x, target]
        elif name == "sigmoid":
            yield (lambda L, a: L.sigmoid(a)), [x]
        elif name == "binary_cross_entropy_with_logits":
            target = rs.rand(*shape).astype(np.float32)
            reduction = ["mean", "sum", "none"][rs.randint(3)]
            extra = {}
            if rs.rand() < 0.3:
                extra["pos_weight"] = (rs.rand(shape[-1]) * 2).astype(np.float32)
            if rs.rand() < 0.3:
                extra["weight"] = (rs.rand(shape[-1]) * 2).astype(np.float32)
            keys = list(extra)

            def fn(L, a, t, *w, r=reduction, keys=keys):
                return L.nn.functional.binary_cross_entropy_with_logits(a, t, reduction=r, **dict(zip(keys, w)))
            yield fn, [x, target] + [extra[k] for k in keys]


@pytest.fixture(params=[1, 2], ids=["1 thread", "2 threads"])
def threads(request):
    """The same intra-op thread count on both engines: softmax over a non-last dim rounds
    as ATen splits its work across threads. (Other tests change PyTorch's; it is restored.)"""
    before, before_ours = torch.get_num_threads(), G.get_num_threads()
    torch.set_num_threads(request.param)
    G.set_num_threads(request.param)
    yield request.param
    torch.set_num_threads(before)
    G.set_num_threads(before_ours)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "cross_entropy", "sigmoid",
                                  "binary_cross_entropy_with_logits"])
@pytest.mark.parametrize("seed", [0, 1])
def test_bit_exact_values_and_gradients(name, seed, threads):
    bad = []
    for i, (fn, arrays) in enumerate(_cases(name, 60, seed)):
        got, want = _run(G, fn, arrays, i), _run(torch, fn, arrays, i)
        if got != want:
            bad.append((i, arrays[0].shape, [g == w for g, w in zip(got, want)]))
    assert not bad, f"{name}: {len(bad)}/60 differ (value, grad equal?), e.g. {bad[:3]}"


def test_sleef_expf_is_softmax_exponential():
    """softmax([0, a])[1] = e * (1 / (1 + e)) with e = SLEEF's expf(a), over many a."""
    a = -np.random.RandomState(3).rand(50000).astype(np.float32) * 30
    pairs = np.stack([np.zeros_like(a), a], 1)
    want = torch.softmax(torch.from_numpy(pairs), 1).numpy()[:, 1]
    e = _sleef.expf(a)
    assert np.array_equal(e * (np.float32(1) / (np.float32(1) + e)), want)
    want_log = torch.log_softmax(torch.from_numpy(pairs), 1).numpy()[:, 1]
    assert np.array_equal(a - np.float32(0) - _sleef.logf(np.float32(1) + e), want_log)


def test_sleef_log1pf_is_log_sigmoid():
    z = (np.random.RandomState(4).randn(100000) * 8).astype(np.float32)
    want = torch.nn.functional.logsigmoid(torch.from_numpy(z)).numpy()
    got = np.minimum(z, np.float32(0)) - _sleef.log1pf(_sleef.expf(-np.abs(z)))
    assert got.tobytes() == want.tobytes()
