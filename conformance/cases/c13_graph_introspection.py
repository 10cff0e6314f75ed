# What autograd tutorials print: grad_fn names along next_functions, saved tensors
# (_saved_self / _saved_other / _saved_result), gradient accumulation and .grad.zero_(),
# retain_graph, backward on non-scalars, saved_tensors_hooks and anomaly mode.
import torch


def chain(fn, depth=0, seen=None):
    seen = set() if seen is None else seen
    if fn is None or id(fn) in seen:
        return
    seen.add(id(fn))
    print("  " * depth + type(fn).__name__)
    for nxt, _ in fn.next_functions:
        chain(nxt, depth + 1, seen)

# %%
a = torch.tensor([2.0, 3.0], requires_grad=True)
b = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
chain(Q.grad_fn)
print(Q.grad_fn.next_functions[0][0].next_functions)
Q.backward(gradient=torch.tensor([1.0, 1.0]))
(a.grad, b.grad, 9 * a ** 2 == a.grad, -2 * b == b.grad)

# %%
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, -1.5], requires_grad=True)
y = (x * w).exp()
print(torch.equal(y.grad_fn._saved_result, y), y.grad_fn._saved_result is y)
m = y.grad_fn.next_functions[0][0]
print(type(m).__name__, torch.equal(m._saved_self, x), torch.equal(m._saved_other, w))
pw = x.pow(3)
print(pw.grad_fn._saved_exponent, type(pw.grad_fn).__name__)
sm = x.sum()
print(sm.grad_fn._saved_self_sym_sizes)

# %%
y.sum().backward()
y.grad_fn._saved_result

# %%
# accumulation, zeroing in place and setting to None
z = torch.tensor([1.0, -1.0], requires_grad=True)
for k in range(3):
    (z * (k + 1)).sum().backward()
print(z.grad)
z.grad.zero_()
print(z.grad)
(z * z).sum().backward()
print(z.grad)
z.grad = None
(z * 10).sum().backward()
z.grad

# %%
# retain_graph lets backward run twice; the gradients add up
r = torch.tensor([0.5, 1.0], requires_grad=True)
rs = (r.tanh() * r).sum()
rs.backward(retain_graph=True)
g_first = r.grad.clone()
rs.backward()
(g_first, r.grad)

# %%
rs.backward()

# %%
(r * 2).backward()

# %%
(r * 2).backward(torch.ones(3))

# %%
torch.ones(2).backward()

# %%
# gradient of a non-scalar with an explicit gradient argument
v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = v * v
out.backward(torch.tensor([0.1, 1.0, 0.0001]))
v.grad

# %%
# anomaly mode: the same error, forward trace aside
with torch.autograd.detect_anomaly():
    an = torch.tensor([1.0, 2.0], requires_grad=True)
    ao = an.exp()
    ao.add_(1)
    ao.sum().backward()

# %%
# item, tolist, numpy, float() on tensors that require grad
t = torch.tensor([1.5, 2.5], requires_grad=True)
print(t.sum().item(), t.tolist(), t.detach().numpy(), float(t[0]))
t.numpy()

# %%
# .grad of a non-leaf is None (with a warning) unless retained
nl = t * 2
nl.sum().backward()
print(nl.grad, nl.is_leaf, nl.retains_grad, t.grad)

# %%
# the default dtype and dtype of gradients
d64 = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
d32 = torch.tensor([3.0, 4.0], requires_grad=True)
(d64 * d32).sum().backward()
print(d64.grad.dtype, d32.grad.dtype, (d64 * d32).dtype)
torch.set_default_dtype(torch.float64)
dd = torch.tensor([1.0]) * 2
print(dd.dtype, torch.get_default_dtype())
torch.set_default_dtype(torch.float32)
torch.get_default_dtype()

# %%
# saved_tensors_hooks: pack and unpack see the saved tensors
packed = []


def pack(t):
    packed.append(tuple(t.shape))
    return t * 1


def unpack(t):
    return t


s = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    so = (s * s).sin().sum()
so.backward()
print(packed)
s.grad
