"""torch.func.vmap's graphs, gradviz.torch against real PyTorch: an elementwise function
mapped at dim 0 gives the batched op's node (MulBackward0, SinBackward0...) with PyTorch's
edges, values and gradients. Functions the engine still maps by looping (reductions,
matmul, views, other in_dims / out_dims, chunks: docs/limits.md) are checked for their
values and gradients only."""
import pytest

import oracle

pytest.importorskip("torch")

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def _chain(out):
    """Node names from ``out`` along first edges, then each node's edges' names."""
    names, node = [], out.grad_fn
    while node is not None and len(names) < 8:
        names.append((node.name(), [None if fn is None else fn.name() for fn, _ in node.next_functions]))
        node = node.next_functions[0][0] if node.next_functions else None
    return names


def _elementwise(T, w):
    return {
        "x * 2": lambda t: t * 2, "sin": lambda t: t.sin(), "sin * 2": lambda t: t.sin() * 2,
        "exp - 1": lambda t: t.exp() - 1, "relu": T.relu, "tanh": lambda t: t.tanh(), "neg": lambda t: -t,
        "pow": lambda t: t ** 2, "clone": lambda t: t.clone(), "identity": lambda t: t,
        "closure": lambda t: t * w, "sigmoid + where": lambda t: T.where(t > 0, t.sigmoid(), t * 0.5),
        "tuple": lambda t: (t * 2, t.cos()), "gelu": T.nn.functional.gelu,
    }


@scenario
def elementwise_functions_give_the_batched_node(T, L):
    w = L.randn(3, requires_grad=True)
    for shape in [(4, 3), (2, 3), (1, 3), (5, 2, 3)]:
        for name, fn in _elementwise(T, w).items():
            x = L.randn(*shape, requires_grad=True)
            out = T.func.vmap(fn)(x)
            outs = out if isinstance(out, tuple) else (out,)
            for k, o in enumerate(outs):
                L(f"{name} {shape} [{k}]", o)
                L(f"{name} {shape} [{k}] chain", _chain(o))
            sum(o.sum() for o in outs).backward()
            L(f"{name} {shape} grad", x.grad)
            L(f"{name} {shape} closure grad", w.grad)
            w.grad = None


@scenario
def several_mapped_and_unmapped_inputs(T, L):
    x, y = L.randn(4, 3, requires_grad=True), L.randn(4, 1, requires_grad=True)
    z = L.randn(3, requires_grad=True)
    for name, (fn, in_dims, args) in {
            "a * b": (lambda a, b: a * b, 0, (x, y)),
            "a + c, c unmapped": (lambda a, c: a + c, (0, None), (x, z)),
            "a * scalar arg": (lambda a, s: a * s, (0, None), (x, 1.5)),
            "nested vmap": (lambda a: T.func.vmap(lambda r: r.sin())(a), 0, (x,)),
            "input without grad": (lambda a, b: a * b, 0, (x.detach(), y))}.items():
        out = T.func.vmap(fn, in_dims=in_dims)(*args)
        L(name, out)
        L(name + " chain", _chain(out))
        out.pow(2).sum().backward()
        L(name + " grads", [x.grad, y.grad, z.grad])
        x.grad = y.grad = z.grad = None


@scenario
def looped_functions_keep_values_and_gradients(T, L):
    w = L.randn(3, 2, requires_grad=True)
    x = L.randn(4, 3, requires_grad=True)
    for name, (fn, kwargs) in {
            "matmul": (lambda t: t @ w, {}), "sum": (lambda t: t.sum(), {}), "dot": (lambda t: T.dot(t, t), {}),
            "softmax": (lambda t: t.softmax(0), {}), "in_dims=1": (lambda t: t * 2, {"in_dims": 1}),
            "out_dims=1": (lambda t: t.sin(), {"out_dims": 1}), "chunk_size=3": (lambda t: t * 2, {"chunk_size": 3}),
            "view": (lambda t: t.view(3, 1) * 2, {})}.items():
        out = T.func.vmap(fn, **kwargs)(x)
        L(name, out, names=False)  # the loop's StackBackward0 / CatBackward0 is not PyTorch's node
        out.pow(2).sum().backward()
        L(name + " grads", [x.grad, w.grad])
        x.grad = w.grad = None


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario(name):
    oracle.compare_scenario(SCENARIOS[name])
