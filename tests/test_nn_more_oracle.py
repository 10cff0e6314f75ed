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
globals().update(oracle.case_tests(CASES))


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
    oracle.check_error(name, fn)


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


# ---------------------------------------------------------------------------------------
# embedding_bag
def _bag(mode, indices, offsets=None, *, psw=False, **kwargs):
    def fn(T, weight, *rest):
        index = T.tensor(indices)
        starts = None if offsets is None else T.tensor(offsets)
        weights = rest[0] if psw else None
        return T.nn.functional.embedding_bag(index, weight, starts, mode=mode, per_sample_weights=weights, **kwargs)
    return fn


_IDX = [1, 2, 4, 5, 4, 3, 2, 9, 0, 7]
BAGS = [
    ("sum", _bag("sum", _IDX, [0, 4, 7]), ()), ("mean", _bag("mean", _IDX, [0, 4, 7]), ()),
    ("max", _bag("max", _IDX, [0, 4, 7]), ()),
    ("mean_empty_bag", _bag("mean", _IDX, [0, 3, 3, 8]), ()), ("max_empty_bag", _bag("max", _IDX, [0, 3, 3, 8]), ()),
    ("sum_last_offset", _bag("sum", _IDX, [0, 4, 7, 9], include_last_offset=True), ()),
    ("mean_last_offset", _bag("mean", _IDX, [0, 2, 10], include_last_offset=True), ()),
    ("mean_last_offset_short", _bag("mean", _IDX, [0, 2, 6], include_last_offset=True), ()),
    ("max_last_offset_short", _bag("max", _IDX, [0, 2, 6], include_last_offset=True), ()),
    ("sum_psw", _bag("sum", _IDX, [0, 4, 7], psw=True), ((10,),)),
    ("sum_psw_padding", _bag("sum", _IDX, [0, 4, 7], psw=True, padding_idx=2), ((10,),)),
    ("mean_padding", _bag("mean", _IDX, [0, 4, 7], padding_idx=4), ()),
    ("max_padding", _bag("max", _IDX, [0, 4, 7], padding_idx=-1), ()),
    ("sum_2d", _bag("sum", [[1, 2, 3], [4, 4, 0]]), ()), ("mean_2d", _bag("mean", [[1, 2, 3], [4, 4, 0]]), ()),
    ("max_2d", _bag("max", [[1, 2, 3], [4, 9, 0]]), ()),
    ("sum_2d_psw", _bag("sum", [[1, 2, 3], [4, 4, 0]], psw=True), ((2, 3),)),
    ("sum_scale_freq_distinct", _bag("sum", [3, 1, 4, 0, 5, 9, 2], [0, 4], scale_grad_by_freq=True), ()),
]
EMBEDDING_BAG = [Case(f"embedding_bag_{name}_s{seed}", fn, A(10, 3, kind="d"), *(A(*s, kind="p") for s in extra))
                 for name, fn, extra in BAGS for seed in SEEDS[:2]]
# float32 runs ATen's vectorised path, whose gradient for entries past a last offset short of
# the input's end reads memory it never wrote (PyTorch's bug): those cases check the forward.
EMBEDDING_BAG += [Case(f"embedding_bag_{name}_float32", fn, A(10, 3, kind="d", dtype="float32"),
                       *(A(*s, kind="p", dtype="float32") for s in extra), grad="last_offset" not in name)
                  for name, fn, extra in BAGS]


# PyTorch's CPU kernel scales a repeated index's gradient by a frequency that is not the
# index's own count (a position mix-up in its sorted pass); the engine divides by the
# count. Kept visible until the engine reproduces ATen's order.
_SCALE_BY_FREQ_GAP = pytest.mark.xfail(strict=True, reason="scale_grad_by_freq with repeated indices: ATen's scaling")
EMBEDDING_BAG += [pytest.param(Case(f"embedding_bag_{mode}_scale_freq_repeats", _bag(
    mode, _IDX, [0, 4, 7], scale_grad_by_freq=True), A(10, 3, kind="d")), marks=[_SCALE_BY_FREQ_GAP],
    id=f"embedding_bag_{mode}_scale_freq_repeats") for mode in ("sum", "mean")]


