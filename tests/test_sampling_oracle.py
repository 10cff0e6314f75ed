"""F.unfold / F.fold (nn.Unfold / nn.Fold), F.affine_grid and F.grid_sample against real PyTorch
2.13: values, whole grad_fn graphs, saved names, gradients (oracle.case_tests), values and
gradients bit for bit over many seeds, and errors and warnings in PyTorch's words."""
import warnings

import numpy as np
import pytest

import gradviz.torch as gt
import oracle
from oracle import A, Case

torch = pytest.importorskip("torch")


def _unfold(**kw):
    return lambda T, x: T.nn.functional.unfold(x, **kw)


def _fold(output_size, **kw):
    return lambda T, x: T.nn.functional.fold(x, output_size, **kw)


def _sample(**kw):
    return lambda T, x, grid: T.nn.functional.grid_sample(x, grid, **kw)


GRID = A(2, 4, 5, 2, kind="u")
CASES = [
    Case("unfold_2x2", _unfold(kernel_size=2), A(2, 3, 4, 5)),
    Case("unfold_strided_padded", _unfold(kernel_size=(2, 3), padding=1, stride=(2, 1)), A(1, 2, 5, 6)),
    Case("unfold_dilated", _unfold(kernel_size=2, dilation=2), A(2, 2, 5, 5)),
    Case("unfold_unbatched", _unfold(kernel_size=3, padding=1), A(2, 4, 4)),
    Case("fold_2x2", _fold((4, 5), kernel_size=2), A(2, 12, 12)),
    Case("fold_overlapping", _fold((5, 6), kernel_size=(2, 3), padding=1, stride=(2, 1)), A(1, 12, 18)),
    Case("fold_unbatched", _fold((3, 3), kernel_size=2), A(8, 4)),
    Case("affine_grid", lambda T, th: T.nn.functional.affine_grid(th, (2, 3, 4, 5), align_corners=False), A(2, 2, 3)),
    Case("affine_grid_align", lambda T, th: T.nn.functional.affine_grid(th, (1, 1, 3, 6), align_corners=True),
         A(1, 2, 3)),
]
SAMPLE_CASES = []
for padding_mode in ("zeros", "border", "reflection"):
    for align_corners in (False, True):
        name = f"{padding_mode}_{'align' if align_corners else 'noalign'}"
        SAMPLE_CASES.append(Case(f"grid_sample_bilinear_{name}", _sample(padding_mode=padding_mode, align_corners=align_corners),
                          A(2, 3, 5, 6), GRID, double=False))
        SAMPLE_CASES.append(Case(f"grid_sample_nearest_{name}", _sample(mode="nearest", padding_mode=padding_mode,
                                                                  align_corners=align_corners),
                          A(2, 3, 5, 6), GRID, double=False, fd=False))
globals().update(oracle.case_tests(CASES + SAMPLE_CASES))
# The engine does not differentiate grid_sampler_2d's backward (PyTorch does: docs/limits.md);
# its double backward is checked on the other cases only, and the refusal below
del test_double_backward


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_double_backward(case):
    oracle.check_double_backward(case)


def test_grid_sample_double_backward_is_refused_in_atens_words():
    x = gt.ones(1, 1, 3, 3, requires_grad=True)
    grid = gt.zeros(1, 2, 2, 2, requires_grad=True)
    out = gt.nn.functional.grid_sample(x, grid, align_corners=False)
    grad_x, = gt.autograd.grad(out.sum(), x, create_graph=True)
    assert type(grad_x.grad_fn).__name__ == "GridSampler2DBackwardBackward0"
    with pytest.raises(RuntimeError, match="derivative for aten::grid_sampler_2d_backward is not implemented"):
        grad_x.sum().backward()


