"""PyTorch's hooks common to all modules (torch.nn.modules.module.register_module_forward_pre_hook
and register_module_forward_hook) against real PyTorch: their order around the modules' own
hooks, replaced args and outputs, with_kwargs, always_call when a forward raises, and removal."""
import warnings

import pytest

import gradviz.torch as gtorch

torch = pytest.importorskip("torch")


def observations(torch):
    mm = torch.nn.modules.module

    out = []
    P = lambda *a: out.append(" ".join(str(x) for x in a))  # noqa: E731
    name = lambda m: type(m).__name__  # noqa: E731
    shp = lambda xs: [tuple(x.shape) if isinstance(x, torch.Tensor) else x for x in xs]  # noqa: E731
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    net[0].register_forward_pre_hook(lambda m, a: P("own pre", name(m), shp(a)))
    net[0].register_forward_hook(lambda m, a, o: P("own post", name(m), tuple(o.shape)))
    h1 = mm.register_module_forward_pre_hook(lambda m, a: P("global pre", name(m), shp(a)))
    h2 = mm.register_module_forward_hook(lambda m, a, o: P("global post", name(m), shp(a), tuple(o.shape)))
    try:
        y = net(torch.ones(4, 3))
        P(tuple(y.shape), type(y.grad_fn).__name__)
    finally:
        h1.remove()
        h2.remove()
    net(torch.ones(1, 3))  # removed: only the module's own hooks
    # a pre-hook replacing the args (a single value is wrapped in a tuple), a hook the output
    lin = torch.nn.Linear(3, 3)
    h1 = mm.register_module_forward_pre_hook(lambda m, a: a[0] * 0)
    h2 = mm.register_module_forward_hook(lambda m, a, o: o + 1)
    try:
        P(lin(torch.ones(2, 3)).tolist() == (lin.bias + 1).expand(2, 3).tolist())
    finally:
        h1.remove()
        h2.remove()
    # with_kwargs
    class KW(torch.nn.Module):
        def forward(self, x, scale=1.0):
            return x * scale
    h = mm.register_module_forward_hook(lambda m, a, kw, o: P("kw", name(m), shp(a), sorted(kw), o.tolist()),
                                        with_kwargs=True)
    try:
        KW()(torch.ones(2), scale=3.0)
    finally:
        h.remove()
    # always_call: runs when forward raises, the error still raised; others do not run
    class Bad(torch.nn.Module):
        def forward(self, x):
            raise ValueError("boom")
    bad = Bad()
    bad.register_forward_hook(lambda m, a, o: P("own always", name(m), o), always_call=True)
    h1 = mm.register_module_forward_hook(lambda m, a, o: P("global always", name(m), shp(a), o), always_call=True)
    h2 = mm.register_module_forward_hook(lambda m, a, o: P("global never", name(m)))
    try:
        outer = torch.nn.Sequential(torch.nn.Identity(), bad)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                outer(torch.ones(2))
            except ValueError as e:
                P("raised", e)
        P([str(x.message)[:40] for x in w])
    finally:
        h1.remove()
        h2.remove()
    # an always_call hook that raises too: a warning, the forward's error wins
    h = mm.register_module_forward_hook(lambda m, a, o: 1 / 0, always_call=True)
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                Bad()(torch.ones(2))
            except ValueError as e:
                P("raised", e)
        P([str(x.message)[:60] for x in w])
    finally:
        h.remove()
    P(len(mm._global_forward_hooks), len(mm._global_forward_pre_hooks), len(mm._global_forward_hooks_always_called))
    return out


def test_global_module_hooks_as_pytorchs():
    ours, theirs = observations(gtorch), observations(torch)
    assert len(theirs) >= 14
    assert ours == theirs
