"""The nn layers and functions added for API breadth (losses, norms, transposed and 3-D
convolutions, lazy modules, bilinear, embedding bags, the transformer decoder) against
real PyTorch 2.13: values, grad_fn graphs node by node, input gradients, saved values,
module reprs and error texts, over several seeds and shapes."""
import warnings

import numpy as np
import pytest

import gradviz.torch as gt
from _nn_oracle import G, chain, fd_check, lib, run_both

SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _rng(seed):
    return np.random.default_rng(1000 + seed)


def _n(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _u(rng, lo, hi, *shape):
    return rng.uniform(lo, hi, shape).astype(np.float32)


def _signs(rng, *shape):
    return rng.choice(np.array([-1.0, 1.0], dtype=np.float32), shape)


def _labels(rng, high, *shape):
    return rng.integers(0, high, shape).astype(np.int64)


def _multilabel(rng, n, c):
    """Rows of class lists ended by -1 (or full), as multilabel_margin_loss reads them."""
    out = np.full((n, c), -1, dtype=np.int64)
    for i in range(n):
        k = rng.integers(0, c + 1)
        out[i, :k] = rng.permutation(c)[:k]
        out[i, k:] = rng.integers(-1, c, c - k) if k < c - 1 and rng.random() < 0.3 else -1
        if k < c:
            out[i, k] = -1
    return out


# ---------------------------------------------------------------------------------------
# losses: (name, fn(L, *inputs), make(rng) -> arrays, grad mask or None)
def _loss_cases():
    cases = []

    def C(name, fn, make, mask=None):
        cases.append((name, fn, make, mask))

    for red in ("mean", "sum", "none"):
        C(f"cosine_embedding_{red}", lambda L, a, b, y, red=red: L.F.cosine_embedding_loss(a, b, y, margin=0.2,
                                                                                           reduction=red),
          lambda r: [_n(r, 5, 4), _n(r, 5, 4), _signs(r, 5)], [True, True, False])
        C(f"hinge_embedding_{red}", lambda L, x, y, red=red: L.F.hinge_embedding_loss(x, y, margin=0.7, reduction=red),
          lambda r: [_n(r, 4, 3), _signs(r, 4, 3)], [True, False])
        C(f"margin_ranking_{red}", lambda L, a, b, y, red=red: L.F.margin_ranking_loss(a, b, y, 0.3, reduction=red),
          lambda r: [_n(r, 6), _n(r, 6), _signs(r, 6)], [True, True, False])
        C(f"soft_margin_{red}", lambda L, x, y, red=red: L.F.soft_margin_loss(x, y, reduction=red),
          lambda r: [_n(r, 3, 5) * 3, _signs(r, 3, 5)], [True, False])
        C(f"multi_margin_{red}", lambda L, x, t, red=red: L.F.multi_margin_loss(x, t, reduction=red),
          lambda r: [_n(r, 5, 4), _labels(r, 4, 5)], [True, False])
        C(f"multilabel_margin_{red}", lambda L, x, t, red=red: L.F.multilabel_margin_loss(x, t, reduction=red),
          lambda r: [_n(r, 4, 5), _multilabel(r, 4, 5)], [True, False])
        C(f"poisson_{red}", lambda L, x, t, red=red: L.F.poisson_nll_loss(x, t, reduction=red),
          lambda r: [_n(r, 3, 4), _u(r, 0, 4, 3, 4)], [True, False])
        C(f"gaussian_{red}", lambda L, x, t, v, red=red: L.F.gaussian_nll_loss(x, t, v, reduction=red),
          lambda r: [_n(r, 4, 3), _n(r, 4, 3), _u(r, 0.1, 2, 4, 3)], [True, True, True])
        C(f"triplet_{red}", lambda L, a, p, n, red=red: L.F.triplet_margin_loss(a, p, n, reduction=red),
          lambda r: [_n(r, 5, 3), _n(r, 5, 3), _n(r, 5, 3)])
        C(f"triplet_distance_{red}", lambda L, a, p, n, red=red: L.F.triplet_margin_with_distance_loss(
            a, p, n, reduction=red), lambda r: [_n(r, 5, 3), _n(r, 5, 3), _n(r, 5, 3)])
    C("cosine_embedding_0d_target", lambda L, a, b, y: L.F.cosine_embedding_loss(a, b, y),
      lambda r: [_n(r, 4), _n(r, 4), np.array(-1.0, dtype=np.float32)], [True, True, False])
    C("multi_margin_p2_weight", lambda L, x, t, w: L.F.multi_margin_loss(x, t, p=2, margin=0.5, weight=w),
      lambda r: [_n(r, 6, 3), _labels(r, 3, 6), _u(r, 0.5, 2, 3)], [True, False, False])
    C("multi_margin_1d", lambda L, x, t: L.F.multi_margin_loss(x, t), lambda r: [_n(r, 5), np.array([2])],
      [True, False])
    C("multilabel_margin_1d", lambda L, x, t: L.F.multilabel_margin_loss(x, t),
      lambda r: [_n(r, 4), np.array([3, 0, -1, 1])], [True, False])
    C("poisson_full_no_log", lambda L, x, t: L.F.poisson_nll_loss(x.abs(), t, log_input=False, full=True),
      lambda r: [_n(r, 3, 4), _u(r, 0, 4, 3, 4)], [True, False])
    C("gaussian_homoscedastic_full", lambda L, x, t, v: L.F.gaussian_nll_loss(x, t, v, full=True),
      lambda r: [_n(r, 4, 3), _n(r, 4, 3), _u(r, 0.1, 2, 4)], [True, False, True])
    C("gaussian_float_var", lambda L, x, t: L.F.gaussian_nll_loss(x, t, 0.5), lambda r: [_n(r, 4, 3), _n(r, 4, 3)])
    C("triplet_swap_p1", lambda L, a, p, n: L.F.triplet_margin_loss(a, p, n, margin=0.5, p=1, swap=True),
      lambda r: [_n(r, 5, 3), _n(r, 5, 3), _n(r, 5, 3)])
    C("triplet_distance_custom_swap", lambda L, a, p, n: L.F.triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda x, y: (x - y).abs().sum(-1), swap=True, margin=2.0),
      lambda r: [_n(r, 5, 3), _n(r, 5, 3), _n(r, 5, 3)])
    return cases


