"""nn's breadth on gradviz.torch against real PyTorch 2.13: the activations (SELU, CELU,
Mish, Hardswish, Hardsigmoid, the shrinks, Softsign, LogSigmoid, Threshold, RReLU, GLU,
PReLU, Softmax2d and the in-place forms), the channel-wise and alpha dropouts, the padding
modules, 1-D pooling, the shuffles and the distances. Values, whole grad_fn graphs, saved
slots, gradients and double backward over several seeds, shapes and dtypes; module reprs;
errors and warnings verbatim; the random ones (RReLU, dropouts) drawn as PyTorch draws."""
import warnings

import pytest

import gradviz.torch as gt
import oracle
from oracle import A, Case

torch = pytest.importorskip("torch")

SEEDS = (0, 1, 2)
SHAPES = ((2, 4, 3), (5,), (3, 4, 2, 2))


def _f(name, *args, **kwargs):
    return lambda T, x: getattr(T.nn.functional, name)(x, *args, **kwargs)


def _inplace(name, *args, **kwargs):
    # an in-place op needs a non-leaf: x * 1 first
    return lambda T, x: getattr(T.nn.functional, name)(x * 1, *args, **kwargs)


ACTIVATIONS = [
    ("selu", _f("selu")), ("celu", _f("celu")), ("celu_alpha", _f("celu", 0.7)), ("mish", _f("mish")),
    ("hardswish", _f("hardswish")), ("hardsigmoid", _f("hardsigmoid")), ("hardshrink", _f("hardshrink")),
    ("hardshrink_lambd", _f("hardshrink", 0.2)), ("softshrink", _f("softshrink")),
    ("softshrink_lambd", _f("softshrink", 1.1)), ("tanhshrink", _f("tanhshrink")), ("softsign", _f("softsign")),
    ("logsigmoid", _f("logsigmoid")), ("threshold", _f("threshold", 0.1, 20.0)),
    ("threshold_negative", _f("threshold", -0.3, -2.0)), ("rrelu_eval", _f("rrelu")),
    ("elu_", _inplace("elu_")), ("elu_inplace", _inplace("elu", 0.5, True)), ("selu_", _inplace("selu_")),
    ("selu_inplace", _inplace("selu", True)), ("celu_", _inplace("celu_", 0.6)),
    ("leaky_relu_", _inplace("leaky_relu_")),
    ("leaky_relu_inplace", _inplace("leaky_relu", 0.2, True)), ("hardtanh_", _inplace("hardtanh_", -0.5, 0.5)),
    ("relu6_inplace", _inplace("relu6", True)), ("threshold_", _inplace("threshold_", 0.1, 2.0)),
    ("threshold_inplace", _inplace("threshold", 0.0, 0.5, True)), ("mish_inplace", _inplace("mish", True)),
    ("hardswish_inplace", _inplace("hardswish", True)), ("hardsigmoid_inplace", _inplace("hardsigmoid", True)),
    ("silu_inplace", _inplace("silu", True)), ("rrelu_eval_inplace", _inplace("rrelu", 0.2, 0.4, False, True)),
    ("elu_torch", lambda T, x: T.nn.functional.elu(x, 1.3)),
    ("torch_selu", lambda T, x: T.selu(x)), ("torch_celu", lambda T, x: T.celu(x, 2.0)),
    ("torch_threshold", lambda T, x: T.threshold(x, 0.2, 1.0)), ("tensor_hardshrink", lambda T, x: x.hardshrink(0.3)),
]
CASES = [Case(f"{name}_{'x'.join(map(str, shape))}_s{seed}", fn, A(*shape, kind="nz"))
         for name, fn in ACTIVATIONS for shape in SHAPES[:2] for seed in SEEDS[:2]]
CASES += [Case(f"{name}_float32", fn, A(3, 4, 2, 2, dtype="float32")) for name, fn in ACTIVATIONS]


def _rrelu_train(lower, upper, inplace=False):
    def fn(T, x):
        T.manual_seed(7)
        return T.nn.functional.rrelu(x * 1 if inplace else x, lower, upper, True, inplace)
    return fn


