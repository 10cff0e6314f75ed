"""The meta device against PyTorch 2.13: the same lambda runs on gradviz and on PyTorch, and
what comes back is compared as PyTorch shows it: each tensor's repr (device, size, dtype,
grad_fn / requires_grad suffixes), shape, dtype, device and is_meta; each error's type and
message verbatim. Meta tensors have no values, so nothing else can differ."""
import warnings

import pytest

import gradviz.torch as gt


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _describe(value):
    """What a result shows, as plain data: tensors by their metadata and repr."""
    if isinstance(value, (tuple, list)):
        return [type(value).__name__, [_describe(v) for v in value]]
    if hasattr(value, "is_meta") and hasattr(value, "grad_fn"):
        grad_fn = value.grad_fn
        return ("tensor", repr(value), tuple(value.shape), str(value.dtype), str(value.device), value.is_meta,
                None if grad_fn is None else type(grad_fn).__name__, value.requires_grad, value.is_leaf)
    if hasattr(value, "type") and type(value).__name__ == "device":
        return ("device", repr(value), str(value), value.type, value.index)
    return ("value", repr(value))


def _run(T, case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _describe(case(T))
        except Exception as exc:  # the error is part of the behaviour compared
            return ("error", type(exc).__name__, str(exc))


def _m(T, *shape, **kw):
    return T.ones(*shape, device="meta", **kw)


# (name, lambda T: ...) run on each engine
CREATION = [
    ("device", lambda T: T.device("meta")),
    ("device-index", lambda T: T.device("meta:0")),
    ("device-of", lambda T: _m(T, 2, 3).device),
    ("device-type", lambda T: _m(T, 2).device.type == "meta"),
    ("is_meta", lambda T: (_m(T, 2).is_meta, T.ones(2).is_meta)),
    ("empty", lambda T: T.empty(2, 3, device="meta")),
    ("empty-size-kw", lambda T: T.empty(size=(4,), device=T.device("meta"))),
    ("zeros-f64", lambda T: T.zeros(2, 3, device="meta", dtype=T.float64)),
    ("ones-i64", lambda T: T.ones(3, device="meta", dtype=T.int64)),
    ("ones-bool", lambda T: T.ones(2, 2, device="meta", dtype=T.bool)),
    ("ones-f16", lambda T: T.ones(2, device="meta", dtype=T.float16)),
    ("ones-i32", lambda T: T.ones(2, device="meta", dtype=T.int32)),
    ("ones-c64", lambda T: T.ones(2, device="meta", dtype=T.complex64)),
    ("zero-dim", lambda T: T.ones((), device="meta")),
    ("empty-1d", lambda T: T.ones(0, device="meta")),
    ("empty-2d-i64", lambda T: T.ones(0, 3, device="meta", dtype=T.int64)),
    ("huge", lambda T: T.empty(10 ** 6, 10 ** 6, device="meta")),
    ("randn", lambda T: T.randn(2, 3, device="meta")),
    ("rand", lambda T: T.rand(4, device="meta")),
    ("randint", lambda T: T.randint(0, 5, (2,), device="meta")),
    ("full", lambda T: T.full((2,), 3, device="meta")),
    ("full-float", lambda T: T.full((2, 2), 1.5, device="meta")),
    ("arange", lambda T: T.arange(5, device="meta")),
    ("arange-float", lambda T: T.arange(0, 1, 0.25, device="meta")),
    ("linspace", lambda T: T.linspace(0, 1, 5, device="meta")),
    ("eye", lambda T: T.eye(3, device="meta")),
    ("tensor", lambda T: T.tensor([1, 2], device="meta")),
    ("requires-grad", lambda T: T.ones(2, 3, device="meta", requires_grad=True)),
    ("empty_like-cpu", lambda T: T.empty_like(T.ones(2, 3), device="meta")),
    ("zeros_like-meta", lambda T: T.zeros_like(_m(T, 2, 3))),
    ("ones_like-dtype", lambda T: T.ones_like(_m(T, 2, 3), dtype=T.float64)),
    ("randn_like", lambda T: T.randn_like(_m(T, 2, 3))),
    ("full_like", lambda T: T.full_like(_m(T, 2), 7)),
    ("new_zeros", lambda T: _m(T, 2).new_zeros(3)),
    ("new_ones-cpu", lambda T: _m(T, 2).new_ones(3, device="cpu")),
    ("new_full", lambda T: _m(T, 2).new_full((2, 2), 1.0)),
    ("to-meta", lambda T: T.ones(2, 3).to("meta")),
    ("to-device-kw", lambda T: T.ones(2, 3).to(device="meta")),
    ("to-device-obj", lambda T: T.ones(2, 3).to(T.device("meta"))),
    ("to-meta-dtype", lambda T: T.ones(2, 3).to("meta", T.float64)),
    ("to-meta-same", lambda T: (lambda m: m.to("meta") is m)(_m(T, 2))),
    ("to-like", lambda T: T.ones(2, 3).to(_m(T, 1, dtype=T.float64))),
    ("to-meta-grad", lambda T: T.ones(2, 3, requires_grad=True).to("meta")),
    ("to-dtype-on-meta", lambda T: _m(T, 2, 3).to(T.int64)),
    ("double-on-meta", lambda T: _m(T, 2, 3).double()),
    ("grad-mul", lambda T: _m(T, 2, 3, requires_grad=True) * 2),
    ("stride", lambda T: _m(T, 2, 3, 4).stride()),
    ("is_contiguous", lambda T: _m(T, 2, 3).is_contiguous()),
    ("numel-dim", lambda T: (_m(T, 2, 3).numel(), _m(T, 2, 3).dim(), len(_m(T, 4, 2)))),
    ("element_size", lambda T: _m(T, 2, dtype=T.float64).element_size()),
    ("format-0d", lambda T: format(T.ones((), device="meta"))),
    ("str", lambda T: str(_m(T, 2, 3))),
]


def _linear(T):
    layer = T.nn.Linear(3, 4, device="meta")
    return layer, layer.weight, layer(_m(T, 2, 3))


def _backward(T):
    x = _m(T, 2, 3, requires_grad=True)
    (x * 2).sum().backward()
    return x.grad


def _context(T):
    with T.device("meta"):
        layer = T.nn.Linear(3, 4)
        inside = T.ones(2)
        like = T.zeros_like(T.tensor([1.0]))
    return layer.weight, layer.bias, inside, like, T.ones(1)


def _to_empty(T):
    layer = T.nn.Linear(3, 4, device="meta").to_empty(device="cpu")
    return tuple(layer.weight.shape), str(layer.weight.dtype), str(layer.weight.device), layer.weight.requires_grad


OPS = [
    ("add", lambda T: _m(T, 2, 3) + _m(T, 3)),
    ("mul-scalar", lambda T: _m(T, 2, 3) * 2.5),
    ("int-float", lambda T: _m(T, 2, dtype=T.int64) * 1.5),
    ("int-div", lambda T: _m(T, 2, dtype=T.int64) / 2),
    ("int-floordiv-zero", lambda T: _m(T, 2, dtype=T.int64) // 0),
    ("compare", lambda T: _m(T, 2, 3) > 0),
    ("exp-log", lambda T: _m(T, 2, 3).exp().log()),
    ("f64+f32", lambda T: _m(T, 2, dtype=T.float64) + _m(T, 2)),
    ("broadcast", lambda T: _m(T, 4, 1, 3) - _m(T, 2, 1)),
    ("broadcast-error", lambda T: _m(T, 2, 3) + _m(T, 4)),
    ("cpu-scalar-right", lambda T: _m(T, 2, 3) + T.tensor(1.0)),
    ("cpu-scalar-left", lambda T: T.tensor(1.0) + _m(T, 2, 3)),
    ("pow", lambda T: _m(T, 3) ** 2),
    ("where", lambda T: T.where(_m(T, 2, 3) > 0, _m(T, 2, 3), 0.0)),
    ("matmul", lambda T: _m(T, 2, 3) @ _m(T, 3, 4)),
    ("bmm", lambda T: _m(T, 5, 2, 3) @ _m(T, 3, 4)),
    ("mv", lambda T: _m(T, 2, 3) @ _m(T, 3)),
    ("linear", lambda T: T.nn.functional.linear(_m(T, 2, 3), _m(T, 4, 3), _m(T, 4))),
    ("sum", lambda T: _m(T, 2, 3).sum()),
    ("sum-dim", lambda T: _m(T, 2, 3).sum(0, keepdim=True)),
    ("sum-int", lambda T: _m(T, 2, 3, dtype=T.int32).sum()),
    ("mean", lambda T: _m(T, 2, 3).mean(-1)),
    ("max-dim", lambda T: _m(T, 2, 3).max(0)),
    ("max", lambda T: _m(T, 2, 3).max()),
    ("argmax", lambda T: _m(T, 2, 3).argmax()),
    ("argmax-dim", lambda T: _m(T, 2, 3).argmax(1)),
    ("var", lambda T: _m(T, 4, 3).var(0)),
    ("norm", lambda T: _m(T, 4, 3).norm()),
    ("view", lambda T: _m(T, 2, 3).view(3, 2)),
    ("view-infer", lambda T: _m(T, 2, 3).view(-1)),
    ("reshape", lambda T: _m(T, 2, 3, 4).reshape(6, -1)),
    ("reshape-error", lambda T: _m(T, 2, 3).reshape(4, 2)),
    ("permute", lambda T: _m(T, 2, 3, 4).permute(2, 0, 1)),
    ("t", lambda T: _m(T, 2, 3).t()),
    ("transpose", lambda T: _m(T, 2, 3, 4).transpose(0, 2)),
    ("unsqueeze-squeeze", lambda T: _m(T, 2, 1, 3).squeeze(1).unsqueeze(0)),
    ("expand", lambda T: _m(T, 3, 1).expand(3, 4)),
    ("flatten", lambda T: _m(T, 2, 3, 4).flatten(1)),
    ("index", lambda T: _m(T, 4, 3)[1:, 0]),
    ("index-int", lambda T: _m(T, 4, 3)[2]),
    ("chunk", lambda T: _m(T, 4, 3).chunk(2)),
    ("cat", lambda T: T.cat([_m(T, 2, 3), _m(T, 4, 3)])),
    ("cat-dim", lambda T: T.cat([_m(T, 2, 3), _m(T, 2, 1)], dim=1)),
    ("stack", lambda T: T.stack([_m(T, 2, 3), _m(T, 2, 3)], dim=1)),
    ("softmax", lambda T: _m(T, 2, 3).softmax(-1)),
    ("log_softmax", lambda T: T.nn.functional.log_softmax(_m(T, 2, 3), dim=0)),
    ("relu", lambda T: T.relu(_m(T, 2, 3))),
    ("conv2d", lambda T: T.nn.functional.conv2d(_m(T, 1, 2, 6, 5), _m(T, 4, 2, 3, 3), padding=1)),
    ("conv2d-stride", lambda T: T.nn.functional.conv2d(_m(T, 2, 1, 8, 8), _m(T, 3, 1, 3, 3), stride=2)),
    ("mse", lambda T: T.nn.functional.mse_loss(_m(T, 2, 3), _m(T, 2, 3))),
    ("clone", lambda T: _m(T, 2, 3).clone()),
    ("contiguous", lambda T: _m(T, 2, 3).t().contiguous()),
    ("detach", lambda T: _m(T, 2, requires_grad=True).detach()),
    ("eq-meta", lambda T: _m(T, 2, 3) == _m(T, 2, 3)),
    ("grad-chain", lambda T: (_m(T, 2, 3, requires_grad=True).exp() * 3).sum()),
    ("grad-matmul", lambda T: _m(T, 2, 3, requires_grad=True) @ _m(T, 3, 2)),
    ("grad-view", lambda T: _m(T, 2, 3, requires_grad=True).t()),
    ("inplace-add", lambda T: _m(T, 2, 3).add_(1)),
    ("inplace-add-meta", lambda T: _m(T, 2, 3).mul_(_m(T, 3))),
    ("zero_", lambda T: _m(T, 2, 3).zero_()),
    ("uniform_", lambda T: _m(T, 2, 3).uniform_()),
    ("normal_", lambda T: _m(T, 2, 3).normal_()),
    ("fill_", lambda T: _m(T, 2, 3).fill_(2.0)),
    ("setitem", lambda T: (lambda m: (m.__setitem__(0, 5.0), m)[1])(_m(T, 2, 3))),
    ("copy_-from-cpu", lambda T: _m(T, 2, 3).copy_(T.ones(2, 3))),
    ("linear-module", _linear),
    ("conv-module", lambda T: T.nn.Conv2d(2, 3, 3, device="meta")(_m(T, 1, 2, 5, 5))),
    ("layernorm-module", lambda T: T.nn.LayerNorm(3, device="meta")(_m(T, 2, 3))),
    ("sequential", lambda T: T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2)).to("meta")(
        _m(T, 5, 3))),
    ("module-to-meta", lambda T: list(T.nn.Linear(3, 4).to("meta").parameters())),
    ("module-param-repr", lambda T: repr(T.nn.Linear(3, 4, device="meta").weight)),
    ("module-to-empty", _to_empty),
    ("context", _context),
    ("backward", _backward),
    ("autograd-grad", lambda T: T.autograd.grad((_m(T, 2, requires_grad=True) ** 2).sum(),
                                                [T.ones(2, device="meta", requires_grad=True)], allow_unused=True)),
]