@pytest.mark.parametrize("case", EMBEDDING_BAG, ids=[getattr(c, "name", None) for c in EMBEDDING_BAG])
def test_embedding_bag(case):
    oracle.check_forward(case)
    oracle.check_graph(case)
    oracle.check_saved_names(case)
    if case.grad:
        oracle.check_backward(case)
        oracle.check_double_backward(case)


def _bag_module(T, index, offsets=None, **kwargs):
    T.manual_seed(4)
    module = T.nn.EmbeddingBag(8, 3, **kwargs)
    return module, module(T.tensor(index), None if offsets is None else T.tensor(offsets))


@pytest.mark.parametrize("kwargs", [{}, {"mode": "sum", "padding_idx": 0}, {"mode": "max", "max_norm": 1.0},
                                    {"padding_idx": -2, "include_last_offset": True, "norm_type": 3.0},
                                    {"mode": "sum", "include_last_offset": True}])
def test_embedding_bag_module(kwargs):
    index, offsets = [1, 0, 6, 3, 3, 7, 2], [0, 2, 5, 7]
    (ours, out_g), (theirs, out_t) = _bag_module(gt, index, offsets, **kwargs), _bag_module(torch, index, offsets,
                                                                                            **kwargs)
    assert repr(ours) == repr(theirs)
    assert str(type(ours)) == str(type(theirs))
    diffs = []
    oracle.compare_tensor("output", out_g, out_t, diffs)
    out_g.sum().backward()
    out_t.sum().backward()
    oracle.compare_tensor("weight.grad", ours.weight.grad, theirs.weight.grad, diffs)
    oracle.compare_tensor("weight", ours.weight.detach(), theirs.weight.detach(), diffs)
    oracle.assert_no_diffs(diffs, "EmbeddingBag")


def _i(T, *values):
    return T.tensor(list(values))


BAG_ERRORS = [
    ("embedding_bag_psw_shape", lambda T: T.nn.functional.embedding_bag(_i(T, 1, 2), _t(T, 4, 2), _i(T, 0),
                                                                        per_sample_weights=_t(T, 3), mode="sum")),
    ("embedding_bag_weight_rank", lambda T: T.nn.functional.embedding_bag(_i(T, 1, 2), _t(T, 4), _i(T, 0))),
    ("embedding_bag_2d_offsets", lambda T: T.nn.functional.embedding_bag(_i(T, 1, 2).view(1, 2), _t(T, 4, 2),
                                                                         _i(T, 0))),
    ("embedding_bag_no_offsets", lambda T: T.nn.functional.embedding_bag(_i(T, 1, 2), _t(T, 4, 2))),
    ("embedding_bag_offsets_rank", lambda T: T.nn.functional.embedding_bag(_i(T, 1, 2), _t(T, 4, 2),
                                                                           _i(T, 0).view(1, 1))),
    ("embedding_bag_input_rank", lambda T: T.nn.functional.embedding_bag(_i(T, 1, 2).view(1, 1, 2), _t(T, 4, 2))),
    ("embedding_bag_mode", lambda T: T.nn.functional.embedding_bag(_i(T, 1, 2), _t(T, 4, 2), _i(T, 0), mode="min")),
    ("embedding_bag_max_scale", lambda T: T.nn.functional.embedding_bag(_i(T, 1, 2), _t(T, 4, 2), _i(T, 0),
                                                                        mode="max", scale_grad_by_freq=True)),
    ("embedding_bag_max_sparse", lambda T: T.nn.functional.embedding_bag(_i(T, 1, 2), _t(T, 4, 2), _i(T, 0),
                                                                         mode="max", sparse=True)),
    ("embedding_bag_psw_mode", lambda T: T.nn.functional.embedding_bag(_i(T, 1, 2), _t(T, 4, 2), _i(T, 0),
                                                                       per_sample_weights=_t(T, 2))),
    ("embedding_bag_module_padding", lambda T: T.nn.EmbeddingBag(4, 2, padding_idx=4)),
]


@pytest.mark.parametrize("name,fn", BAG_ERRORS, ids=[e[0] for e in BAG_ERRORS])
def test_embedding_bag_errors(name, fn):
    test_errors(name, fn)
