# Optimizers (SGD with momentum / weight decay / nesterov, Adam, AdamW), zero_grad
# (set_to_none), param groups, nn.init functions, and a tutorial-style MLP training loop
# with cross_entropy and SGD with momentum, from fixed weights on a made-up dataset.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


def quad_steps(opt_cls, n=5, **kw):
    """Minimise a fixed quadratic for n steps; return the parameter after each step."""
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    opt = opt_cls([w], **kw)
    hist = []
    for _ in range(n):
        opt.zero_grad()
        loss = ((w - torch.tensor([0.5, 0.5, 0.5])) ** 2 * torch.tensor([1.0, 2.0, 3.0])).sum()
        loss.backward()
        opt.step()
        hist.append(w.detach().clone())
    return torch.stack(hist)

# %%
sgd = quad_steps(torch.optim.SGD, lr=0.1)
sgd_m = quad_steps(torch.optim.SGD, lr=0.1, momentum=0.9)
sgd_n = quad_steps(torch.optim.SGD, lr=0.05, momentum=0.9, nesterov=True)
sgd_wd = quad_steps(torch.optim.SGD, lr=0.1, momentum=0.5, weight_decay=0.1, dampening=0.1)
sgd_max = quad_steps(torch.optim.SGD, lr=0.1, maximize=True, n=2)
(sgd, sgd_m, sgd_n, sgd_wd, sgd_max)

# %%
adam = quad_steps(torch.optim.Adam, lr=0.1)
adam_b = quad_steps(torch.optim.Adam, lr=0.05, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.1)
adam_ams = quad_steps(torch.optim.Adam, lr=0.1, amsgrad=True)
adamw = quad_steps(torch.optim.AdamW, lr=0.1)
adamw_wd = quad_steps(torch.optim.AdamW, lr=0.1, weight_decay=0.5)
(adam, adam_b, adam_ams, adamw, adamw_wd)

# %%
p1 = torch.tensor([1.0, 2.0], requires_grad=True)
p2 = torch.tensor([3.0], requires_grad=True)
opt = torch.optim.SGD([{"params": [p1]}, {"params": [p2], "lr": 0.5}], lr=0.1, momentum=0.9)
print(opt)
(p1 * p2).sum().backward()
opt.step()
print(p1, p2, len(opt.param_groups), opt.param_groups[1]["lr"], opt.defaults["momentum"])
st = opt.state[p1]
print(sorted(st.keys()), st["momentum_buffer"])
opt.zero_grad()
print(p1.grad, p2.grad)
(p1 * p2).sum().backward()
opt.zero_grad(set_to_none=False)
print(p1.grad, p2.grad)

# %%
ad = torch.optim.Adam([p1], lr=0.01)
print(ad)
(p1 ** 2).sum().backward()
ad.step()
print(sorted(ad.state[p1].keys()), ad.state[p1]["step"], ad.state[p1]["exp_avg"], ad.state[p1]["exp_avg_sq"])
print(ad.state_dict()["param_groups"][0]["lr"])
p1

# %%
torch.optim.SGD([p1], lr=-1.0)

# %%
torch.optim.Adam([p1], betas=(1.5, 0.9))

# %%
torch.optim.SGD([p1], lr=0.1, nesterov=True)

# %%
# an optimizer step with no gradient leaves the parameter alone
p3 = torch.tensor([1.0, 1.0], requires_grad=True)
o3 = torch.optim.Adam([p3], lr=0.1)
o3.step()
p3

# %%
# nn.init: deterministic ones are compared by value, random ones by their bounds
w = torch.empty(4, 6)
nn.init.zeros_(w)
print(w.sum())
nn.init.ones_(w)
print(w.sum())
nn.init.constant_(w, 0.25)
print(w.sum())
print(nn.init.calculate_gain("relu"), nn.init.calculate_gain("tanh"), nn.init.calculate_gain("leaky_relu", 0.2))
torch.manual_seed(0)
u = nn.init.uniform_(torch.empty(200), a=-0.1, b=0.2)
print(bool(u.min() >= -0.1), bool(u.max() <= 0.2), u.shape)
n = nn.init.normal_(torch.empty(1000), mean=3.0, std=0.01)
print(bool((n - 3.0).abs().max() < 0.1))
xu = nn.init.xavier_uniform_(torch.empty(30, 20))
bound = math.sqrt(6.0 / (30 + 20))
print(bool(xu.abs().max() <= bound), xu.shape)
ku = nn.init.kaiming_uniform_(torch.empty(30, 20), a=math.sqrt(5))
kbound = math.sqrt(6.0 / ((1 + 5) * 20))
print(bool(ku.abs().max() <= kbound + 1e-6))
ku2 = nn.init.kaiming_uniform_(torch.empty(30, 20), mode="fan_out", nonlinearity="relu")
print(bool(ku2.abs().max() <= math.sqrt(6.0 / 30)))
pw = nn.Parameter(torch.ones(3))
r = nn.init.zeros_(pw)
print(r is pw, pw.requires_grad, pw.grad_fn)

# %%
nn.init.xavier_uniform_(torch.empty(5))

# %%
# a tutorial-style MLP on a small made-up dataset: cross_entropy and SGD with momentum
N = 60
t = torch.linspace(0, 1, N)
X = torch.stack([torch.cos(6.0 * t) * t, torch.sin(6.0 * t) * t], dim=1)
Y = (torch.arange(N) % 3)
X = X + 0.3 * F.one_hot(Y, 3).float()[:, :2]
model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 3))
with torch.no_grad():
    for i, prm in enumerate(model.parameters()):
        vals = torch.linspace(-1.0, 1.0, prm.numel())
        prm.copy_((torch.sin(vals * (3.0 + i)) * 0.5).reshape(prm.shape))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
losses = []
for epoch in range(100):
    optimizer.zero_grad()
    logits = model(X)
    loss = F.cross_entropy(logits, Y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    if epoch % 20 == 0:
        print(f"epoch {epoch:3d} loss {loss.item():.4f}")
accuracy = (model(X).argmax(dim=1) == Y).float().mean()
print(f"final loss {losses[-1]:.4f} accuracy {accuracy.item():.3f}")
loss_curve = torch.tensor(losses)

# %%
# StepLR on the same optimizer
sched = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
lrs = []
for _ in range(5):
    optimizer.step()
    sched.step()
    lrs.append(optimizer.param_groups[0]["lr"])
print(lrs, sched.get_last_lr())
