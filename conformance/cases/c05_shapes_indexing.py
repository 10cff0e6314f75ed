# Basic and advanced indexing (with the scatter-add gradient for repeated indices),
# cat / stack / split / chunk / expand / repeat / squeeze / unsqueeze / transpose /
# permute / contiguous, and the shape errors in PyTorch's wording.
import torch

# %%
x = torch.arange(5.0, requires_grad=True)
y = x[[0, 0, 2, 4, 4, 4]]
print(y, type(y.grad_fn).__name__)
(y * torch.arange(1.0, 7.0)).sum().backward()
x.grad

# %%
m = torch.arange(12.0).reshape(3, 4).requires_grad_()
rows = torch.tensor([0, 2, 0])
cols = torch.tensor([1, 3, 1])
picked = m[rows, cols]
block = m[[0, 2]][:, 1:3]
masked = m[m > 6]
basic = m[1, ::2]
neg = m[-1, -2:]
none_idx = m[None, 0, :, None]
ell = m[..., 1]
print(picked, block.shape, masked, basic, neg, none_idx.shape, ell)
print([type(t.grad_fn).__name__ for t in (picked, block, masked, basic, neg, none_idx, ell)])
(picked.sum() + block.sum() * 2 + masked.sum() * 3 + basic.sum() * 5 + neg.sum() * 7 + ell.sum() * 11).backward()
m.grad

# %%
g0 = torch.arange(6.0, requires_grad=True)
sel = g0.index_select(0, torch.tensor([5, 0, 5]))
gat = g0.view(2, 3).gather(1, torch.tensor([[2, 2], [0, 1]]))
print(sel, gat)
print(type(sel.grad_fn).__name__, type(gat.grad_fn).__name__)
(sel.sum() + gat.sum() * 10).backward()
g0.grad

# %%
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = torch.tensor([[5.0, 6.0]], requires_grad=True)
cat0 = torch.cat([a, b], dim=0)
cat1 = torch.cat([a, a * 10], dim=1)
st = torch.stack([a, a + 1], dim=1)
print(cat0.shape, cat1.shape, st.shape)
print(type(cat0.grad_fn).__name__, type(st.grad_fn).__name__)
(cat0.sum() + (cat1 * torch.arange(4.0)).sum() + (st * 2).sum()).backward()
(a.grad, b.grad)

# %%
s0 = torch.arange(10.0, requires_grad=True)
sp = s0.split(4)
sp2 = s0.split([2, 3, 5])
ch = s0.chunk(3)
print([t.shape for t in sp], [t.shape for t in sp2], [t.shape for t in ch])
print([type(t.grad_fn).__name__ for t in (sp[0], sp2[0], ch[0])])
(sp[1].sum() * 2 + sp2[2].sum() * 3 + ch[0].sum() * 5).backward()
s0.grad

# %%
e0 = torch.tensor([[1.0], [2.0]], requires_grad=True)
ex = e0.expand(2, 3)
ex2 = e0.expand(4, -1, 3)
rp = e0.repeat(2, 3)
print(ex.shape, ex2.shape, rp.shape, ex.is_contiguous(), ex.stride())
print([type(t.grad_fn).__name__ for t in (ex, ex2, rp)])
(ex.sum() + ex2.sum() * 10 + (rp * torch.arange(12.0).view(4, 3)).sum()).backward()
e0.grad

# %%
q = torch.arange(24.0, requires_grad=True)
q3 = q.view(2, 3, 4)
sq = q3[:, :1, :].squeeze()
sq1 = q3[:, :1, :].squeeze(1)
us = q3.unsqueeze(-1)
tr = q3.transpose(0, 2)
pm = q3.permute(1, 2, 0)
ct = pm.contiguous()
fl = ct.flatten()
print(sq.shape, sq1.shape, us.shape, tr.shape, pm.shape, pm.is_contiguous(), ct.is_contiguous(), pm.stride(), ct.stride())
print([type(t.grad_fn).__name__ for t in (q3, sq, sq1, us, tr, pm, ct, fl)])
(fl * torch.arange(24.0)).sum().backward()
q.grad

# %%
n = torch.arange(6.0, requires_grad=True).reshape(2, 3)
nt = n.t()
nT = n.T
nmT = n.mT
print(nt.shape, nT.shape, type(nt.grad_fn).__name__, type(nT.grad_fn).__name__, type(nmT.grad_fn).__name__)
flip = n.flip(1)
roll = n.roll(1, 1)
print(flip, roll)

# %%
# broadcasting, and its gradient reduction
bx = torch.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
by = torch.tensor([10.0, 20.0], requires_grad=True)
bz = bx * by + bx
print(bz.shape)
bz.sum().backward()
(bx.grad, by.grad)

# %%
torch.ones(2, 3) + torch.ones(4)

# %%
torch.ones(2, 3, requires_grad=True) * torch.ones(3, 2)

# %%
torch.ones(5, 3) @ torch.ones(5, 3)

# %%
torch.mm(torch.ones(5, 3), torch.ones(5, 3))

# %%
torch.ones(2, 3).view(4, 2)

# %%
torch.ones(2, 3).expand(4, 3)

# %%
torch.cat([torch.ones(2, 3), torch.ones(2, 4)], dim=0)

# %%
torch.stack([torch.ones(2), torch.ones(3)])

# %%
torch.arange(5.0)[10]

# %%
torch.arange(5.0)[torch.tensor([1, 7])]

# %%
torch.ones(2, 3).squeeze(2)

# %%
torch.ones(2, 3).permute(0, 0)

# %%
torch.matmul(torch.ones(2, 3), torch.ones(4))

# %%
torch.ones(3).dot(torch.ones(4))

# %%
torch.ones(2, 3).bmm(torch.ones(2, 3))