LOSS_CASES = _loss_cases()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name, fn, make, mask", LOSS_CASES, ids=[c[0] for c in LOSS_CASES])
def test_losses_match_torch(torch, name, fn, make, mask, seed):
    run_both(torch, fn, make(_rng(seed)), mask, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name, fn, make, mask", [c for c in LOSS_CASES if "margin_" not in c[0] or "soft" in c[0]],
                         ids=[c[0] for c in LOSS_CASES if "margin_" not in c[0] or "soft" in c[0]])
def test_losses_finite_differences(name, fn, make, mask):
    fd_check(fn, make(_rng(7)), mask, double=name.startswith(("soft", "poisson", "gaussian", "cosine")))


def test_loss_saved_values_and_double_backward_nodes(torch):
    T = lib(torch)
    for L in (G, T):
        x = L.torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3]], requires_grad=True)
        y = L.torch.tensor([[1.0, -1.0, 1.0], [-1.0, 1.0, 1.0]])
        loss = L.F.soft_margin_loss(x, y)
        assert loss.grad_fn._saved_reduction == 1
        (g,) = L.torch.autograd.grad(loss, x, create_graph=True)
        assert chain(g) == "SoftMarginLossBackwardBackward0(None, torch::autograd::AccumulateGrad())"
        g.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), _second_soft_margin(x.detach().numpy(), y.numpy()), rtol=1e-5)
        loss = L.F.multilabel_margin_loss(x, L.torch.tensor([[2, 0, -1], [1, -1, 0]]))
        np.testing.assert_array_equal(loss.grad_fn._saved_is_target.detach().numpy(), [[1, 0, 1], [0, 1, 0]])
        for loss in (loss, L.F.multi_margin_loss(x, L.torch.tensor([0, 2]))):
            (g,) = L.torch.autograd.grad(loss, x, create_graph=True)
            assert type(g.grad_fn).__name__ == "NotImplemented"
            op = "multilabel_margin" if "Multilabel" in type(loss.grad_fn).__name__ else "multi_margin"
            with pytest.raises(RuntimeError, match=f"derivative for aten::{op}_loss_backward is not implemented"):
                g.sum().backward()