def _run(T, seed, dtype, mode, padding_mode, align_corners):
    """A spatial transformer's step: grid from theta, sample, weighted sum, gradients."""
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(2, 7)), int(rng.integers(2, 7)))
    x = T.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)
    theta = T.tensor(rng.standard_normal((shape[0], 2, 3)) * 0.8, dtype=dtype, requires_grad=True)
    size = (shape[0], shape[1], int(rng.integers(2, 9)), int(rng.integers(2, 9)))
    grid = T.nn.functional.affine_grid(theta, size, align_corners=align_corners)
    out = T.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    weights = T.tensor(rng.standard_normal(tuple(out.shape)), dtype=dtype)
    grad_x, grad_theta = T.autograd.grad((out * weights).sum(), (x, theta))
    return [t.detach().numpy().copy() for t in (grid, out, grad_x, grad_theta)]


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_spatial_transformer_is_bit_exact_in_float32(mode, padding_mode, align_corners):
    for seed in range(12):
        ours = _run(gt, seed, gt.float32, mode, padding_mode, align_corners)
        theirs = _run(torch, seed, torch.float32, mode, padding_mode, align_corners)
        for name, a, b in zip(("grid", "out", "grad_x", "grad_theta"), ours, theirs):
            if name == "grad_theta":  # the bmm of theta's gradient sums H*W products: BLAS's order
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=f"seed {seed} {name}")
            else:
                np.testing.assert_array_equal(a, b, err_msg=f"seed {seed} {name}")


def test_float64_matches_pytorch():
    for seed in range(6):
        for a, b in zip(_run(gt, seed, gt.float64, "bilinear", "reflection", False),
                        _run(torch, seed, torch.float64, "bilinear", "reflection", False)):
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-14)


def _observe(T, call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call(T)
            outcome = ("ok", tuple(result.shape))
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            outcome = (type(exc).__name__, str(exc))
    return outcome, [str(w.message) for w in caught]


X = (2, 3, 5, 6)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.unfold(T.zeros(X), 7),
    lambda T: T.nn.functional.fold(T.zeros(1, 12, 20), (5, 6), (2, 3)),
    lambda T: T.nn.functional.fold(T.zeros(1, 7, 20), (5, 6), (2, 3)),
    lambda T: T.nn.functional.affine_grid(T.zeros(2, 2, 3), (2, 3, 4, 5)),
    lambda T: T.nn.functional.affine_grid(T.zeros(2, 2, 3), (2, 3, 4)),
    lambda T: T.nn.functional.affine_grid(T.zeros(2, 3, 3), (2, 3, 4, 5), align_corners=False),
    lambda T: T.nn.functional.affine_grid(T.zeros(2, 2, 3, dtype=T.int64), (2, 3, 4, 5), align_corners=False),
    lambda T: T.nn.functional.affine_grid(T.zeros(1, 2, 3), (1, 3, 1, 5), align_corners=True),
    lambda T: T.nn.functional.affine_grid(T.zeros(1, 2, 3), (1, 3, 0, 5), align_corners=False),
    lambda T: T.nn.functional.grid_sample(T.zeros(X), T.zeros(2, 4, 5, 2)),
    lambda T: T.nn.functional.grid_sample(T.zeros(X), T.zeros(2, 4, 5, 2), mode="foo"),
    lambda T: T.nn.functional.grid_sample(T.zeros(X), T.zeros(2, 4, 5, 2), padding_mode="foo"),
    lambda T: T.nn.functional.grid_sample(T.zeros(X), T.zeros(2, 4, 5, 1), align_corners=False),
    lambda T: T.nn.Unfold((2, 3), stride=2)(T.zeros(X)),
    lambda T: T.nn.Fold((5, 6), 2)(T.zeros(2, 12, 20)),
])
def test_errors_and_warnings_match_pytorch(call):
    assert _observe(gt, call) == _observe(torch, call)


def test_module_reprs_match_pytorch():
    for make in (lambda T: T.nn.Unfold(2), lambda T: T.nn.Unfold((2, 3), dilation=2, padding=1, stride=(1, 2)),
                 lambda T: T.nn.Fold((4, 4), 2), lambda T: T.nn.Fold(output_size=(5, 6), kernel_size=3, stride=2)):
        assert repr(make(gt)) == repr(make(torch))
        assert str(type(make(gt))) == str(type(make(torch)))