def _prelu(T, x, w):
    return T.nn.functional.prelu(x, w)


CASES += [
    Case("rrelu_train", _rrelu_train(1 / 8, 1 / 3), A(3, 4, 5)),
    Case("rrelu_train_wide", _rrelu_train(0.0, 0.9), A(2, 7)),
    Case("rrelu_train_inplace", _rrelu_train(0.1, 0.3, True), A(4, 6)),
    Case("rrelu_train_float32", _rrelu_train(1 / 8, 1 / 3), A(3, 4, 5, dtype="float32")),
    Case("rrelu_train_equal_bounds", _rrelu_train(0.2, 0.2), A(3, 5)),
    Case("glu_last", _f("glu"), A(3, 4)), Case("glu_dim1", _f("glu", 1), A(2, 6, 3)),
    Case("glu_dim0_float32", _f("glu", 0), A(4, 3, dtype="float32")),
    Case("prelu_channels", _prelu, A(2, 3, 4), A(3, kind="p")),
    Case("prelu_one", _prelu, A(2, 3, 4, 2), A(1, kind="p")),
    Case("prelu_scalar_weight", _prelu, A(2, 3), A(kind="p")),
    Case("prelu_1d", _prelu, A(5), A(1, kind="p")), Case("prelu_0d", _prelu, A(), A(1, kind="p")),
    Case("tensor_prelu", lambda T, x, w: x.prelu(w), A(4, 2), A(2, kind="p")),
    Case("softmax2d", lambda T, x: T.nn.Softmax2d()(x), A(2, 3, 4, 2)),
    Case("softmax2d_3d", lambda T, x: T.nn.Softmax2d()(x), A(3, 2, 2)),
]

OTHERS = [
    ("avg_pool1d", _f("avg_pool1d", 2), A(2, 3, 7)), ("avg_pool1d_stride_pad", _f("avg_pool1d", 3, 2, 1), A(2, 3, 8)),
    ("avg_pool1d_unbatched", _f("avg_pool1d", 2, 1), A(3, 6)),
    ("adaptive_avg_pool1d", _f("adaptive_avg_pool1d", 3), A(2, 3, 7)),
    ("adaptive_avg_pool1d_global", _f("adaptive_avg_pool1d", 1), A(2, 3, 5)),
    ("max_pool1d_with_indices", _f("max_pool1d_with_indices", 2), A(2, 3, 6, kind="d")),
    ("max_pool2d_with_indices", _f("max_pool2d_with_indices", 2), A(1, 2, 4, 4, kind="d")),
    ("pixel_shuffle", _f("pixel_shuffle", 2), A(2, 8, 3, 2)), ("pixel_shuffle_3d", _f("pixel_shuffle", 3), A(9, 2, 2)),
    ("pixel_unshuffle", _f("pixel_unshuffle", 2), A(2, 2, 4, 6)),
    ("channel_shuffle", _f("channel_shuffle", 2), A(2, 6, 3)), ("channel_shuffle_4d", _f("channel_shuffle", 3),
                                                                  A(1, 6, 2, 2)),
    ("pairwise_distance", lambda T, x, y: T.nn.functional.pairwise_distance(x, y), A(4, 5), A(4, 5)),
    ("pairwise_distance_p1_keepdim", lambda T, x, y: T.nn.functional.pairwise_distance(x, y, 1.0, 1e-3, True),
     A(3, 5), A(3, 5)),
    ("pairwise_distance_broadcast", lambda T, x, y: T.nn.functional.pairwise_distance(x, y), A(3, 4), A(4)),
    ("cosine_similarity", lambda T, x, y: T.nn.functional.cosine_similarity(x, y), A(4, 5), A(4, 5)),
    ("cosine_similarity_dim", lambda T, x, y: T.nn.functional.cosine_similarity(x, y, -1), A(2, 3, 4), A(2, 3, 4)),
    ("cosine_similarity_broadcast", lambda T, x, y: T.nn.functional.cosine_similarity(x, y, 1), A(3, 4), A(1, 4)),
    ("cosine_module", lambda T, x, y: T.nn.CosineSimilarity(0)(x, y), A(4, 2), A(4, 2)),
    ("pairwise_module", lambda T, x, y: T.nn.PairwiseDistance(3)(x, y), A(4, 2), A(4, 2)),
]
for mode, module in (("zero", "ZeroPad"), ("reflect", "ReflectionPad"), ("replicate", "ReplicationPad"),
                     ("circular", "CircularPad")):
    OTHERS += [(f"{module}1d", lambda T, x, m=module: getattr(T.nn, f"{m}1d")((2, 1))(x), A(2, 3, 4)),
               (f"{module}2d", lambda T, x, m=module: getattr(T.nn, f"{m}2d")(1)(x), A(1, 2, 3, 4)),
               (f"{module}3d", lambda T, x, m=module: getattr(T.nn, f"{m}3d")((1, 0, 1, 1, 0, 1))(x), A(1, 2, 3, 3, 2))]
