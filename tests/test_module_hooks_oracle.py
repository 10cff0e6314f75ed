"""Module backward hooks against real PyTorch: full hooks and pre-hooks (their
BackwardHookFunctionBackward nodes, the gradients they see and may replace, their errors
and their warning when no input needs a gradient), and the deprecated register_backward_hook
with the FutureWarnings that say why its gradients are not the module's."""
import warnings

import pytest

import gradviz.torch as gtorch

torch = pytest.importorskip("torch")


def observations(torch):
    out=[]
    P=lambda *a: out.append(" ".join(str(x) for x in a))
    shp=lambda gs: [None if g is None else tuple(g.shape) for g in gs]
    torch.manual_seed(0)
    lin=torch.nn.Linear(3,2)
    lin.register_full_backward_hook(lambda m,gi,go: P("full", shp(gi), shp(go)))
    lin.register_full_backward_pre_hook(lambda m,go: P("pre", shp(go)))
    x=torch.ones(4,3)
    y=lin(x)
    P(type(y.grad_fn).__name__, [type(n).__name__ for n,_ in y.grad_fn.next_functions], y.is_leaf, y.requires_grad)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y.sum().backward()
    P([str(x.message)[:60] for x in w])
    x=torch.ones(4,3,requires_grad=True)
    y=lin(x); P([type(n).__name__ for n,_ in y.grad_fn.next_functions[0][0].next_functions])
    y.sum().backward(); P(x.grad)
    # hook replacing grad_input
    l3=torch.nn.Linear(3,2)
    l3.register_full_backward_hook(lambda m,gi,go: (gi[0]*10,))
    l3.register_full_backward_pre_hook(lambda m,go: (go[0]*2,))
    x=torch.ones(1,3,requires_grad=True); l3(x).sum().backward(); P(x.grad, l3.bias.grad)
    bad=torch.nn.Linear(3,2); bad.register_full_backward_hook(lambda m,gi,go: (gi[0],gi[0]))
    x=torch.ones(1,3,requires_grad=True)
    try: bad(x).sum().backward()
    except Exception as e: P(type(e).__name__, e)
    l2=torch.nn.Linear(3,2)
    l2.register_backward_hook(lambda m,gi,go: P("old", shp(gi), shp(go)))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y=l2(x); P(type(y.grad_fn).__name__)
        y.sum().backward()
    P([(x.category.__name__, str(x.message)[:70]) for x in w])
    try: l2.register_full_backward_hook(lambda *a: None)
    except Exception as e: P(type(e).__name__, e)
    s=torch.nn.Sequential(torch.nn.Linear(3,2), torch.nn.ReLU())
    s[1].register_backward_hook(lambda m,gi,go: P("relu old", shp(gi), shp(go)))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y=s(x); y.sum().backward()
    P([(x.category.__name__, str(x.message)[:70]) for x in w])
    P(lin._is_full_backward_hook, l2._is_full_backward_hook, torch.nn.Linear(1,1)._is_full_backward_hook, len(lin._backward_hooks))
    h=lin.register_full_backward_hook(lambda *a: None); P(len(lin._backward_hooks)); h.remove(); P(len(lin._backward_hooks))
    # tuple-output module
    class Two(torch.nn.Module):
        def forward(self, a, k):
            return a*2, a*k
    t=Two(); t.register_full_backward_hook(lambda m,gi,go: P("two", shp(gi), shp(go)))
    a=torch.ones(2,requires_grad=True); o=t(a, 3.0); (o[0].sum()+o[1].sum()).backward(); P(a.grad)
    # nothing requires grad
    lin4=torch.nn.Linear(2,2); lin4.requires_grad_(False); lin4.register_full_backward_hook(lambda *a: P("never"))
    y=lin4(torch.ones(1,2)); P(y.requires_grad, y.grad_fn)
    return out


def test_module_backward_hooks_as_pytorchs():
    ours, theirs = observations(gtorch), observations(torch)
    assert len(theirs) == 22
    assert ours == theirs
