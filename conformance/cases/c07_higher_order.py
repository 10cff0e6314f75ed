# Double backward (create_graph=True) through many ops, gradient penalties,
# Hessian-vector products with grad_outputs, allow_unused and its errors.
import torch
import torch.nn.functional as F

# %%
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g, g.requires_grad, type(g.grad_fn).__name__)
(g2,) = torch.autograd.grad(g.sum(), x)
(g, g2)

# %%
# backward(create_graph=True) then a second backward accumulates into .grad
a = torch.tensor([1.0, 2.0], requires_grad=True)
la = (a.sin() * a).sum()
la.backward(create_graph=True)
ga = a.grad
print(ga.requires_grad, type(ga.grad_fn).__name__)
a.grad = None
ga.sum().backward()
(ga, a.grad)

# %%
del ga
# linspace with a single step gives the start
torch.linspace(-0.6, 0.5, 1)

# %%
# second derivatives of many ops, against each input
u = torch.tensor([0.3, 0.7, 1.2], requires_grad=True)
ops = {
    "exp": torch.exp, "log": torch.log, "sin": torch.sin, "cos": torch.cos,
    "tanh": torch.tanh, "sigmoid": torch.sigmoid, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
    "reciprocal": torch.reciprocal, "log1p": torch.log1p, "expm1": torch.expm1,
    "pow": lambda t: t.pow(2.5), "softmax": lambda t: t.softmax(0),
    "log_softmax": lambda t: t.log_softmax(0), "norm": lambda t: t.norm().expand(3),
    "prod": lambda t: t.prod().expand(3), "cumsum": lambda t: t.cumsum(0) ** 2,
    "var": lambda t: t.var().expand(3), "std": lambda t: t.std().expand(3),
    "gelu": F.gelu, "softplus": F.softplus, "elu": F.elu, "atan": torch.atan,
    "erf": torch.erf, "logsumexp": lambda t: t.logsumexp(0).expand(3),
    "maximum": lambda t: torch.maximum(t * t, t.flip(0)), "where": lambda t: torch.where(t > 0.5, t ** 3, t ** 2),
}
weights = torch.tensor([1.0, -2.0, 0.5])
second = {}
for name, f in ops.items():
    (gu,) = torch.autograd.grad((f(u) * weights).sum(), u, create_graph=True)
    (hu,) = torch.autograd.grad(gu.sum(), u)
    second[name] = hu
    print(f"{name:12s}", [round(v, 4) + 0.0 for v in hu.tolist()])

# %%
# second derivative of a matrix product and of the mean squared error
W = torch.tensor([[1.0, 2.0], [-1.0, 0.5]], requires_grad=True)
X = torch.tensor([[0.5, 1.0], [2.0, -1.0], [0.0, 1.0]], requires_grad=True)
out = X @ W
loss = ((out - 1.0) ** 2).mean()
gW, gX = torch.autograd.grad(loss, (W, X), create_graph=True)
pen = gW.pow(2).sum() + gX.pow(2).sum()
pen.backward()
(gW, gX, W.grad, X.grad)

# %%
# a WGAN-GP style gradient penalty
D = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))
with torch.no_grad():
    for i, prm in enumerate(D.parameters()):
        prm.copy_(torch.linspace(-0.6, 0.8 - 0.1 * i, prm.numel() + 1)[1:].reshape(prm.shape))
real = torch.tensor([[1.0, 2.0], [0.5, -1.0]])
fake = torch.tensor([[0.0, 0.5], [-1.0, 1.0]])
alpha = torch.tensor([[0.25], [0.75]])
interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
score = D(interp)
(grads,) = torch.autograd.grad(score, interp, grad_outputs=torch.ones_like(score), create_graph=True)
gp = ((grads.norm(2, dim=1) - 1) ** 2).mean()
print(grads, gp)
gp.backward()
[p.grad for p in D.parameters()]

# %%
# Hessian-vector product with grad_outputs
hx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
f = (hx[0] * hx[1] ** 2 + hx[1] * hx[2] ** 3 + hx.exp().sum())
(gf,) = torch.autograd.grad(f, hx, create_graph=True)
vec = torch.tensor([1.0, 0.0, -1.0])
(hvp,) = torch.autograd.grad(gf, hx, grad_outputs=vec)
hvp

# %%
# the full Hessian, row by row, with retain_graph
rows = []
for i in range(3):
    (r,) = torch.autograd.grad(gf[i], hx, retain_graph=True)
    rows.append(r)
H = torch.stack(rows)
H

# %%
# vector-Jacobian products of a non-scalar output
jx = torch.tensor([1.0, 2.0], requires_grad=True)
jy = torch.stack([jx[0] * jx[1], jx[0] ** 2, jx[1].exp()])
(vjp,) = torch.autograd.grad(jy, jx, grad_outputs=torch.tensor([1.0, 10.0, 100.0]))
vjp

# %%
# grad of a non-scalar output without grad_outputs
torch.autograd.grad(jx * 2, jx)

# %%
# allow_unused
ua = torch.tensor([1.0, 2.0], requires_grad=True)
ub = torch.tensor([3.0, 4.0], requires_grad=True)
uy = (ua * 2).sum()
gs = torch.autograd.grad(uy, [ua, ub], allow_unused=True)
print(gs)
gz = torch.autograd.grad((ua * 3).sum(), [ua, ub], allow_unused=True, materialize_grads=True)
gz

# %%
torch.autograd.grad((ua * 2).sum(), [ua, ub])

# %%
torch.autograd.grad((ua * 2).sum(), [ua, torch.ones(2)])

# %%
# the second differentiation when the first was taken without create_graph
(g_nc,) = torch.autograd.grad((ua ** 2).sum(), ua)
print(g_nc.requires_grad)
torch.autograd.grad(g_nc.sum(), ua)

# %%
# retain_graph is needed to differentiate the same graph twice
shared = (ua.exp()).sum()
torch.autograd.grad(shared, ua)
torch.autograd.grad(shared, ua)

# %%
# autograd.backward with several roots and grad_tensors, and inputs=
ba = torch.tensor([1.0, 2.0], requires_grad=True)
bb = torch.tensor([0.5], requires_grad=True)
r1 = ba * bb
r2 = (ba ** 2).sum()
torch.autograd.backward([r1, r2], [torch.tensor([1.0, -1.0]), torch.tensor(2.0)])
print(ba.grad, bb.grad)
ba.grad = None
bb.grad = None
(ba * bb * 3).sum().backward(inputs=[bb])
(ba.grad, bb.grad)

# %%
# third derivative
t = torch.tensor(0.7, requires_grad=True)
(d1,) = torch.autograd.grad(t.sin() * t ** 4, t, create_graph=True)
(d2,) = torch.autograd.grad(d1, t, create_graph=True)
(d3,) = torch.autograd.grad(d2, t)
(d1, d2, d3)