OTHERS += [("ConstantPad2d", lambda T, x: T.nn.ConstantPad2d((1, 2, 0, 1), 3.5)(x), A(2, 3, 3))]
CASES += [Case(name, fn, *specs) for name, fn, *specs in OTHERS]


def _dropout(name, p, *args):
    def fn(T, x):
        T.manual_seed(11)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(T.nn.functional, name)(x, p, *args)
    return fn


for seed_shape in ((3, 4, 2, 2), (2, 5, 3), (2, 3, 2, 2, 2)):
    tag = "x".join(map(str, seed_shape))
    CASES += [Case(f"dropout2d_{tag}", _dropout("dropout2d", 0.4), A(*seed_shape)),
              Case(f"alpha_dropout_{tag}", _dropout("alpha_dropout", 0.3, True), A(*seed_shape)),
              Case(f"feature_alpha_dropout_{tag}", _dropout("feature_alpha_dropout", 0.5, True), A(*seed_shape)),
              Case(f"dropout3d_{tag}", _dropout("dropout3d", 0.5), A(*seed_shape))]
CASES += [Case("dropout1d", _dropout("dropout1d", 0.5), A(3, 4, 5)),
          Case("dropout1d_unbatched", _dropout("dropout1d", 0.5), A(4, 5)),
          Case("dropout2d_float32", _dropout("dropout2d", 0.2), A(2, 6, 3, 3, dtype="float32")),
          Case("dropout2d_eval", _dropout("dropout2d", 0.2, False), A(2, 6, 3)),
          Case("dropout2d_p1", _dropout("dropout2d", 1.0), A(2, 3, 2, 2)),
          Case("alpha_dropout_eval", _dropout("alpha_dropout", 0.5), A(2, 6))]
# The engine's CopySlices (circular padding) lists copy_'s source dtype; PyTorch's lists nothing.
globals().update(oracle.case_tests(CASES, saved_only_in_gradviz={"CopySlices": {"src_dtype"}}))


