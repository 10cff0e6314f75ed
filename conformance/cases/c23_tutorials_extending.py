# Lessons in the style of the "Extending PyTorch" notes and the custom-Function tutorials:
# a LinearFunction with setup_context and needs_input_grad, MulConstant with a non-tensor
# argument, outputs marked non-differentiable, set_materialize_grads, once_differentiable,
# a Function used twice in one graph, gradcheck, and custom nn.Modules with
# nn.Parameter, extra_repr, buffers, state_dict and hooks.
# Seeds are set with torch.random.manual_seed, which record.py does not shift: the values
# drawn after them are compared too, so they check PyTorch's random streams as well.
import math
import torch
import torch.nn as nn
from torch.autograd import Function, gradcheck
from torch.autograd.function import once_differentiable


class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None

# %%
linear = LinearFunction.apply
inp = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)
weight = torch.tensor([[0.1, 0.2, 0.3], [-0.4, 0.5, 0.6]], requires_grad=True)
bias = torch.tensor([0.01, -0.02], requires_grad=True)
out = linear(inp, weight, bias)
print(out, out.grad_fn, type(out.grad_fn).__name__, out.grad_fn.next_functions)
out.sum().backward()
print(inp.grad, weight.grad, bias.grad)
frozen_w = weight.detach()
out2 = linear(inp, frozen_w, None)
out2.pow(2).sum().backward()
out, out2, inp.grad

# %%
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = MulConstant.apply(x, 5.5)
z = MulConstant.apply(y, -2)
z.backward(torch.tensor([1.0, 0.1, 0.01]))
print(y.grad_fn, z.requires_grad, x.grad)
ddx = torch.randn(3, 2, dtype=torch.double, requires_grad=True)
ddw = torch.randn(4, 2, dtype=torch.double, requires_grad=True)
ddb = torch.randn(4, dtype=torch.double, requires_grad=True)
print(gradcheck(linear, (ddx, ddw, ddb), eps=1e-6, atol=1e-4))
print(gradcheck(MulConstant.apply, (ddx, 3.0)))
y, z, x.grad

# %%
class SortWithIndex(Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    def backward(ctx, grad_values, grad_idx):
        idx, = ctx.saved_tensors
        grad_input = torch.zeros_like(grad_values)
        grad_input.index_add_(0, idx, grad_values)
        return grad_input


class SplitHalves(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.n = x.shape[0] // 2
        return x[:ctx.n].clone(), x[ctx.n:].clone()

    @staticmethod
    @once_differentiable
    def backward(ctx, g1, g2):
        parts = []
        for g, size in ((g1, ctx.n), (g2, None)):
            parts.append(g if g is not None else torch.zeros(size if size is not None else 0))
        if g2 is None:
            parts[1] = torch.zeros_like(parts[0])
        return torch.cat(parts)


s = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
vals, idx = SortWithIndex.apply(s)
print(vals, idx, idx.requires_grad, vals.grad_fn)
(vals * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
h = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
a, b = SplitHalves.apply(h)
(a * 3).sum().backward()
print(a.grad_fn, h.grad)
h2 = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
a2, b2 = SplitHalves.apply(h2 * 2)
g_a, = torch.autograd.grad(a2.sum() + b2.pow(2).sum(), h2, create_graph=True)
print(g_a.requires_grad, g_a)
g_a.sum().backward()
s.grad, h.grad, vals

# %%
class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


e_in = torch.tensor([0.0, 0.5, 1.0], requires_grad=True)
e_out = Exp.apply(e_in)
e_out2 = Exp.apply(e_out)
e_out2.sum().backward(create_graph=True)
gg = e_in.grad.clone()
print(e_out2.grad_fn.next_functions, gg.grad_fn)
e_in.grad = None
gg.sum().backward()
e_in_grad2 = e_in.grad
ctx_fn = e_out.grad_fn
print(ctx_fn.saved_tensors, ctx_fn.needs_input_grad, hasattr(ctx_fn, 'apply'))
e_out, e_out2, gg

# %%
class MyLinear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            self.register_parameter('bias', None)
        self.register_buffer('calls', torch.zeros((), dtype=torch.long))
        self.weight.data.uniform_(-0.1, 0.1)
        if self.bias is not None:
            self.bias.data.uniform_(-0.1, 0.1)

    def forward(self, input):
        self.calls += 1
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return 'input_features={}, output_features={}, bias={}'.format(
            self.input_features, self.output_features, self.bias is not None)


torch.random.manual_seed(0)
module = MyLinear(3, 2)
print(module, list(module.state_dict().keys()), module.calls)
print([(n, p.shape, p.requires_grad) for n, p in module.named_parameters()])
print(list(module.named_buffers()))
seen = []
hook = module.register_forward_hook(lambda m, i, o: seen.append(tuple(o.shape)))
pre = module.register_forward_pre_hook(lambda m, i: None)
bwd = module.register_full_backward_hook(lambda m, gi, go: seen.append(('bwd', gi[0].shape if gi[0] is not None else None, go[0].shape)))
mo = module(torch.ones(4, 3, requires_grad=True))
mo.sum().backward()
hook.remove(); pre.remove(); bwd.remove()
module(torch.ones(1, 3))
print(seen, module.calls, mo.grad_fn)
nobias = MyLinear(2, 2, bias=False)
print(nobias, nobias.bias, len(list(nobias.parameters())))
module.weight.grad, module.bias.grad, mo
