# Every in-place error PyTorch raises: leaf, view of a leaf, version mismatch (naming
# the forward op), non-contiguous view, views of multi-output ops, no_grad views,
# inference tensors, and overlapping memory.
import torch

# %%
w = torch.ones(3, requires_grad=True)
w.add_(1)

# %%
w += 1

# %%
w[0] = 5.0

# %%
w[:2].mul_(2)

# %%
w.view(3, 1).zero_()

# %%
# version mismatch naming the op that saved the tensor
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.exp()
y.add_(1)
y.sum().backward()

# %%
x2 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a2 = x2 * 2
b2 = a2 * a2
a2.mul_(3)
b2.sum().backward()

# %%
x3 = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
a3 = x3 + 0
b3 = a3 @ a3
a3[0, 0] = 0.0
b3.sum().backward()

# %%
x4 = torch.tensor([0.5, 1.5], requires_grad=True)
t4 = x4.tanh()
t4.pow_(2)
t4.sum().backward()

# %%
# the saved tensor is a view of the modified tensor
x5 = torch.arange(4.0, requires_grad=True)
h5 = x5 * 1
v5 = h5[1:]
s5 = v5.sin()
h5.zero_()
s5.sum().backward()

# %%
# view() on a non-contiguous tensor
nc = torch.arange(6.0).reshape(2, 3).t()
nc.view(6)

# %%
nc.reshape(6)

# %%
# views of multi-output ops cannot be modified in place
m = torch.arange(6.0, requires_grad=True) * 1
parts = m.split(2)
parts[0].mul_(2)

# %%
chunks = m.chunk(3)
chunks[1].add_(1)

# %%
rows = torch.ones(2, 3, requires_grad=True).clone().unbind(0)
rows[0].zero_()

# %%
# a view made under no_grad, modified with grad enabled
base = torch.ones(4, requires_grad=True).clone()
with torch.no_grad():
    vng = base[:2]
print(vng.requires_grad, vng.is_leaf, vng._base is base)
vng.mul_(2)

# %%
del vng, base

# %%
# an in-place op whose output overlaps itself
e = torch.zeros(1).expand(3)
e.add_(1)

# %%
# in-place on a tensor that was detached from a saved output
d0 = torch.tensor([1.0, 2.0], requires_grad=True)
d1 = d0.sigmoid()
d1.detach().mul_(2)
d1.sum().backward()

# %%
# inference tensors
with torch.inference_mode():
    inf = torch.ones(2)
p = torch.ones(2, requires_grad=True)
(p * inf).sum().backward()
print(p.grad, inf.is_inference())
inf.add_(1)

# %%
with torch.inference_mode():
    inf2 = torch.ones(2)
inf2.requires_grad_(True)
(inf2 * p).sum().backward()

# %%
del inf2

# %%
# changing requires_grad of a non-leaf
nl = torch.ones(2, requires_grad=True) * 2
nl.requires_grad_(False)

# %%
# leaf .grad of the wrong shape
lg = torch.ones(3, requires_grad=True)
lg.grad = torch.ones(2)

# %%
# in-place on the input of an op that saves it, inside a larger graph, after retain_graph
r0 = torch.tensor([1.0, 2.0], requires_grad=True)
r1 = r0 * 3
r2 = r1.pow(2)
r2.sum().backward(retain_graph=True)
print(r0.grad)
r1.add_(1)
r2.sum().backward()