MODULES = [
    lambda T: T.nn.PReLU(), lambda T: T.nn.PReLU(3, 0.1), lambda T: T.nn.SELU(), lambda T: T.nn.SELU(True),
    lambda T: T.nn.CELU(), lambda T: T.nn.CELU(0.5, True), lambda T: T.nn.Mish(), lambda T: T.nn.Hardswish(True),
    lambda T: T.nn.Hardsigmoid(), lambda T: T.nn.Hardshrink(), lambda T: T.nn.Softshrink(0.3),
    lambda T: T.nn.Tanhshrink(), lambda T: T.nn.Softsign(), lambda T: T.nn.LogSigmoid(),
    lambda T: T.nn.Threshold(0.1, 20), lambda T: T.nn.Threshold(0.1, 20, True), lambda T: T.nn.RReLU(),
    lambda T: T.nn.RReLU(0.1, 0.3, True), lambda T: T.nn.GLU(), lambda T: T.nn.GLU(-2), lambda T: T.nn.Softmax2d(),
    lambda T: T.nn.Dropout1d(), lambda T: T.nn.Dropout2d(0.3, True), lambda T: T.nn.Dropout3d(0.1),
    lambda T: T.nn.AlphaDropout(0.2), lambda T: T.nn.FeatureAlphaDropout(), lambda T: T.nn.ZeroPad1d(2),
    lambda T: T.nn.ZeroPad2d((1, 2, 3, 4)), lambda T: T.nn.ZeroPad3d(1), lambda T: T.nn.ConstantPad1d(2, 3.5),
    lambda T: T.nn.ConstantPad2d(1, 0.0), lambda T: T.nn.ConstantPad3d((1, 2, 3, 4, 5, 6), -1),
    lambda T: T.nn.ReflectionPad1d(1), lambda T: T.nn.ReflectionPad2d((1, 0, 1, 0)), lambda T: T.nn.ReflectionPad3d(2),
    lambda T: T.nn.ReplicationPad1d(3), lambda T: T.nn.ReplicationPad2d(1), lambda T: T.nn.ReplicationPad3d(1),
    lambda T: T.nn.CircularPad1d(2), lambda T: T.nn.CircularPad2d(1), lambda T: T.nn.CircularPad3d(1),
    lambda T: T.nn.AvgPool1d(3), lambda T: T.nn.AvgPool1d(3, 1, 1), lambda T: T.nn.AdaptiveAvgPool1d(2),
    lambda T: T.nn.PixelShuffle(2), lambda T: T.nn.PixelUnshuffle(3), lambda T: T.nn.ChannelShuffle(2),
    lambda T: T.nn.CosineSimilarity(), lambda T: T.nn.PairwiseDistance(1.0, 1e-3, True),
]


@pytest.mark.parametrize("index", range(len(MODULES)))
def test_module_repr_and_type(index):
    ours, theirs = MODULES[index](gt), MODULES[index](torch)
    assert repr(ours) == repr(theirs)
    assert str(type(ours)) == str(type(theirs))
    assert sorted(n for n, _ in ours.named_parameters()) == sorted(n for n, _ in theirs.named_parameters())


def test_prelu_module_trains_like_pytorch():
    diffs = []
    results = []
    for T in (gt, torch):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(4, 3), T.nn.PReLU(3), T.nn.Linear(3, 2), T.nn.RReLU(), T.nn.SELU())
        x = T.randn(5, 4)
        model(x).sum().backward()
        results.append([(n, oracle.to_numpy(p.grad)) for n, p in model.named_parameters()])
    for (name, a), (_, b) in zip(*results):
        d = oracle.values_diff(a, b, str(b.dtype))
        if d:
            diffs.append(f"{name}: {d}")
    oracle.assert_no_diffs(diffs, "PReLU / RReLU / SELU model gradients")


def _t(T, *shape):
    return T.ones(*shape)