def _second_soft_margin(x, y):
    s = 1 / (1 + np.exp(y * x))
    return (y * y * s * (1 - s)) / x.size


def _raised(L, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(L)
        except Exception as exc:  # noqa: BLE001 - the type and text are what is compared
            return type(exc).__name__, str(exc), [str(w.message) for w in caught]
    return None, None, [str(w.message) for w in caught]


_X = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
LOSS_ERRORS = [
    lambda L: L.F.cosine_embedding_loss(L.torch.tensor(_X), L.torch.tensor(_X), L.torch.ones(3, 1)),
    lambda L: L.F.cosine_embedding_loss(L.torch.tensor(_X[0]), L.torch.tensor(_X), L.torch.ones(3)),
    lambda L: L.F.cosine_embedding_loss(L.torch.tensor(_X), L.torch.tensor(_X[0]), L.torch.tensor(1.0)),
    lambda L: L.F.margin_ranking_loss(L.torch.tensor(_X), L.torch.tensor(_X), L.torch.ones(3)),
    lambda L: L.F.margin_ranking_loss(L.torch.tensor(_X), L.torch.tensor(_X), L.torch.tensor(_X), size_average=False),
    lambda L: L.F.multi_margin_loss(L.torch.zeros(2, 3, 4), L.torch.tensor([0, 1])),
    lambda L: L.F.multi_margin_loss(L.torch.zeros(3, 0), L.torch.tensor([0, 1, 1])),
    lambda L: L.F.multi_margin_loss(L.torch.tensor(_X), L.torch.tensor([0, 1])),
    lambda L: L.F.multi_margin_loss(L.torch.tensor(_X), L.torch.tensor([0, 1, 4])),
    lambda L: L.F.multi_margin_loss(L.torch.tensor(_X), L.torch.tensor([0, 1, 1]), weight=L.torch.ones(3)),
    lambda L: L.F.multi_margin_loss(L.torch.tensor(_X), L.torch.tensor([0, 1, 1]), p=3),
    lambda L: L.F.multilabel_margin_loss(L.torch.tensor(_X), L.torch.tensor([[0, 1, 5, -1]] * 3)),
    lambda L: L.F.multilabel_margin_loss(L.torch.tensor(_X), L.torch.tensor([0, 1])),
    lambda L: L.F.triplet_margin_loss(L.torch.tensor(_X), L.torch.tensor(_X), L.torch.tensor(_X[0])),
    lambda L: L.F.triplet_margin_loss(L.torch.tensor(_X), L.torch.tensor(_X), L.torch.tensor(_X), margin=0),
    lambda L: L.F.soft_margin_loss(L.torch.tensor(_X), L.torch.tensor(_X, requires_grad=True)),
    lambda L: L.F.poisson_nll_loss(L.torch.tensor(_X), L.torch.tensor(_X), reduction="foo"),
    lambda L: L.F.gaussian_nll_loss(L.torch.tensor(_X), L.torch.tensor(_X), L.torch.ones(2)),
    lambda L: L.F.gaussian_nll_loss(L.torch.tensor(_X), L.torch.tensor(_X), -L.torch.ones(3, 4)),
    lambda L: L.F.gaussian_nll_loss(L.torch.tensor(_X), L.torch.tensor(_X), 1.0, reduction="avg"),
    lambda L: L.F.triplet_margin_with_distance_loss(L.torch.tensor(_X), L.torch.tensor(_X), L.torch.tensor(_X),
                                                    reduction="avg"),
]


@pytest.mark.parametrize("index", range(len(LOSS_ERRORS)))
def test_loss_errors_and_warnings_match_torch(torch, index):
    assert _raised(G, LOSS_ERRORS[index]) == _raised(lib(torch), LOSS_ERRORS[index])


# ---------------------------------------------------------------------------------------
# modules: (name, make(L) -> module, make inputs(rng) -> arrays)
def _module_cases():
    cases = []

    def C(name, build, make, mask=None):
        cases.append((name, build, make, mask))

    C("CosineEmbeddingLoss", lambda L: L.nn.CosineEmbeddingLoss(margin=0.1),
      lambda r: [_n(r, 4, 3), _n(r, 4, 3), _signs(r, 4)])
    C("HingeEmbeddingLoss", lambda L: L.nn.HingeEmbeddingLoss(2.0, reduction="sum"),
      lambda r: [_n(r, 4, 3), _signs(r, 4, 3)])
    C("MarginRankingLoss", lambda L: L.nn.MarginRankingLoss(0.5), lambda r: [_n(r, 5), _n(r, 5), _signs(r, 5)])
    C("SoftMarginLoss", lambda L: L.nn.SoftMarginLoss(), lambda r: [_n(r, 4, 3), _signs(r, 4, 3)], [True, False])
    C("MultiMarginLoss", lambda L: L.nn.MultiMarginLoss(p=2, margin=0.7), lambda r: [_n(r, 5, 4), _labels(r, 4, 5)])
    C("MultiLabelMarginLoss", lambda L: L.nn.MultiLabelMarginLoss(), lambda r: [_n(r, 3, 4), _multilabel(r, 3, 4)])
    C("PoissonNLLLoss", lambda L: L.nn.PoissonNLLLoss(full=True), lambda r: [_n(r, 4, 3), _u(r, 0, 5, 4, 3)])
    C("GaussianNLLLoss", lambda L: L.nn.GaussianNLLLoss(eps=1e-3),
      lambda r: [_n(r, 4, 3), _n(r, 4, 3), _u(r, 0, 2, 4, 3)])
    C("TripletMarginLoss", lambda L: L.nn.TripletMarginLoss(p=1.5, swap=True),
      lambda r: [_n(r, 4, 3), _n(r, 4, 3), _n(r, 4, 3)])
    C("TripletMarginWithDistanceLoss", lambda L: L.nn.TripletMarginWithDistanceLoss(
        distance_function=L.torch.cdist, margin=0.5),
      lambda r: [_n(r, 4, 3), _n(r, 4, 3), _n(r, 4, 3)])
    C("NLLLoss2d", lambda L: L.nn.NLLLoss2d(), lambda r: [_n(r, 2, 3, 4, 4), _labels(r, 3, 2, 4, 4)])
    return cases


MODULE_CASES = _module_cases()


def _module_run(L, build, arrays, seed):
    L.torch.manual_seed(seed)
    module = build(L)
    return module, lambda L2, *xs: module(*xs)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name, build, make, mask", MODULE_CASES, ids=[c[0] for c in MODULE_CASES])
def test_modules_match_torch(torch, name, build, make, mask, seed):
    T = lib(torch)
    arrays = make(_rng(seed))
    gm, _ = _module_run(G, build, arrays, seed)
    tm, _ = _module_run(T, build, arrays, seed)
    assert repr(gm) == repr(tm)
    for (gk, gv), (tk, tv) in zip(gm.state_dict().items(), tm.state_dict().items()):
        assert gk == tk
        np.testing.assert_array_equal(gv.numpy(), tv.numpy())
    mask = mask or [a.dtype.kind == "f" for a in arrays]
    run_both(torch, lambda L, *xs: (gm if L is G else tm)(*xs), arrays, mask, rtol=2e-5, atol=2e-6)


MODULE_ERRORS = [
    lambda L: L.nn.MultiMarginLoss(p=3),
    lambda L: L.nn.MultiMarginLoss(weight=L.torch.ones(2, 2)),
    lambda L: L.nn.TripletMarginLoss(margin=-1),
    lambda L: L.nn.TripletMarginWithDistanceLoss(margin=0),
    lambda L: L.nn.SoftMarginLoss(size_average=False),
    lambda L: L.nn.MarginRankingLoss(reduce=False),
    lambda L: L.nn.NLLLoss2d(),
]


@pytest.mark.parametrize("index", range(len(MODULE_ERRORS)))
def test_module_errors_and_warnings_match_torch(torch, index):
    assert _raised(G, MODULE_ERRORS[index]) == _raised(lib(torch), MODULE_ERRORS[index])


# ---------------------------------------------------------------------------------------
# normalisation
NORM_CASES = [
    ("instance_norm", lambda L, x: L.F.instance_norm(x), lambda r: [_n(r, 2, 3, 5)], None),
    ("instance_norm_affine", lambda L, x, w, b: L.F.instance_norm(x, weight=w, bias=b, eps=1e-3),
     lambda r: [_n(r, 3, 2, 4, 3), _u(r, 0.5, 2, 2), _n(r, 2)], None),
    ("instance_norm_eval_stats", lambda L, x, m, v: L.F.instance_norm(x, m, v, use_input_stats=False),
     lambda r: [_n(r, 2, 3, 4), _n(r, 3), _u(r, 0.5, 2, 3)], [True, False, False]),
    ("rms_norm", lambda L, x: L.F.rms_norm(x, (5,)), lambda r: [_n(r, 2, 3, 5)], None),
    ("rms_norm_weight_eps", lambda L, x, w: L.F.rms_norm(x, [3, 5], w, eps=1e-3),
     lambda r: [_n(r, 2, 3, 5), _u(r, 0.5, 2, 3, 5)], None),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name, fn, make, mask", NORM_CASES, ids=[c[0] for c in NORM_CASES])
def test_norms_match_torch(torch, name, fn, make, mask, seed):
    run_both(torch, fn, make(_rng(seed)), mask, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name, fn, make, mask", NORM_CASES, ids=[c[0] for c in NORM_CASES])
def test_norms_finite_differences(name, fn, make, mask):
    fd_check(fn, make(_rng(5)), mask, double=False)


NORM_MODULES = [
    ("BatchNorm3d", lambda L: L.nn.BatchNorm3d(3), lambda r: [_n(r, 2, 3, 2, 3, 2)]),
    ("SyncBatchNorm", lambda L: L.nn.SyncBatchNorm(3, momentum=None), lambda r: [_n(r, 4, 3, 2)]),
    ("InstanceNorm1d", lambda L: L.nn.InstanceNorm1d(3), lambda r: [_n(r, 2, 3, 6)]),
    ("InstanceNorm1d_unbatched", lambda L: L.nn.InstanceNorm1d(3, affine=True), lambda r: [_n(r, 3, 6)]),
    ("InstanceNorm2d_tracked", lambda L: L.nn.InstanceNorm2d(4, affine=True, track_running_stats=True),
     lambda r: [_n(r, 2, 4, 3, 3)]),
    ("InstanceNorm3d", lambda L: L.nn.InstanceNorm3d(2, momentum=0.3, track_running_stats=True),
     lambda r: [_n(r, 2, 2, 2, 3, 2)]),
    ("RMSNorm", lambda L: L.nn.RMSNorm([2, 3]), lambda r: [_n(r, 4, 2, 3)]),
    ("RMSNorm_plain", lambda L: L.nn.RMSNorm(3, eps=1e-2, elementwise_affine=False), lambda r: [_n(r, 4, 3)]),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name, build, make", NORM_MODULES, ids=[c[0] for c in NORM_MODULES])
def test_norm_modules_match_torch(torch, name, build, make, seed):
    """Reprs, outputs and gradients in training mode, the running statistics it leaves, then eval."""
    T = lib(torch)
    arrays = make(_rng(seed))
    gm, tm = build(G), build(T)
    assert repr(gm) == repr(tm) and str(type(gm)) == str(type(tm))
    run_both(torch, lambda L, x: (gm if L is G else tm)(x), arrays, rtol=2e-5, atol=2e-5)
    for (gk, gv), (tk, tv) in zip(gm.state_dict().items(), tm.state_dict().items()):
        assert gk == tk
        np.testing.assert_allclose(gv.numpy(), tv.numpy(), rtol=1e-5, atol=1e-6)
    gm.eval(), tm.eval()
    run_both(torch, lambda L, x: (gm if L is G else tm)(x), arrays, rtol=2e-5, atol=2e-5)


NORM_ERRORS = [
    lambda L: L.F.instance_norm(L.torch.zeros(2, 3, 1)),
    lambda L: L.F.rms_norm(L.torch.zeros(2, 3), (4,)),
    lambda L: L.nn.InstanceNorm1d(4, affine=True)(L.torch.zeros(2, 3, 5)),
    lambda L: L.nn.InstanceNorm1d(4)(L.torch.zeros(2, 3, 5)),
    lambda L: L.nn.InstanceNorm2d(4)(L.torch.zeros(2, 3)),
    lambda L: L.nn.BatchNorm3d(4)(L.torch.zeros(2, 4, 3)),
    lambda L: L.nn.SyncBatchNorm(4)(L.torch.zeros(3)),
]


@pytest.mark.parametrize("index", range(len(NORM_ERRORS)))
def test_norm_errors_and_warnings_match_torch(torch, index):
    assert _raised(G, NORM_ERRORS[index]) == _raised(lib(torch), NORM_ERRORS[index])


# ---------------------------------------------------------------------------------------
# convolutions: 3-D and transposed (float32 GEMMs in another order: compared to 1e-4)
CONV_CASES = [
    ("conv_transpose2d_dcgan", lambda L, x, w, b: L.F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
     lambda r: [_n(r, 2, 4, 5, 5), _n(r, 4, 3, 3, 3), _n(r, 3)]),
    ("conv_transpose2d_groups_dilation", lambda L, x, w, b: L.F.conv_transpose2d(
        x, w, b, stride=(2, 1), padding=(1, 0), groups=2, dilation=2), lambda r: [_n(r, 2, 4, 5, 6),
                                                                                 _n(r, 4, 3, 3, 2), _n(r, 6)]),
    ("conv_transpose1d", lambda L, x, w: L.F.conv_transpose1d(x, w, stride=3, output_padding=2),
     lambda r: [_n(r, 2, 4, 5), _n(r, 4, 2, 3)]),
    ("conv_transpose1d_unbatched", lambda L, x, w, b: L.F.conv_transpose1d(x, w, b, padding=1),
     lambda r: [_n(r, 4, 5), _n(r, 4, 2, 3), _n(r, 2)]),
    ("conv_transpose3d", lambda L, x, w, b: L.F.conv_transpose3d(x, w, b, stride=2, padding=1),
     lambda r: [_n(r, 1, 2, 3, 4, 3), _n(r, 2, 3, 3, 2, 3), _n(r, 3)]),
    ("conv3d", lambda L, x, w, b: L.F.conv3d(x, w, b, stride=(1, 2, 1), padding=1, dilation=(2, 1, 1)),
     lambda r: [_n(r, 2, 2, 5, 6, 4), _n(r, 3, 2, 3, 2, 3), _n(r, 3)]),
    ("conv3d_unbatched_groups", lambda L, x, w, b: L.F.conv3d(x, w, b, groups=2),
     lambda r: [_n(r, 4, 5, 6, 4), _n(r, 4, 2, 3, 2, 3), _n(r, 4)]),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name, fn, make", CONV_CASES, ids=[c[0] for c in CONV_CASES])
def test_convolutions_match_torch(torch, name, fn, make, seed):
    run_both(torch, fn, make(_rng(seed)), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name, fn, make", CONV_CASES, ids=[c[0] for c in CONV_CASES])
def test_convolutions_finite_differences(name, fn, make):
    fd_check(fn, make(_rng(3)), double=False)


def test_conv_transpose_saved_slots(torch):
    """Every slot PyTorch's ConvolutionBackward0 saves for a transposed convolution, by value."""
    nodes = {}
    for L in (G, lib(torch)):
        L.torch.manual_seed(0)
        x = L.torch.randn(1, 2, 3, 3, requires_grad=True)
        w = L.torch.randn(2, 4, 3, 3, requires_grad=True)
        nodes[L.name] = L.F.conv_transpose2d(x, w, stride=2, output_padding=1).grad_fn
    names = sorted(a for a in dir(nodes["torch"]) if a.startswith("_saved_"))
    assert len(names) == 9
    for name in names:
        got, want = getattr(nodes["gradviz"], name), getattr(nodes["torch"], name)
        if hasattr(want, "numpy"):
            np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
        else:
            assert tuple(got) == tuple(want) if isinstance(want, (tuple, list)) else got == want, name


CONV_MODULES = [
    ("ConvTranspose2d", lambda L: L.nn.ConvTranspose2d(4, 6, 4, stride=2, padding=1, bias=False),
     lambda r: [_n(r, 2, 4, 3, 3)]),
    ("ConvTranspose2d_groups", lambda L: L.nn.ConvTranspose2d(4, 6, (3, 2), stride=2, output_padding=1, groups=2,
                                                              dilation=(1, 2)), lambda r: [_n(r, 1, 4, 3, 4)]),
    ("ConvTranspose1d", lambda L: L.nn.ConvTranspose1d(3, 2, 3, stride=2), lambda r: [_n(r, 2, 3, 5)]),
    ("ConvTranspose3d", lambda L: L.nn.ConvTranspose3d(2, 3, 2, stride=(1, 2, 2)), lambda r: [_n(r, 1, 2, 2, 3, 2)]),
    ("Conv3d", lambda L: L.nn.Conv3d(2, 4, 3, padding=1, stride=2), lambda r: [_n(r, 2, 2, 4, 5, 3)]),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name, build, make", CONV_MODULES, ids=[c[0] for c in CONV_MODULES])
def test_conv_modules_match_torch(torch, name, build, make, seed):
    """The same parameters from the same seed (PyTorch's init stream), reprs, outputs, gradients."""
    T = lib(torch)
    G.torch.manual_seed(seed), T.torch.manual_seed(seed)
    gm, tm = build(G), build(T)
    assert repr(gm) == repr(tm) and str(type(gm)) == str(type(tm))
    for (gk, gv), (tk, tv) in zip(gm.state_dict().items(), tm.state_dict().items()):
        assert gk == tk
        np.testing.assert_array_equal(gv.numpy(), tv.numpy())
    run_both(torch, lambda L, x: (gm if L is G else tm)(x), make(_rng(seed)), rtol=1e-4, atol=1e-5)


def test_conv_transpose_output_size(torch):
    for L in (G, lib(torch)):
        L.torch.manual_seed(0)
        m = L.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
        assert tuple(m(L.torch.zeros(1, 2, 4, 4), output_size=[8, 8]).shape) == (1, 3, 8, 8)


CONV_ERRORS = [
    lambda L: L.F.conv_transpose2d(L.torch.zeros(1, 3, 5, 5), L.torch.zeros(2, 3, 3, 3)),
    lambda L: L.F.conv_transpose2d(L.torch.zeros(1, 2, 5, 5), L.torch.zeros(2, 3, 3, 3), output_padding=1),
    lambda L: L.F.conv_transpose1d(L.torch.zeros(1, 2, 5), L.torch.zeros(2, 3, 3), output_padding=1),
    lambda L: L.F.conv_transpose3d(L.torch.zeros(1, 2, 5, 5, 5), L.torch.zeros(2, 3, 3, 3, 3), output_padding=1),
    lambda L: L.F.conv_transpose3d(L.torch.zeros(5, 5, 5), L.torch.zeros(2, 3, 3, 3, 3)),
    lambda L: L.F.conv_transpose2d(L.torch.zeros(1, 2, 1, 1), L.torch.zeros(2, 3, 3, 3), padding=3),
    lambda L: L.F.conv_transpose1d(L.torch.zeros(1, 4, 5), L.torch.zeros(3, 3, 3), groups=2),
    lambda L: L.F.conv3d(L.torch.zeros(1, 2, 5, 5), L.torch.zeros(3, 2, 2, 2, 2)),
    lambda L: L.nn.ConvTranspose2d(2, 3, 3, padding_mode="reflect"),
]


@pytest.mark.parametrize("index", range(len(CONV_ERRORS)))
def test_conv_errors_match_torch(torch, index):
    assert _raised(G, CONV_ERRORS[index]) == _raised(lib(torch), CONV_ERRORS[index])
