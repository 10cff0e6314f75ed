# softmax / log_softmax, max / min (whole and by dim, ties), argmax, norm, var / std,
# prod (with zeros), cumsum, where, masked_fill, maximum / minimum (ties), and the
# elementwise ops with special gradients (log1p expm1 reciprocal rsqrt floor round sign).
import torch
import torch.nn.functional as F

# %%
logits = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.0, 4.0]], requires_grad=True)
sm = torch.softmax(logits, dim=1)
lsm = F.log_softmax(logits, dim=-1)
sm0 = logits.softmax(0)
print(type(sm.grad_fn).__name__, type(lsm.grad_fn).__name__)
w = torch.tensor([[1.0, -1.0, 0.5], [2.0, 0.0, -3.0]])
((sm * w).sum() + (lsm * w).sum() + (sm0 * w).sum()).backward()
(sm, lsm, logits.grad)

# %%
v = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], requires_grad=True)
mx = v.max()
mn = v.min()
vals, idx = v.max(dim=1)
mvals, midx = torch.min(v, 0, keepdim=True)
am = v.argmax()
am1 = v.argmax(dim=0)
amin = v.argmin(dim=1, keepdim=True)
print(mx, mn, vals, idx, mvals, midx, am, am1, amin)
print(type(mx.grad_fn).__name__, type(vals.grad_fn).__name__, type(mvals.grad_fn).__name__)
(mx + mn * 2 + (vals * torch.tensor([3.0, 5.0])).sum() + (mvals * 7).sum()).backward()
v.grad

# %%
# ties: the whole-tensor max splits the gradient, max by dim picks one index
tie = torch.tensor([1.0, 3.0, 3.0, 2.0], requires_grad=True)
tie.max().backward()
print(tie.grad)
tie.grad = None
tv, ti = tie.max(0)
tv.backward()
print(ti, tie.grad)
tie.grad = None
tie.amax().backward()
tie.grad

# %%
# maximum / minimum with ties share the gradient equally
p = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
q = torch.tensor([4.0, 2.0, 1.0, 5.0], requires_grad=True)
mxm = torch.maximum(p, q)
mnm = torch.minimum(p, q)
(mxm * 10 + mnm).sum().backward()
(mxm, mnm, p.grad, q.grad)

# %%
n = torch.tensor([[3.0, -4.0], [1.0, 2.0]], requires_grad=True)
n2 = n.norm()
n1 = n.norm(p=1)
ninf = n.norm(p=float("inf"))
nd = n.norm(dim=1)
nd1 = torch.norm(n, p=1, dim=0)
lv = torch.linalg.vector_norm(n, ord=3)
print(n2, n1, ninf, nd, nd1, lv)
print([type(t.grad_fn).__name__ for t in (n2, n1, ninf, nd, nd1, lv)])
(n2 + n1 + ninf + nd.sum() + nd1.sum() + lv).backward()
n.grad

# %%
s = torch.tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]], requires_grad=True)
var = s.var()
var0 = s.var(dim=0)
var_c0 = s.var(dim=1, correction=0)
std = s.std()
std1 = s.std(dim=1, unbiased=False, keepdim=True)
mean = s.mean(dim=0)
print(var, var0, var_c0, std, std1, mean)
print([type(t.grad_fn).__name__ for t in (var, var0, var_c0, std, std1, mean)])
(var + var0.sum() + var_c0.sum() + std + std1.sum() + mean.sum()).backward()
s.grad

# %%
pr = torch.tensor([[2.0, 3.0, 0.5], [1.0, 0.0, 4.0]], requires_grad=True)
pall = pr.prod()
pdim = pr.prod(dim=1)
cs = pr.cumsum(dim=1)
cp = pr.cumprod(dim=1)
print(pall, pdim, cs, cp)
print([type(t.grad_fn).__name__ for t in (pall, pdim, cs, cp)])
(pall + pdim.sum() + (cs * torch.tensor([1.0, 2.0, 3.0])).sum() + cp.sum()).backward()
pr.grad

# %%
# prod with two zeros
z2 = torch.tensor([0.0, 2.0, 0.0, 3.0], requires_grad=True)
z2.prod().backward()
z2.grad