def _grad_of(T):
    x = _m(T, 2, 3, requires_grad=True)
    return T.autograd.grad((x * x).sum(), x)


OPS.append(("autograd-grad-meta", _grad_of))

ERRORS = [
    ("item", lambda T: T.ones((), device="meta").item()),
    ("item-many", lambda T: _m(T, 2, 3).item()),
    ("tolist", lambda T: _m(T, 2, 3).tolist()),
    ("numpy", lambda T: _m(T, 2, 3).numpy()),
    ("numpy-grad", lambda T: _m(T, 2, 3, requires_grad=True).numpy()),
    ("float", lambda T: float(T.ones((), device="meta"))),
    ("float-many", lambda T: float(_m(T, 2, 3))),
    ("int", lambda T: int(T.ones((), device="meta"))),
    ("bool", lambda T: bool(T.ones((), device="meta"))),
    ("bool-many", lambda T: bool(_m(T, 2, 3))),
    ("contains", lambda T: 1 in _m(T, 2, 3)),
    ("to-cpu", lambda T: _m(T, 2, 3).to("cpu")),
    ("to-cpu-kw", lambda T: _m(T, 2, 3).to(device="cpu")),
    ("cpu", lambda T: _m(T, 2, 3).cpu()),
    ("copy-out", lambda T: T.ones(2, 3).copy_(_m(T, 2, 3))),
    ("module-to-cpu", lambda T: T.nn.Linear(3, 4, device="meta").to("cpu")),
    ("mix-meta-cpu", lambda T: _m(T, 2, 3) + T.ones(2, 3)),
    ("mix-cpu-meta", lambda T: T.ones(2, 3) * _m(T, 2, 3)),
    ("mix-cpu-meta-scalar", lambda T: T.ones(2, 3) + T.ones((), device="meta")),
    ("mix-sub-scalar-first", lambda T: T.ones(()) - _m(T, 2)),
    ("mix-cat", lambda T: T.cat([_m(T, 2, 3), T.ones(2, 3)])),
    ("mix-cat-cpu-first", lambda T: T.cat([T.ones(2, 3), _m(T, 2, 3)])),
    ("mix-stack", lambda T: T.stack([T.ones(2, 3), _m(T, 2, 3)])),
    ("mix-where", lambda T: T.where(_m(T, 2, 3) > 0, _m(T, 2, 3), T.ones(2, 3))),
    ("mix-compare", lambda T: _m(T, 3) < T.ones(3)),
    ("mix-matmul-meta-first", lambda T: _m(T, 2, 3) @ T.ones(3, 2)),
    ("mix-linear-meta-input", lambda T: T.nn.functional.linear(_m(T, 2, 3), T.ones(4, 3))),
    ("mix-conv-meta-input", lambda T: T.nn.functional.conv2d(_m(T, 1, 1, 5, 5), T.ones(2, 1, 3, 3))),
]