ERRORS = [
    ("glu_scalar", lambda T: T.nn.functional.glu(T.tensor(1.0))),
    ("glu_odd", lambda T: T.nn.functional.glu(_t(T, 2, 3))),
    ("glu_dim", lambda T: T.nn.functional.glu(_t(T, 2, 4), 2)),
    ("prelu_count", lambda T: T.nn.functional.prelu(_t(T, 2, 3), _t(T, 2))),
    ("prelu_weight_2d", lambda T: T.nn.functional.prelu(_t(T, 2, 3), _t(T, 3, 1))),
    ("prelu_1d_many", lambda T: T.nn.functional.prelu(_t(T, 3), _t(T, 3))),
    ("hardshrink_long", lambda T: T.nn.functional.hardshrink(T.ones(3, dtype=T.long))),
    ("softshrink_negative", lambda T: T.nn.functional.softshrink(_t(T, 3), -1)),
    ("softshrink_negative_double", lambda T: T.nn.functional.softshrink(T.ones(3, dtype=T.float64), -0.5)),
    ("rrelu_long", lambda T: T.nn.functional.rrelu(T.ones(3, dtype=T.long))),
    ("rrelu_bounds", lambda T: T.nn.functional.rrelu(_t(T, 3), 0.5, 0.1, True)),
    ("mish_long", lambda T: T.nn.functional.mish(T.ones(3, dtype=T.long))),
    ("elu_long", lambda T: T.nn.functional.elu(T.ones(3, dtype=T.long))),
    ("logsigmoid_long", lambda T: T.nn.functional.logsigmoid(T.ones(3, dtype=T.long))),
    ("hardswish_long", lambda T: T.nn.functional.hardswish(T.ones(3, dtype=T.long))),
    ("celu_zero", lambda T: T.nn.functional.celu(_t(T, 3), 0.0)),
    ("softmax2d_rank", lambda T: T.nn.Softmax2d()(_t(T, 3, 3))),
    ("leaky_relu_leaf", lambda T: T.nn.functional.leaky_relu_(T.ones(3, requires_grad=True))),
    ("dropout1d_rank", lambda T: T.nn.functional.dropout1d(_t(T, 2, 3, 4, 5))),
    ("dropout2d_p", lambda T: T.nn.functional.dropout2d(_t(T, 2, 3, 4), 1.5)),
    ("dropout_module_p", lambda T: T.nn.Dropout2d(-0.1)),
    ("feature_alpha_dropout_1d", lambda T: T.nn.functional.feature_alpha_dropout(_t(T, 4), 0.5, True)),
    ("circular_pad_rank", lambda T: T.nn.CircularPad2d(1)(_t(T, 3, 3))),
    ("reflection_pad_too_wide", lambda T: T.nn.ReflectionPad1d(4)(_t(T, 2, 3))),
    ("avg_pool1d_rank", lambda T: T.nn.functional.avg_pool1d(_t(T, 2, 3, 2, 2), 2)),
    ("adaptive_avg_pool1d_rank", lambda T: T.nn.functional.adaptive_avg_pool1d(_t(T, 2, 3, 2, 2), 2)),
    ("pixel_shuffle_channels", lambda T: T.nn.functional.pixel_shuffle(_t(T, 2, 3, 2, 2), 2)),
    ("pixel_shuffle_rank", lambda T: T.nn.functional.pixel_shuffle(_t(T, 3, 2), 2)),
    ("pixel_shuffle_factor", lambda T: T.nn.functional.pixel_shuffle(_t(T, 1, 4, 2, 2), 0)),
    ("pixel_unshuffle_height", lambda T: T.nn.functional.pixel_unshuffle(_t(T, 1, 4, 3, 2), 2)),
    ("pixel_unshuffle_width", lambda T: T.nn.functional.pixel_unshuffle(_t(T, 1, 4, 2, 3), 2)),
    ("pixel_unshuffle_rank", lambda T: T.nn.functional.pixel_unshuffle(_t(T, 4, 2), 2)),
    ("channel_shuffle_groups", lambda T: T.nn.functional.channel_shuffle(_t(T, 1, 4, 2, 2), 3)),
    ("channel_shuffle_rank", lambda T: T.nn.functional.channel_shuffle(_t(T, 1, 4), 2)),
    ("channel_shuffle_zero", lambda T: T.nn.functional.channel_shuffle(_t(T, 1, 4, 2), 0)),
    ("pairwise_distance_shapes", lambda T: T.nn.functional.pairwise_distance(_t(T, 2, 3), _t(T, 2, 4))),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, fn):
    oracle.check_error(name, fn)


WARNINGS = [
    ("dropout2d_2d", lambda T: T.nn.functional.dropout2d(_t(T, 3, 4), 0.5)),
    ("dropout2d_3d", lambda T: T.nn.functional.dropout2d(_t(T, 3, 4, 5), 0.5)),
    ("dropout3d_3d", lambda T: T.nn.functional.dropout3d(_t(T, 3, 4, 5), 0.5)),
]


@pytest.mark.parametrize("name,fn", WARNINGS, ids=[w[0] for w in WARNINGS])
def test_warnings(name, fn):
    _, _, ours = oracle.run_capture(fn, gt)
    _, _, theirs = oracle.run_capture(fn, torch)
    assert theirs, "the case should warn in PyTorch"
    assert [str(w) for w in ours] == [str(w) for w in theirs]
