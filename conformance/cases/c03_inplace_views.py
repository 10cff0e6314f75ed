# In-place methods and operators, item and slice assignment, views sharing storage
# and version counters, CopySlices / AsStrided, and the .data / .detach() rules.
import torch

# %%
a = torch.arange(6.0, requires_grad=True)
b = a * 1
b.add_(1)
print(type(b.grad_fn).__name__, b._version)
b.mul_(2)
b.sub_(0.5)
b.div_(4)
print(type(b.grad_fn).__name__, b._version)
b.clamp_(0.5, 2.0)
print(type(b.grad_fn).__name__, b._version)
b.sum().backward()
(b, a.grad)

# %%
c0 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = c0 * 1
c += 1
c -= torch.tensor([0.5, 0.5, 0.5])
c *= c0
c /= 2
print(type(c.grad_fn).__name__, c._version)
c.sum().backward()
c0.grad

# %%
# zero_, fill_, copy_ on non-leaves
e0 = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
src = torch.tensor([9.0, 8.0], requires_grad=True)
e = e0 * 3
e[:2].zero_()
print(type(e.grad_fn).__name__)
e[3:].fill_(7.0)
e[1:3].copy_(src)
print(e)
(e * torch.arange(1.0, 5.0)).sum().backward()
(e0.grad, src.grad)

# %%
# item and slice assignment: CopySlices
f0 = torch.arange(1.0, 7.0, requires_grad=True)
f = f0.clone()
f[0] = 100.0
f[2:4] = torch.tensor([-1.0, -2.0])
g_src = torch.tensor(5.0, requires_grad=True)
f[5] = g_src
print(type(f.grad_fn).__name__, f._version)
(f * f).sum().backward()
(f0.grad, g_src.grad)

# %%
# a 2-d slice assigned into, with a step
m0 = torch.arange(12.0, requires_grad=True)
m = m0.reshape(3, 4).clone()
m[:, ::2] = 0.0
m[1] *= 3
print(m)
m.sum().backward()
m0.grad

# %%
# views share storage and the version counter with their base
base = torch.arange(6.0)
v_view = base.view(2, 3)
v_sel = base[2]
v_t = v_view.t()
v_exp = base[:1].expand(3)
v_unsq = base.unsqueeze(0)
v_sq = v_unsq.squeeze(0)
v_tr = v_view.transpose(0, 1)
v_perm = base.view(1, 2, 3).permute(2, 0, 1)
print([t._base is base for t in (v_view, v_sel, v_t, v_exp, v_unsq, v_sq, v_tr, v_perm)])
print([t.is_contiguous() for t in (v_view, v_t, v_tr, v_perm)])
base.add_(10)
print(base._version, v_t._version, v_perm._version)
(v_view, v_sel, v_t, v_exp, v_perm)

# %%
# in-place on a view of a non-leaf: the base gets CopySlices, the view is regenerated
h0 = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
h = h0 * 2
hv = h[1:3]
hv.mul_(10)
print(type(h.grad_fn).__name__, type(hv.grad_fn).__name__, h._version, hv._version)
ht = h.view(2, 2).t()
ht.add_(1)
print(type(h.grad_fn).__name__, type(ht.grad_fn).__name__)
print(type(hv.grad_fn).__name__)
(h * h0).sum().backward()
h0.grad

# %%
# expand then in-place (through an in-place on a non-contiguous, transposed view)
k0 = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
k = k0.clone()
kt = k.t()
kt[0, 1] = 50.0
kt.mul_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print(k)
k.sum().backward()
k0.grad

# %%
# .data: no version bump seen by autograd, so values can silently change
p = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
pe = p.exp()
pe.data.mul_(0)
print(pe._version, pe.data._version, p.data.requires_grad, p.data.is_leaf)
pe.sum().backward()
p.grad

# %%
# .detach() shares storage and the version counter
q = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
qd = q.detach()
qd[0] = 10.0
print(q, q._version, qd._version, qd.requires_grad, qd._base is None)
qe = q.exp()
qed = qe.detach()
qed.zero_()
qe.sum().backward()

# %%
# in-place on a leaf is fine under no_grad, and bumps the version
r = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    r.mul_(3)
    r[0] = -1.0
    r += 1
print(r, r.is_leaf, r.requires_grad, r.grad_fn, r._version)
(r * r).sum().backward()
r.grad

# %%
# out-of-place ops keep working after the tensor they read is modified later, when unsaved
s0 = torch.tensor([1.0, 2.0], requires_grad=True)
s1 = s0 + 1
s2 = s1 * 2
s1.add_(100)
s2.sum().backward()
(s1, s0.grad)

# %%
# sigmoid and tanh save their output
t0 = torch.tensor([0.0, 1.0], requires_grad=True)
t1 = t0.sigmoid()
t1.mul_(2)
t1.sum().backward()