@pytest.mark.parametrize("name, case", CREATION + OPS + ERRORS, ids=[c[0] for c in CREATION + OPS + ERRORS])
def test_meta_matches_pytorch(torch, name, case):
    assert _run(gt, case) == _run(torch, case)


SHAPES = [(), (0,), (1,), (5,), (2, 3), (3, 1, 4), (2, 0, 3), (2, 3, 4, 5)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool", "float16"])
def test_meta_repr_and_metadata_over_shapes(torch, shape, dtype):
    def case(T):
        t = T.empty(shape, dtype=getattr(T, dtype), device="meta")
        return t, t.stride(), t.numel(), t.is_contiguous()
    assert _run(gt, case) == _run(torch, case)


UNARY = ["exp", "neg", "abs", "sigmoid", "tanh", "sqrt", "sin", "floor", "sign", "logical_not", "isnan"]
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "eq", "lt", "pow", "atan2", "remainder"]
REDUCE = ["sum", "mean", "amax", "prod", "logsumexp", "std", "any", "all"]


# Integer inputs of the ops that compute in floating point are left out: the CPU engine gives
# exp(int64) float64 where PyTorch gives float32 (a CPU gap, not a meta one).
INTEGER_UNARY = ["neg", "abs", "floor", "sign", "logical_not", "isnan"]


