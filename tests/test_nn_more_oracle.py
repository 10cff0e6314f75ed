"""nn's further breadth on gradviz.torch against real PyTorch 2.13: 3-D max / average
pooling, adaptive max pooling (1-D, 2-D, 3-D) and 3-D adaptive average pooling, LP
pooling, max unpooling. Values, whole grad_fn graphs, saved slots, gradients and double
backward over several seeds, shapes and dtypes; module reprs; errors verbatim."""
import pytest

import gradviz.torch as gt
import oracle
from oracle import A, Case

torch = pytest.importorskip("torch")

SEEDS = (0, 1, 2)


def _f(name, *args, **kwargs):
    return lambda T, x: getattr(T.nn.functional, name)(x, *args, **kwargs)


def _unpool(rank, kernel, stride=None, padding=0, output_size=None):
    """Pool with indices, then unpool: the unpooled values' graph reaches both nodes."""
    def fn(T, x):
        F = T.nn.functional
        out, indices = getattr(F, f"max_pool{rank}d")(x, kernel, stride, padding, return_indices=True)
        return getattr(F, f"max_unpool{rank}d")(out, indices, kernel, stride, padding, output_size)
    return fn


POOLS = [
    ("max_pool3d", _f("max_pool3d", 2), (2, 3, 4, 4, 6)),
    ("max_pool3d_stride_pad", _f("max_pool3d", 3, 2, 1), (1, 2, 5, 6, 5)),
    ("max_pool3d_dilation_ceil", _f("max_pool3d", 2, 2, 0, 2, True), (1, 2, 6, 5, 7)),
    ("max_pool3d_unbatched", _f("max_pool3d", (1, 2, 2)), (3, 2, 4, 4)),
    ("max_pool3d_indices", _f("max_pool3d", 2, return_indices=True), (1, 2, 4, 4, 4)),
    ("max_pool3d_with_indices", _f("max_pool3d_with_indices", (2, 1, 2)), (2, 2, 4, 3, 4)),
    ("avg_pool3d", _f("avg_pool3d", 2), (2, 3, 4, 4, 6)),
    ("avg_pool3d_stride_pad", _f("avg_pool3d", 3, 2, 1), (1, 2, 5, 6, 5)),
    ("avg_pool3d_no_pad_count", _f("avg_pool3d", 3, 2, 1, False, False), (1, 2, 5, 6, 5)),
    ("avg_pool3d_ceil", _f("avg_pool3d", 2, 2, 0, True), (1, 2, 5, 5, 3)),
    ("avg_pool3d_divisor", _f("avg_pool3d", 2, 1, 0, False, True, 3), (1, 2, 3, 4, 3)),
    ("avg_pool3d_unbatched", _f("avg_pool3d", (2, 1, 2)), (3, 4, 3, 4)),
    ("adaptive_avg_pool3d", _f("adaptive_avg_pool3d", (2, 3, 2)), (2, 3, 5, 7, 4)),
    ("adaptive_avg_pool3d_none", _f("adaptive_avg_pool3d", (None, 2, 3)), (1, 2, 3, 5, 5)),
    ("adaptive_avg_pool3d_global", _f("adaptive_avg_pool3d", 1), (2, 3, 2, 3, 2)),
    ("adaptive_avg_pool3d_unbatched", _f("adaptive_avg_pool3d", 2), (3, 5, 4, 3)),
    ("adaptive_max_pool1d", _f("adaptive_max_pool1d", 3), (2, 3, 7)),
    ("adaptive_max_pool1d_indices", _f("adaptive_max_pool1d", 4, True), (3, 9)),
    ("adaptive_max_pool2d", _f("adaptive_max_pool2d", (3, 2)), (2, 3, 7, 5)),
    ("adaptive_max_pool2d_none", _f("adaptive_max_pool2d", (None, 3)), (2, 4, 7)),
    ("adaptive_max_pool2d_with_indices", _f("adaptive_max_pool2d_with_indices", 2), (1, 2, 5, 5)),
    ("adaptive_max_pool3d", _f("adaptive_max_pool3d", (2, 3, 2)), (2, 2, 5, 7, 4)),
    ("adaptive_max_pool3d_indices", _f("adaptive_max_pool3d", 2, True), (2, 4, 4, 5)),
    ("lp_pool1d", _f("lp_pool1d", 2, 3), (2, 3, 7)),
    ("lp_pool1d_stride", _f("lp_pool1d", 3.0, 2, 1), (3, 6)),
    ("lp_pool2d", _f("lp_pool2d", 2, 2), (2, 3, 4, 6)),
    ("lp_pool2d_ceil", _f("lp_pool2d", 1.5, (2, 3), 2, True), (1, 2, 5, 7)),
    ("lp_pool2d_inf", _f("lp_pool2d", float("inf"), 2), (1, 2, 4, 4)),
    ("lp_pool3d", _f("lp_pool3d", 2, 2), (1, 2, 4, 4, 4)),
    ("lp_pool3d_stride", _f("lp_pool3d", 4, (2, 1, 2), 1), (1, 2, 3, 3, 4)),
    ("max_unpool1d", _unpool(1, 2), (2, 3, 8)),
    ("max_unpool1d_stride_size", _unpool(1, 3, 2, 1, (9,)), (1, 2, 8)),
    ("max_unpool2d", _unpool(2, 2), (2, 3, 4, 6)),
    ("max_unpool2d_unbatched", _unpool(2, (2, 3)), (3, 4, 6)),
    ("max_unpool2d_size", _unpool(2, 2, None, 0, (1, 2, 5, 5)), (1, 2, 5, 5)),
    ("max_unpool3d", _unpool(3, 2), (2, 2, 4, 4, 4)),
    ("max_unpool3d_stride_pad", _unpool(3, 3, 2, 1), (1, 2, 5, 5, 5)),
]
# distinct values keep every maximum unique, so the argmax (and its gradient) is PyTorch's
CASES = [Case(f"{name}_s{seed}", fn, A(*shape, kind="d" if "max" in name or "inf" in name else "p"))
         for name, fn, shape in POOLS for seed in SEEDS]
