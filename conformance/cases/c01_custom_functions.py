# Custom autograd Functions: save_for_backward, saved_tensors, ctx attributes, None
# gradients for non-tensor inputs, .apply, mark_dirty, needs_input_grad,
# once_differentiable, mark_non_differentiable, node names and freed saved tensors.
import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable

# %%
class MyExp(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


x = torch.linspace(-1.0, 1.0, 5, requires_grad=True)
y = MyExp.apply(x)
print(type(y.grad_fn).__name__, y.requires_grad, y.is_leaf)
print([type(n).__name__ if n is not None else None for n, _ in y.grad_fn.next_functions])
L = (y * y).sum()
L.backward()
x.grad

# %%
# the saved tensors were freed by that backward
y.grad_fn.saved_tensors

# %%
class Scale(Function):
    @staticmethod
    def forward(ctx, x, factor, label):
        ctx.factor = factor
        ctx.label = label
        return x * factor

    @staticmethod
    def backward(ctx, grad):
        print("backward of", ctx.label, "with factor", ctx.factor)
        return grad * ctx.factor, None, None


a = torch.arange(4.0, requires_grad=True)
b = Scale.apply(a, 2.5, "scale")
b.backward(torch.tensor([1.0, 0.5, 0.25, 2.0]))
print(type(b.grad_fn).__name__)
a.grad

# %%
class Mul2(Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        print("needs_input_grad", ctx.needs_input_grad)
        return x * w

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        print("backward needs_input_grad", ctx.needs_input_grad)
        gx = gw = None
        if ctx.needs_input_grad[0]:
            gx = grad * w
        if ctx.needs_input_grad[1]:
            gw = grad * x
        return gx, gw


p = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
q = torch.tensor([4.0, 5.0, 6.0])
r = Mul2.apply(p, q)
r.sum().backward()
(p.grad, q.grad)

# %%
class AddOneInplace(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1.0)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = leaf * 2
h2 = AddOneInplace.apply(h)
print(h2 is h, type(h.grad_fn).__name__, h._version)
(h2 * h2).sum().backward()
leaf.grad

# %%
# mark_dirty on a leaf that requires grad: PyTorch's leaf in-place error
AddOneInplace.apply(leaf)

# %%
class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2


c = torch.tensor([1.0, 2.0, -0.5], requires_grad=True)
d = Cube.apply(c)
(gc0,) = torch.autograd.grad(d.sum(), c, create_graph=True)
print(gc0, gc0.requires_grad)
up = torch.ones(3, requires_grad=True)
(gc1,) = torch.autograd.grad(d, c, grad_outputs=up, create_graph=True)
print(gc1, gc1.requires_grad, type(gc1.grad_fn).__name__)

# %%
gc1.sum().backward()

# %%
class SortWithIndex(Function):
    @staticmethod
    def forward(ctx, x):
        vals, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return vals, idx

    @staticmethod
    def backward(ctx, gvals, gidx):
        (idx,) = ctx.saved_tensors
        out = torch.zeros_like(gvals)
        out[idx] = gvals
        return out


s = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
sv, si = SortWithIndex.apply(s)
print(sv.requires_grad, si.requires_grad, si.dtype)
(sv * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
s.grad

# %%
class WrongCount(Function):
    @staticmethod
    def forward(ctx, x, y):
        return x + y

    @staticmethod
    def backward(ctx, grad):
        return grad


u = torch.ones(2, requires_grad=True)
v = torch.ones(2, requires_grad=True)
WrongCount.apply(u, v).sum().backward()

# %%
class SetupCtx(Function):
    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, k = inputs
        ctx.k = k

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.k, None


w = torch.tensor([1.0, -2.0], requires_grad=True)
o = SetupCtx.apply(w, 3.0)
o.sum().backward()
print(type(o.grad_fn).__name__)
w.grad

# %%
class Double(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


z = torch.tensor([0.5, 1.5], requires_grad=True)
zz = Double.apply(Double.apply(z))
(g1,) = torch.autograd.grad(zz.sum(), z, create_graph=True)
print(g1, g1.requires_grad)
nested = Double.apply(torch.tensor([1.0, 2.0]))
print(nested.requires_grad, nested.grad_fn)
