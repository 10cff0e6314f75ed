# Schedulers as tutorials use them, optimizers' seeded trajectories, storage offsets of views,
# gumbel_softmax, and nn's messages that name a class.
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

# %%
model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=20)
lrs = []
for _ in range(19):
    opt.step()
    sched.step()
    lrs.append(sched.get_last_lr()[0])
print([round(v, 12) for v in lrs])
print(opt.param_groups[0]["momentum"])

# %%
opt = torch.optim.Adam(model.parameters(), lr=0.01)
warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=5)
cosine = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=2, eta_min=1e-5)
sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cosine], milestones=[5])
seen = []
for _ in range(30):
    opt.step()
    sched.step()
    seen.append(sched.get_last_lr()[0])
print(seen)
print(sorted(sched.state_dict()))

# %%
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.8)
cyc = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="triangular2")
plateau_opt = torch.optim.SGD(model.parameters(), lr=1.0)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(plateau_opt, patience=1, factor=0.5)
for step in range(12):
    opt.step()
    cyc.step()
    plateau.step(1.0)
print(cyc.get_last_lr(), opt.param_groups[0]["momentum"], plateau.get_last_lr())
chained = torch.optim.lr_scheduler.ChainedScheduler([
    torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9),
    torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=2.0)])
for _ in range(6):
    chained.step()
print(chained.get_last_lr())

# %%
fresh = torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.1)
step_sched = torch.optim.lr_scheduler.StepLR(fresh, step_size=2)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    step_sched.step()
print([str(w.message) for w in caught])

# %%
torch.random.manual_seed(0)  # not shifted by record.py: the values are compared
w = torch.randn(4, 3, requires_grad=True)
x = torch.randn(8, 4)
for name, make in [("adam", lambda p: torch.optim.Adam(p, lr=0.01, weight_decay=0.1, amsgrad=True)),
                   ("rmsprop", lambda p: torch.optim.RMSprop(p, lr=0.01, centered=True, momentum=0.5)),
                   ("sgd", lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9, nesterov=True))]:
    p = w.detach().clone().requires_grad_()
    o = make([p])
    for _ in range(50):
        o.zero_grad()
        ((x @ p).tanh() ** 2).mean().backward()
        o.step()
    globals()["trained_" + name] = p
adam_state = o.state_dict()["param_groups"][0]["lr"]

# %%
base = torch.arange(60.).reshape(3, 4, 5)
print(base.storage_offset(), base.narrow(2, 1, 3).storage_offset(), base[1:, 2:].storage_offset(),
      base.select(1, 2).storage_offset(), base.unbind(0)[2].storage_offset(), base[:, ::2, 1:].storage_offset())
tail = base.flatten()[7:]
print(tail.storage_offset(), tail.clone().storage_offset())

# %%
torch.random.manual_seed(1)  # not shifted by record.py: the values are compared
logits = torch.randn(16, 6, requires_grad=True)
soft = F.gumbel_softmax(logits, tau=0.5)
hard = F.gumbel_softmax(logits, hard=True)
print(hard.sum(dim=-1))
picked = (hard * torch.arange(6.)).sum(-1)  # a one-hot's statistics do not change with the seed: its index does
(soft.sum() + picked.sum()).backward()
del hard

# %%
nn.Sequential(int)

# %%
nn.Module().add_module("a", 3)

# %%
torch.optim.SGD([int], lr=0.1)