# %%
wa = torch.tensor([-2.0, -0.5, 0.0, 1.5, 3.0], requires_grad=True)
wb = torch.tensor([10.0, 20.0, 30.0, 40.0, 50.0], requires_grad=True)
wh = torch.where(wa > 0, wa * 2, wb)
wh2 = torch.where(wa < 0, wa, 0.0)
mf = wa.masked_fill(wa.abs() > 1, -1.0)
mf_ = (wa * 1).masked_fill_(wa == 0, 100.0)
print(wh, wh2, mf, mf_)
print([type(t.grad_fn).__name__ for t in (wh, wh2, mf, mf_)])
(wh.sum() + wh2.sum() * 3 + mf.sum() * 5 + mf_.sum() * 7).backward()
(wa.grad, wb.grad)

# %%
u = torch.tensor([0.25, 0.5, 1.0, 2.0, 4.0], requires_grad=True)
l1p = u.log1p()
em1 = torch.expm1(u)
rec = u.reciprocal()
rsq = u.rsqrt()
sqr = u.sqrt()
lg = torch.log(u)
lg2 = u.log2()
lg10 = u.log10()
ex2 = u.exp2()
print([type(t.grad_fn).__name__ for t in (l1p, em1, rec, rsq, sqr, lg, lg2, lg10, ex2)])
(l1p + em1 + rec + rsq + sqr + lg + lg2 + lg10 + ex2).sum().backward()
(l1p, em1, rec, rsq, u.grad)

# %%
# floor, round (half to even), sign, ceil, trunc, frac: zero or identity gradients
r = torch.tensor([-2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 1.7, -1.2], requires_grad=True)
fl = r.floor()
rd = r.round()
sg = r.sign()
ce = torch.ceil(r)
tr = r.trunc()
fr = r.frac()
rd1 = torch.round(r * 10, decimals=-1)
ab = r.abs()
print(fl, rd, sg, ce, tr, fr, rd1, ab, sep="\n")
print([type(t.grad_fn).__name__ for t in (fl, rd, sg, ce, tr, fr, rd1, ab)])
(fl + rd + sg + ce + tr + fr * 2 + rd1 + ab * 3).sum().backward()
r.grad

# %%
# clamp and relu-like gradients at the boundary
c = torch.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], requires_grad=True)
cl = c.clamp(0.0, 1.0)
cmin = c.clamp(min=0.5)
rl = torch.relu(c)
lr = F.leaky_relu(c, 0.1)
ht = F.hardtanh(c)
(cl + cmin * 2 + rl * 3 + lr * 5 + ht * 7).sum().backward()
c.grad

# %%
# trig, hyperbolic, pow, atan2, sigmoid, tanh, erf
t = torch.tensor([-1.0, -0.25, 0.5, 1.25], requires_grad=True)
t2 = torch.tensor([2.0, -1.0, 0.5, 3.0], requires_grad=True)
out = (t.sin() + t.cos() + t.tan() + t.sinh() + t.cosh() + t.atan() + t.sigmoid() + t.tanh()
       + torch.erf(t) + t.pow(3) + t.abs().pow(t2) + torch.atan2(t, t2) + t2 ** 2.5 + 2 ** t)
out.sum().backward()
(out, t.grad, t2.grad)

# %%
# logsumexp / sort / topk / median
k = torch.tensor([[4.0, 1.0, 3.0], [2.0, 6.0, 5.0]], requires_grad=True)
lse = k.logsumexp(dim=1)
sv, si = k.sort(dim=1, descending=True)
tv, ti = k.topk(2, dim=1)
md = k.median()
mdv, mdi = k.median(dim=1)
print(lse, sv, si, tv, ti, md, mdv, mdi)
print([type(x.grad_fn).__name__ for x in (lse, sv, tv, md, mdv)])
(lse.sum() + (sv * torch.tensor([1.0, 2.0, 3.0])).sum() + tv.sum() * 10 + md * 1000 + mdv.sum()).backward()
k.grad

# %%
# log and sqrt at 0 give inf / nan gradients as in PyTorch
zz = torch.tensor([0.0, 1.0], requires_grad=True)
(zz.sqrt() + zz.log()).sum().backward()
zz.grad

# %%
# integer / bool results and type promotion
ii = torch.arange(6).reshape(2, 3)
fi = ii * 0.5
bi = ii > 2
print(ii.dtype, fi.dtype, bi.dtype, (ii / 2).dtype, (ii // 2).dtype, ii.sum().dtype, ii.float().mean())
print(torch.tensor([1, 2], dtype=torch.int32) + torch.tensor([1.5], dtype=torch.float64))
print(bi.sum(), bi.any(), bi.all(), ii.argmax(), torch.count_nonzero(ii))
torch.arange(3).mean()
