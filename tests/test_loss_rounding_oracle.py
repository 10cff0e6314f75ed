"""Loss functions against real PyTorch to the bit: the loss value and the input's gradient
(and the target's where it has one), over many random sizes, reductions and options.

Exact: mse_loss, l1_loss, smooth_l1_loss, huber_loss, nll_loss, binary_cross_entropy
(float32), kl_div (float32, log_target=False). Their values come from ATen's own order of
operations: the vectorized / scalar split of cpu_kernel_vec (smooth L1 and Huber backward),
nll_loss's cascade of eight partial sums, glibc's logf / log1pf (BCE, xlogy), and the
loss reductions summed as ATen's CPU sum.
"""
import warnings

import numpy as np
import pytest

import gradviz.torch as G

torch = pytest.importorskip("torch")

# Losses (or options) still not bit-exact, and why. Each is left out of the exact checks.
INEXACT = {
    "cross_entropy float64": "float32 is exact (tests/test_softmax_rounding_oracle.py); float64's"
                             " log_softmax calls SLEEF's double exp / log, the engine numpy's",
    "binary_cross_entropy_with_logits float64": "float32 is exact (tests/test_softmax_rounding_oracle.py);"
                                                " float64's log_sigmoid runs SLEEF's double exp / log1p",
    "binary_cross_entropy float64": "std::log / std::log1p on double are glibc's log / log1p; numpy's"
                                    " float64 log differs in the last bit in rare cases",
    "kl_div float64": "xlogy's std::log on double is glibc's log (see binary_cross_entropy float64)",
    "kl_div log_target=True": "exp(target) is ATen's vectorized SLEEF expf",
    "kl_div with a target that requires grad": "the composite goes through the engine's log",
}


def _bits(t):
    return np.asarray(t.detach().numpy()).tobytes()


def _run(L, name, arrays, kwargs, grad_seed, target_grad=False):
    x = L.tensor(arrays["input"], requires_grad=True)
    target = L.tensor(arrays["target"], requires_grad=target_grad)
    extra = {k: L.tensor(v) for k, v in arrays.items() if k not in ("input", "target")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = getattr(L.nn.functional, name)(x, target, **kwargs, **extra)
    if loss.dim() == 0:
        (loss * 1.7).backward()
    else:
        g = np.random.RandomState(grad_seed).randn(*loss.shape).astype(arrays["input"].dtype)
        loss.backward(L.tensor(g))
    out = [_bits(loss), _bits(x.grad)]
    if target_grad:
        out.append(_bits(target.grad))
    return out


def _sigmoid(a):
    return (1 / (1 + np.exp(-a.astype(np.float64)))).astype(a.dtype)


def _arrays(name, rs, dtype, shape, n_classes=3):
    a = rs.randn(*shape).astype(dtype)
    b = rs.randn(*shape).astype(dtype)
    if name == "binary_cross_entropy":
        a, b = _sigmoid(a), (b > 0).astype(dtype)
    elif name == "kl_div":
        a, b = np.log(_sigmoid(a)).astype(dtype), _sigmoid(b)
        b[rs.rand(*shape) < 0.1] = 0  # xlogy's 0 * log(0) = 0
    elif name == "nll_loss":
        target_shape = shape[:1] + shape[2:] if len(shape) > 1 else ()
        b = np.asarray(rs.randint(0, n_classes, target_shape))
    return {"input": a, "target": b}


def _shape(rs, name, layout):
    n = int(rs.randint(1, 60))
    if layout == "1d":
        return (int(rs.randint(1, 40)),) if name != "nll_loss" else (3,)
    if layout == "3d":
        return (n, 3, int(rs.randint(1, 6)))
    if layout == "4d":
        return (int(rs.randint(1, 5)), 3, int(rs.randint(1, 6)), int(rs.randint(1, 6)))
    return (n, 3)


def _check(name, kwargs=None, dtype=np.float32, layout="2d", cases=40, seed=0, extra=None, target_grad=False):
    rs = np.random.RandomState(seed)
    bad = []
    for i in range(cases):
        arrays = _arrays(name, rs, dtype, _shape(rs, name, layout))
        if extra:
            arrays.update(extra(rs, arrays["input"]))
        got = _run(G, name, arrays, kwargs or {}, i, target_grad)
        want = _run(torch, name, arrays, kwargs or {}, i, target_grad)
        if got != want:
            bad.append((i, arrays["input"].shape, [g == w for g, w in zip(got, want)]))
    assert not bad, f"{name} {kwargs} {dtype.__name__} {layout}: {len(bad)}/{cases} differ, e.g. {bad[:3]}"


REDUCTIONS = ["mean", "sum", "none"]
DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name, options", [
    ("mse_loss", {}), ("l1_loss", {}),
    ("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}), ("smooth_l1_loss", {"beta": 0.3}),
    ("huber_loss", {}), ("huber_loss", {"delta": 0.5}), ("huber_loss", {"delta": 0.3}),
], ids=lambda v: str(v))
def test_pointwise_losses_bit_exact(name, options, reduction, dtype):
    _check(name, dict(options, reduction=reduction), dtype)
    _check(name, dict(options, reduction=reduction), dtype, layout="1d", cases=15, seed=1)


