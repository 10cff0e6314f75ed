# Case 18: forward-mode AD: dual levels, dual tensors, tangents through ops and modules,
# custom Functions with jvp, torch.func.jvp, and the errors of misuse
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.autograd.forward_ad as fwAD
# %%
primal = torch.linspace(-2.0, 2.0, 12).reshape(4, 3)
tangent = torch.linspace(0.5, -1.0, 12).reshape(3, 4).t()


def fn(x, y):
    return x ** 2 + y ** 2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    print(dual_input)
    plain_tensor = torch.arange(12.0).reshape(4, 3) / 7
    dual_output = fn(dual_input, plain_tensor)
    unpacked = fwAD.unpack_dual(dual_output)
    print(type(unpacked).__name__, unpacked.tangent is not None)
    jvp = unpacked.tangent
    print(torch.allclose(jvp, 2 * primal * tangent))
    print(fwAD.unpack_dual(plain_tensor))
print(fwAD.unpack_dual(dual_output).tangent)
# %%
with fwAD.dual_level():
    x = fwAD.make_dual(torch.linspace(-1.0, 1.0, 5), torch.ones(5))
    y = torch.tanh(x).exp() * x.sin() - x.mean()
    s = F.softmax(x.view(1, 5) * 2, dim=1)
    ls = F.log_softmax(x.view(1, 5), dim=1)
    y_p, y_t = fwAD.unpack_dual(y)
    s_p, s_t = fwAD.unpack_dual(s)
    ls_p, ls_t = fwAD.unpack_dual(ls)
    print(y_t)
    print(s_t.sum(), ls_t)
# %%
model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
with torch.no_grad():
    for k, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-1.0, 1.0 + k, p.numel()).reshape(p.shape).sin())
inp = torch.linspace(-3.0, 3.0, 12).reshape(4, 3)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.ones_like(p) / (1 + k) for k, (name, p) in enumerate(params.items())}
with torch.no_grad(), fwAD.dual_level():
    dual_params = {name: fwAD.make_dual(p, tangents[name]) for name, p in params.items()}
    out = torch.func.functional_call(model, dual_params, (inp,))
    out_p, out_t = fwAD.unpack_dual(out)
    print(out_t.shape, out_t.requires_grad)
# %%
by_func = torch.func.jvp(model, (inp,), (torch.ones_like(inp),))[1].detach()
with fwAD.dual_level():
    dual_inp = fwAD.make_dual(inp, torch.ones_like(inp))
    out2_p, out2_t = fwAD.unpack_dual(model(dual_inp))
    print(out2_t.requires_grad, out2_p.grad_fn is not None)
    print(torch.allclose(out2_t.detach(), by_func))
# the tangent's and the primal's nodes (AddBackward0 and PyTorch's Identity) are not PyTorch's yet
del out2_p, out2_t
# %%


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO


class ScaledSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_forward(x)
        ctx.k = k
        return x * x * k

    @staticmethod
    def jvp(ctx, x_t, k_t):
        x, = ctx.saved_tensors
        return 2 * ctx.k * x * x_t


fn_primal = torch.linspace(-1.0, 1.0, 100, dtype=torch.double).reshape(10, 10)
fn_tangent = torch.linspace(2.0, -2.0, 100, dtype=torch.double).reshape(10, 10).cos()
with fwAD.dual_level():
    fn_dual = fwAD.make_dual(fn_primal, fn_tangent)
    fn_out = Fn.apply(fn_dual)
    fn_jvp = fwAD.unpack_dual(fn_out).tangent
    sq = ScaledSquare.apply(fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, -1.0])), 3.0)
    print(sq)
print(torch.allclose(fn_jvp, fn_tangent * fn_primal.exp()))
# %%
x0 = torch.tensor([0.5, -1.0, 2.0])
v0 = torch.tensor([1.0, 0.0, -1.0])
func_out, func_tangent = torch.func.jvp(lambda a: a.sin() * a, (x0,), (v0,))
print(func_out, func_tangent)
hvp_p, hvp_t = torch.func.jvp(torch.func.grad(lambda a: (a.cos() * a).sum()), (x0,), (v0,))
print(hvp_t)
print(torch.autograd.functional.jvp(lambda a: a.sin() * a, x0, v0)[1])
# %%
with fwAD.dual_level():
    base = fwAD.make_dual(torch.ones(4), torch.arange(4.0))
    part = base[1:3]
    part.mul_(3)
    print(base)
    with torch.no_grad():
        print(fwAD.unpack_dual(base * 2).tangent)
    print(fwAD.unpack_dual(base.detach()).tangent)
# %%
fwAD.make_dual(torch.ones(2), torch.ones(2))
# %%
with fwAD.dual_level():
    fwAD.make_dual(torch.ones(3), torch.ones(2))
# %%
with fwAD.dual_level():
    fwAD.make_dual(torch.ones(3), torch.ones(3, dtype=torch.long))
# %%
with fwAD.dual_level():
    with fwAD.dual_level():
        pass
# %%
with fwAD.dual_level():
    twice = fwAD.make_dual(torch.ones(3), torch.ones(3))
    fwAD.make_dual(twice, torch.ones(3))
# %%


class NoJvp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


with fwAD.dual_level():
    NoJvp.apply(fwAD.make_dual(torch.ones(2), torch.ones(2)))
# %%
with fwAD.dual_level():
    torch.func.jvp(lambda a: a, (torch.ones(2),), (torch.ones(2),))