@pytest.mark.parametrize("shape", [(3,), (2, 3), (4, 1, 5), (2, 0)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("op", UNARY)
def test_unary_ops_on_meta(torch, op, shape, dtype):
    if dtype == "int64" and op not in INTEGER_UNARY:
        return

    def case(T):
        x = T.empty(shape, dtype=getattr(T, dtype), device="meta")
        return getattr(T, op)(x)
    assert _run(gt, case) == _run(torch, case)


@pytest.mark.parametrize("shapes", [((2, 3), (3,)), ((4, 1), (1, 5)), ((2, 3), (2, 3)), ((), (2,)), ((3,), (4,))],
                         ids=str)
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("int64", "float32"), ("float64", "int32"),
                                    ("bool", "int64")], ids=str)
@pytest.mark.parametrize("op", BINARY)
def test_binary_ops_on_meta(torch, op, shapes, dtypes):
    if dtypes == ("bool", "int64") and op in ("sub", "atan2"):
        # PyTorch's meta sub skips the CPU's refusal of bool operands, and the CPU engine's
        # atan2 of integers gives float64: neither is about devices
        return

    def case(T):
        a = T.empty(shapes[0], dtype=getattr(T, dtypes[0]), device="meta")
        b = T.empty(shapes[1], dtype=getattr(T, dtypes[1]), device="meta")
        return getattr(T, op)(a, b)
    assert _run(gt, case) == _run(torch, case)


@pytest.mark.parametrize("dim", [None, 0, -1, (0, 1)], ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("op", REDUCE)
def test_reductions_on_meta(torch, op, dim, keepdim):
    def case(T):
        x = T.empty(2, 3, 4, device="meta", requires_grad=op not in ("any", "all"))
        if op in ("any", "all"):
            x = x > 0
        if isinstance(dim, tuple) and op == "prod":
            return x.prod(0, keepdim=keepdim).prod(0, keepdim=keepdim)  # prod takes one dim
        if dim is None:
            return getattr(T, op)(x) if op not in ("logsumexp", "amax") else getattr(T, op)(x, (0, 1, 2))
        return getattr(T, op)(x, dim, keepdim=keepdim)
    assert _run(gt, case) == _run(torch, case)


@pytest.mark.parametrize("seed", range(4))
def test_random_factories_on_meta_leave_the_cpu_stream_alone(torch, seed):
    def case(T):
        T.manual_seed(seed)
        T.randn(3, device="meta")
        T.nn.Linear(3, 4, device="meta")
        T.empty(2, 2, device="meta").uniform_()
        return T.randn(4).tolist()
    assert _run(gt, case) == _run(torch, case)