@pytest.mark.parametrize("name, options", [
    ("smooth_l1_loss", {"beta": 0.3}), ("huber_loss", {"delta": 0.7}), ("mse_loss", {})])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_pointwise_losses_target_gradient_bit_exact(name, options, reduction):
    _check(name, dict(options, reduction=reduction), cases=20, seed=2, target_grad=True)


def _class_weight(rs, x):
    return {"weight": rs.rand(3).astype(x.dtype)}


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("layout", ["2d", "1d", "3d", "4d"])
@pytest.mark.parametrize("options, weighted", [({}, False), ({}, True), ({"ignore_index": 1}, False),
                                               ({"ignore_index": 1}, True)],
                         ids=["plain", "weight", "ignore", "weight_ignore"])
def test_nll_loss_bit_exact(options, weighted, layout, reduction, dtype):
    _check("nll_loss", dict(options, reduction=reduction), dtype, layout, cases=25,
           extra=_class_weight if weighted else None)


def test_nll_loss_long_batches_bit_exact():
    """Batches past one level of the cascade (16 ** 2 samples) and with ignored flush points."""
    rs = np.random.RandomState(3)
    for n in (255, 256, 257, 300, 4097):
        x = rs.randn(n, 4).astype(np.float32)
        t = rs.randint(0, 4, n)
        t[::16] = 2  # every level-0 flush point is ignored when ignore_index=2
        w = rs.rand(4).astype(np.float32)
        for weighted in (False, True):
            for reduction in REDUCTIONS:
                arrays = {"input": x, "target": t, **({"weight": w} if weighted else {})}
                kwargs = {"ignore_index": 2, "reduction": reduction}
                assert _run(G, "nll_loss", arrays, kwargs, 0) == _run(torch, "nll_loss", arrays, kwargs, 0), \
                    (n, weighted, reduction)
                kwargs = {"reduction": reduction}
                assert _run(G, "nll_loss", arrays, kwargs, 0) == _run(torch, "nll_loss", arrays, kwargs, 0), \
                    (n, weighted, reduction)


def _element_weight(rs, x):
    return {"weight": rs.rand(*x.shape).astype(x.dtype)}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True], ids=["plain", "weight"])
def test_binary_cross_entropy_float32_bit_exact(weighted, reduction):
    _check("binary_cross_entropy", {"reduction": reduction}, extra=_element_weight if weighted else None)
    _check("binary_cross_entropy", {"reduction": reduction}, layout="1d", cases=15, seed=1)


@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
def test_kl_div_float32_bit_exact(reduction):
    _check("kl_div", {"reduction": reduction})


def test_kl_div_negative_and_nan_targets_give_torch_nans():
    """glibc's logf of a negative number is the x86 default NaN (sign bit set); xlogy of a NaN is NaN."""
    x = np.random.RandomState(4).randn(5, 3).astype(np.float32)
    t = np.random.RandomState(5).randn(5, 3).astype(np.float32)
    t[0, 0] = np.nan
    for reduction in REDUCTIONS:
        got, want = (_run(L, "kl_div", {"input": x, "target": t}, {"reduction": reduction}, 0) for L in (G, torch))
        assert got == want


@pytest.mark.parametrize("name, kwargs", [("smooth_l1_loss", {"beta": 0.5}), ("huber_loss", {"delta": 0.7})])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_smooth_l1_and_huber_double_backward(name, kwargs, reduction):
    """The gradient's grad_fn is PyTorch's *BackwardBackward0, and second derivatives agree."""
    rs = np.random.RandomState(6)
    a, b = rs.randn(7, 3).astype(np.float64), rs.randn(7, 3).astype(np.float64)
    results = []
    for L in (G, torch):
        x, t = L.tensor(a, requires_grad=True), L.tensor(b, requires_grad=True)
        loss = getattr(L.nn.functional, name)(x * x, t, reduction=reduction, **kwargs)
        g, = L.autograd.grad(loss.sum() if loss.dim() else loss, x, create_graph=True)
        second = L.autograd.grad((g * g).sum(), (x, t))
        results.append((g.grad_fn.name(), [s.numpy() for s in second]))
    assert results[0][0] == results[1][0]
    for mine, theirs in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-12)


def test_inexact_list_names_real_losses():
    for key in INEXACT:
        assert hasattr(G.nn.functional, key.split()[0])


def _bce_outcome(module, input, target):
    try:
        module.nn.functional.binary_cross_entropy(module.tensor(input), module.tensor(target))
    except RuntimeError as error:
        return str(error)
    return None


@pytest.mark.parametrize("seed", range(8))
def test_binary_cross_entropy_names_the_first_element_out_of_range_as_pytorch_does(seed):
    # the VAE tutorial's loss on data outside [0, 1]: PyTorch checks input then target, per element
    rng = np.random.default_rng(seed)
    for shape in [(1,), (5,), (3, 4)]:
        input = rng.uniform(-0.3, 1.3, shape).astype(np.float32)
        target = rng.uniform(-0.3, 1.3, shape).astype(np.float32)
        if seed % 2:
            target.flat[rng.integers(target.size)] = np.nan
        theirs = _bce_outcome(torch, input, target)
        assert _bce_outcome(G, input, target) == theirs
        clipped = np.clip(input, 0, 1)
        assert _bce_outcome(G, clipped, target) == _bce_outcome(torch, clipped, target)