CASES += [Case(f"{name}_float32", fn, A(*shape, kind="d" if "max" in name or "inf" in name else "p",
                                         dtype="float32")) for name, fn, shape in POOLS]
IDS = [c.name for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward(case):
    oracle.check_forward(case)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_graph(case):
    oracle.check_graph(case)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_saved_names(case):
    oracle.check_saved_names(case)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_backward(case):
    oracle.check_backward(case)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_double_backward(case):
    oracle.check_double_backward(case)


def test_integer_pooling_matches():
    for T in (gt, torch):
        x = T.arange(2 * 4 * 4 * 4).reshape(1, 2, 4, 4, 4) - 50
        if T is gt:
            ours = (T.nn.functional.max_pool3d(x, 2), T.nn.functional.avg_pool3d(x, (2, 1, 3), 1))
        else:
            theirs = (T.nn.functional.max_pool3d(x, 2), T.nn.functional.avg_pool3d(x, (2, 1, 3), 1))
    for a, b in zip(ours, theirs):
        assert str(a.dtype) == str(b.dtype) and a.tolist() == b.tolist()


MODULES = [
    lambda T: T.nn.MaxPool3d(2), lambda T: T.nn.MaxPool3d((1, 2, 2), 1, 0, 2, True, True),
    lambda T: T.nn.AvgPool3d(3), lambda T: T.nn.AvgPool3d((1, 2, 2), (1, 1, 2), 1, True, False, 2),
    lambda T: T.nn.AdaptiveAvgPool3d(2), lambda T: T.nn.AdaptiveAvgPool3d((None, 2, 3)),
    lambda T: T.nn.AdaptiveMaxPool1d(3), lambda T: T.nn.AdaptiveMaxPool2d((2, None), True),
    lambda T: T.nn.AdaptiveMaxPool3d(1), lambda T: T.nn.LPPool1d(2, 3), lambda T: T.nn.LPPool2d(1.5, (2, 3), 1),
    lambda T: T.nn.LPPool3d(3, 2, None, True), lambda T: T.nn.MaxUnpool1d(2), lambda T: T.nn.MaxUnpool2d((2, 3), 1),
    lambda T: T.nn.MaxUnpool3d(3, 2, 1),
]


@pytest.mark.parametrize("index", range(len(MODULES)))
def test_module_repr_and_type(index):
    ours, theirs = MODULES[index](gt), MODULES[index](torch)
    assert repr(ours) == repr(theirs)
    assert str(type(ours)) == str(type(theirs))
    assert sorted(n for n, _ in ours.named_parameters()) == sorted(n for n, _ in theirs.named_parameters())


def _module_case(make, shape, *, unpool=False):
    def fn(T, x):
        if unpool:
            rank = len(shape) - 2
            out, indices = getattr(T.nn, f"MaxPool{rank}d")(2, return_indices=True)(x)
            return make(T)(out, indices)
        return make(T)(x)
    return fn


MODULE_CASES = [
    Case("module_max_pool3d", _module_case(lambda T: T.nn.MaxPool3d(2, return_indices=True), ()), A(1, 2, 4, 4, 4,
                                                                                                      kind="d")),
    Case("module_avg_pool3d", _module_case(lambda T: T.nn.AvgPool3d(2, 1), ()), A(1, 2, 3, 4, 3)),
    Case("module_adaptive_max_pool2d", _module_case(lambda T: T.nn.AdaptiveMaxPool2d(2, True), ()),
         A(2, 5, 5, kind="d")),
    Case("module_lp_pool1d", _module_case(lambda T: T.nn.LPPool1d(2, 2), ()), A(2, 3, 6, kind="p")),
    Case("module_max_unpool2d", _module_case(lambda T: T.nn.MaxUnpool2d(2), (1, 2, 4, 4), unpool=True),
         A(1, 2, 4, 4, kind="d")),
    Case("module_max_unpool1d", _module_case(lambda T: T.nn.MaxUnpool1d(2), (1, 2, 6), unpool=True),
         A(1, 2, 6, kind="d")),
]


@pytest.mark.parametrize("case", MODULE_CASES, ids=[c.name for c in MODULE_CASES])
def test_module_forward_and_backward(case):
    oracle.check_forward(case)
    oracle.check_graph(case)
    oracle.check_backward(case)


def _t(T, *shape):
    return T.ones(*shape)


def _long(T, *shape, value=0):
    return T.full(shape, value, dtype=T.long)


ERRORS = [
    ("avg_pool3d_rank", lambda T: T.nn.functional.avg_pool3d(_t(T, 2, 3, 4), 2)),
    ("avg_pool3d_pad", lambda T: T.nn.functional.avg_pool3d(_t(T, 1, 2, 4, 4, 4), 2, padding=2)),
    ("avg_pool3d_small", lambda T: T.nn.functional.avg_pool3d(_t(T, 1, 2, 1, 4, 4), 2)),
    ("avg_pool3d_divisor", lambda T: T.nn.functional.avg_pool3d(_t(T, 1, 2, 4, 4, 4), 2, divisor_override=0)),
    ("avg_pool3d_kernel_arity", lambda T: T.nn.functional.avg_pool3d(_t(T, 1, 2, 4, 4, 4), (2, 2))),
    ("max_pool3d_rank", lambda T: T.nn.functional.max_pool3d(_t(T, 2, 3, 4), 2)),
    ("max_pool3d_pad", lambda T: T.nn.functional.max_pool3d(_t(T, 1, 2, 4, 4, 4), 2, padding=2)),
    ("max_pool3d_small", lambda T: T.nn.functional.max_pool3d(_t(T, 1, 2, 1, 4, 4), 2)),
    ("max_pool3d_kernel_zero", lambda T: T.nn.functional.max_pool3d(_t(T, 1, 2, 4, 4, 4), 0)),
    ("max_pool3d_kernel_arity", lambda T: T.nn.functional.max_pool3d(_t(T, 1, 2, 4, 4, 4), (2, 2))),
    ("adaptive_avg_pool3d_rank", lambda T: T.nn.functional.adaptive_avg_pool3d(_t(T, 2, 3, 4), 2)),
    ("adaptive_avg_pool3d_empty", lambda T: T.nn.functional.adaptive_avg_pool3d(_t(T, 2, 3, 0, 4, 4), 2)),
    ("adaptive_max_pool1d_rank", lambda T: T.nn.functional.adaptive_max_pool1d(_t(T, 2, 3, 4, 5), 2)),
    ("adaptive_max_pool1d_size", lambda T: T.nn.functional.adaptive_max_pool1d(_t(T, 2, 3, 4), (2, 2))),
    ("adaptive_max_pool2d_rank", lambda T: T.nn.functional.adaptive_max_pool2d(_t(T, 2, 3), 2)),
    ("adaptive_max_pool2d_empty", lambda T: T.nn.functional.adaptive_max_pool2d(_t(T, 2, 3, 0, 4), 2)),
    ("adaptive_max_pool2d_arity", lambda T: T.nn.functional.adaptive_max_pool2d(_t(T, 2, 3, 4, 4), (2, 2, 2))),
    ("adaptive_max_pool2d_long", lambda T: T.nn.functional.adaptive_max_pool2d(_long(T, 1, 2, 4, 4), 2)),
    ("adaptive_max_pool3d_rank", lambda T: T.nn.functional.adaptive_max_pool3d(_t(T, 2, 3, 4), 2)),
    ("adaptive_max_pool3d_empty", lambda T: T.nn.functional.adaptive_max_pool3d(_t(T, 2, 3, 0, 4, 4), 2)),
    ("lp_pool2d_small", lambda T: T.nn.functional.lp_pool2d(_t(T, 1, 1, 4, 4), 2, 5)),
    ("max_unpool2d_rank", lambda T: T.nn.functional.max_unpool2d(_t(T, 2, 2), _long(T, 2, 2), 2)),
    ("max_unpool1d_rank", lambda T: T.nn.functional.max_unpool1d(_t(T, 2), _long(T, 2), 2)),
    ("max_unpool3d_rank", lambda T: T.nn.functional.max_unpool3d(_t(T, 2, 2, 2), _long(T, 2, 2, 2), 2)),
    ("max_unpool2d_shape", lambda T: T.nn.functional.max_unpool2d(_t(T, 1, 1, 2, 2), _long(T, 1, 1, 2, 3), 2)),
    ("max_unpool3d_shape", lambda T: T.nn.functional.max_unpool3d(_t(T, 1, 1, 2, 2, 2), _long(T, 1, 1, 2, 2, 3), 2)),
    ("max_unpool2d_float_indices", lambda T: T.nn.functional.max_unpool2d(_t(T, 1, 1, 2, 2), _t(T, 1, 1, 2, 2), 2)),
    ("max_unpool2d_invalid", lambda T: T.nn.functional.max_unpool2d(_t(T, 1, 1, 2, 2), _long(T, 1, 1, 2, 2,
                                                                                             value=99), 2)),
    ("max_unpool2d_negative", lambda T: T.nn.functional.max_unpool2d(_t(T, 1, 1, 2, 2), _long(T, 1, 1, 2, 2,
                                                                                              value=-1), 2)),
    ("max_unpool1d_invalid", lambda T: T.nn.functional.max_unpool1d(_t(T, 1, 1, 2), _long(T, 1, 1, 2, value=9), 2)),
    ("max_unpool3d_invalid", lambda T: T.nn.functional.max_unpool3d(_t(T, 1, 1, 2, 2, 2),
                                                                    _long(T, 1, 1, 2, 2, 2, value=99), 2)),
    ("max_unpool2d_invalid_last", lambda T: T.nn.functional.max_unpool2d(
        *T.nn.functional.max_pool2d(T.arange(48.0).reshape(1, 2, 4, 6), (2, 3), 2, return_indices=True), (2, 3), 2)),
    ("max_unpool2d_output_range", lambda T: T.nn.functional.max_unpool2d(_t(T, 1, 1, 2, 2), _long(T, 1, 1, 2, 2), 2,
                                                                         output_size=(9, 9))),
    ("max_unpool2d_output_arity", lambda T: T.nn.functional.max_unpool2d(_t(T, 1, 1, 2, 2), _long(T, 1, 1, 2, 2), 2,
                                                                         output_size=(4, 4, 4))),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, fn):
    _, error_gv, _ = oracle.run_capture(fn, gt)
    _, error_torch, _ = oracle.run_capture(fn, torch)
    assert error_torch is not None, "the case should raise in PyTorch"
    diffs = []
    oracle.compare_errors(name, error_gv, error_torch, diffs)
    oracle.assert_no_diffs(diffs, name)


# ---------------------------------------------------------------------------------------
# bilinear
def _bilinear(T, x1, x2, w, b=None):
    return T.nn.functional.bilinear(x1, x2, w, b)


BILINEAR = [Case(f"bilinear_{tag}_s{seed}", _bilinear, *specs)
            for seed in SEEDS for tag, specs in (
                ("2d", (A(3, 4), A(3, 5), A(2, 4, 5), A(2))),
                ("no_bias", (A(4, 2), A(4, 3), A(5, 2, 3))),
                ("batched", (A(2, 3, 4), A(2, 3, 2), A(3, 4, 2), A(3))),
                ("1d", (A(4), A(3), A(2, 4, 3), A(2))))]
BILINEAR += [Case("bilinear_float32", _bilinear, A(3, 4, dtype="float32"), A(3, 5, dtype="float32"),
                  A(2, 4, 5, dtype="float32"), A(2, dtype="float32")),
             Case("bilinear_module", lambda T, x1, x2: _seeded(T, lambda: T.nn.Bilinear(4, 3, 2))(x1, x2),
                  A(5, 4, dtype="float32"), A(5, 3, dtype="float32")),
             Case("bilinear_module_no_bias_float32",
                  lambda T, x1, x2: _seeded(T, lambda: T.nn.Bilinear(4, 3, 2, False))(x1, x2),
                  A(2, 5, 4, dtype="float32"), A(2, 5, 3, dtype="float32"))]


def _seeded(T, make):
    """A module made after manual_seed, in the inputs' dtype: its initial values are PyTorch's."""
    T.manual_seed(3)
    return make()


@pytest.mark.parametrize("case", BILINEAR, ids=[c.name for c in BILINEAR])
def test_bilinear(case):
    oracle.check_forward(case)
    oracle.check_graph(case)
    oracle.check_saved_names(case)
    oracle.check_backward(case)
    oracle.check_double_backward(case)


BILINEAR_ERRORS = [
    ("bilinear_dims", lambda T: T.nn.functional.bilinear(_t(T, 2, 3), _t(T, 3), _t(T, 1, 3, 3))),
    ("bilinear_batch", lambda T: T.nn.functional.bilinear(_t(T, 2, 3), _t(T, 4, 3), _t(T, 1, 3, 3))),
    ("bilinear_input1", lambda T: T.nn.functional.bilinear(_t(T, 2, 3), _t(T, 2, 3), _t(T, 1, 4, 3))),
    ("bilinear_input2", lambda T: T.nn.functional.bilinear(_t(T, 2, 3), _t(T, 2, 3), _t(T, 1, 3, 4))),
    ("bilinear_bias", lambda T: T.nn.functional.bilinear(_t(T, 2, 3), _t(T, 2, 3), _t(T, 2, 3, 3), _t(T, 3))),
    ("bilinear_module_zero", lambda T: T.nn.Bilinear(0, 2, 3)),
    ("bilinear_dtypes", lambda T: T.nn.functional.bilinear(T.ones(2, 3, dtype=T.float64), _t(T, 3), _t(T, 1, 3, 3))),
    ("bilinear_dtypes_bias", lambda T: T.nn.functional.bilinear(T.ones(2, 3, dtype=T.float16), T.ones(
        2, 3, dtype=T.long), T.ones(1, 3, 3, dtype=T.bfloat16), _t(T, 1))),
]


@pytest.mark.parametrize("name,fn", BILINEAR_ERRORS, ids=[e[0] for e in BILINEAR_ERRORS])
def test_bilinear_errors(name, fn):
    test_errors(name, fn)


def test_bilinear_module_repr_and_init():
    for bias in (True, False):
        gt.manual_seed(5)
        torch.manual_seed(5)
        ours, theirs = gt.nn.Bilinear(3, 4, 2, bias), torch.nn.Bilinear(3, 4, 2, bias)
        assert repr(ours) == repr(theirs)
        for (name, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert name and a.tolist() == b.tolist()
