"""Where gradients lie in memory, gradviz.torch against real PyTorch: ``.grad`` follows
PyTorch's gradient layout contract (AccumulateGrad: a parameter's gradient is strided as
the parameter, or row-major for a parameter that is not dense), mm / addmm give a
column-major operand a column-major gradient, and a retained non-leaf's gradient is a
row-major copy. Each scenario logs strides, contiguity and values over several shapes."""
import pytest

import oracle

pytest.importorskip("torch")

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def _layout(L, label, t):
    L(label + " stride", None if t is None else t.stride())
    L(label + " contiguous", None if t is None else t.is_contiguous())
    L(label, t)


@scenario
def module_parameter_grads(T, L):
    for seed, (n_in, n_out, batch) in enumerate([(3, 2, (4,)), (5, 7, (2, 3)), (1, 4, (6,)), (4, 1, (3,)),
                                                 (6, 6, (1,)), (2, 3, (2, 1, 5))]):
        T.manual_seed(seed)
        for bias in (True, False):
            lin = T.nn.Linear(n_in, n_out, bias=bias).double()
            lin(T.randn(*batch, n_in, dtype=T.float64)).pow(2).sum().backward()
            _layout(L, f"linear {n_in}->{n_out} {batch} bias={bias}: weight", lin.weight.grad)
            L("flat view", lin.weight.grad.view(-1))
            if bias:
                _layout(L, "bias", lin.bias.grad)
    for seed, (cin, cout, k) in enumerate([(2, 3, 3), (1, 4, 1), (3, 2, 2)]):
        T.manual_seed(seed)
        conv = T.nn.Conv2d(cin, cout, k).double()
        conv(T.randn(2, cin, 5, 5, dtype=T.float64)).sum().backward()
        _layout(L, f"conv {cin}->{cout} k={k}: weight", conv.weight.grad)
        T.manual_seed(seed)
        emb = T.nn.Embedding(6, cout).double()
        emb(T.tensor([[1, 2, 1], [5, 0, 2]])).pow(2).sum().backward()
        _layout(L, f"embedding dim {cout}: weight", emb.weight.grad)


@scenario
def leaves_of_every_layout(T, L):
    for k, (shape, make) in enumerate([
            ((3, 4), lambda x: x.t()),                          # transposed
            ((2, 3, 4), lambda x: x.permute(2, 0, 1)),          # permuted
            ((4, 6), lambda x: x[:, ::2]),                      # not dense: row-major gradient
            ((3, 1, 4), lambda x: x.transpose(0, 2)),           # a size-1 dim
            ((5,), lambda x: x[::2]),                           # strided 1-D
            ((3, 4), lambda x: x),                              # contiguous
            ((0, 3), lambda x: x.t())]):                        # empty
        leaf = make(L.randn(*shape)).detach().requires_grad_()
        L(f"leaf {k} stride", leaf.stride())
        for way, f in (("times 2", lambda t: t * 2), ("through t()", lambda t: t.t().t() * 3),
                       ("as contiguous", lambda t: t.contiguous() * 1.5), ("exp", lambda t: t.exp())):
            leaf.grad = None
            f(leaf).sum().backward()
            _layout(L, f"leaf {k} {way}", leaf.grad)
        f(leaf).sum().backward()  # accumulated in place: the layout stays
        _layout(L, f"leaf {k} accumulated", leaf.grad)


@scenario
def matmul_operand_layouts(T, L):
    seen = {}
    for m, k, n in [(4, 3, 5), (1, 3, 2), (3, 1, 4), (2, 5, 1), (3, 3, 3)]:
        for t1 in (False, True):
            for t2 in (False, True):
                a = (L.randn(k, m).t() if t1 else L.randn(m, k)).detach().requires_grad_()
                b = (L.randn(n, k).t() if t2 else L.randn(k, n)).detach().requires_grad_()
                bias = L.randn(n)
                # alpha scales the transposed product elementwise; PyTorch keeps a size-1 dim's stride
                # through that, numpy renumbers it (docs/limits.md), so alpha only without size-1 dims
                alpha = 0.5 if 1 not in (m, k, n) else 1
                for name, out in (("mm", a.mm(b)), ("matmul", a @ b), ("addmm", T.addmm(bias, a, b, alpha=alpha)),
                                  ("linear", T.nn.functional.linear(a, b.t(), bias))):
                    out.grad_fn.register_hook(lambda gi, go: seen.update(gi=[None if g is None else g.stride()
                                                                             for g in gi]))
                    a.grad = b.grad = None
                    out.pow(2).sum().backward()
                    label = f"{name} {m}x{k}x{n} t1={t1} t2={t2}"
                    L(label + " node grads", seen["gi"])
                    _layout(L, label + " a.grad", a.grad)
                    _layout(L, label + " b.grad", b.grad)


@scenario
def retained_and_double_backward_grads(T, L):
    x = L.randn(4, 3).t().detach().requires_grad_()
    y = x * 2
    y.retain_grad()
    z = y.t().contiguous().t()
    z.retain_grad()
    (z * L.randn(3, 4)).sum().backward(create_graph=True)
    _layout(L, "retained y", y.grad)
    _layout(L, "retained z", z.grad)
    _layout(L, "leaf with create_graph", x.grad)
    w = L.randn(3, 5).t().detach().requires_grad_()
    (w * w).sum().backward(create_graph=True)
    _layout(L, "create_graph grad", w.grad)
    L("its node", w.grad.grad_fn)
    x.grad = None
    (x * L.randn(3, 4)).sum().backward(L.randn(()))
    _layout(L, "with a root gradient", x.grad)
    g = L.randn(4, 3)
    x.grad = None
    x.backward(g.t())
    _layout(L, "leaf root, transposed gradient", x.grad)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario(name):
    oracle.compare_scenario(SCENARIOS[name])
