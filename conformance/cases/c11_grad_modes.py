# Grad modes: no_grad (context and decorator), enable_grad inside no_grad (as a decorator
# too), set_grad_enabled as a function / context / decorator, inference_mode and the
# inference-tensor rules, is_grad_enabled, and freezing parameters with requires_grad_(False).
import torch
import torch.nn as nn

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

# %%
with torch.no_grad():
    a = x * 2
    print(torch.is_grad_enabled(), a.requires_grad, a.grad_fn)
b = x * 2
print(torch.is_grad_enabled(), b.requires_grad, type(b.grad_fn).__name__)


@torch.no_grad()
def double(t):
    return t * 2


c = double(x)
print(c.requires_grad, double.__name__)

# %%
@torch.enable_grad()
def triple(t):
    return t * 3


with torch.no_grad():
    d = triple(x)
    e = x * 3
    with torch.enable_grad():
        f = x * 4
print(d.requires_grad, type(d.grad_fn).__name__, e.requires_grad, f.requires_grad)
(d.sum() + f.sum()).backward()
x.grad

# %%
x.grad = None
torch.set_grad_enabled(False)
g = x * 5
print(torch.is_grad_enabled(), g.requires_grad)
torch.set_grad_enabled(True)
h = x * 5
print(torch.is_grad_enabled(), h.requires_grad)
with torch.set_grad_enabled(False):
    i = x * 6
with torch.set_grad_enabled(True):
    j = x * 6
print(i.requires_grad, j.requires_grad)
is_train = False
with torch.set_grad_enabled(is_train):
    k = x ** 2
print(k.requires_grad, torch.is_grad_enabled())


@torch.set_grad_enabled(False)
def frozen(t):
    return t + 1


print(frozen(x).requires_grad, torch.is_grad_enabled())

# %%
# grad mode is restored after an exception inside no_grad
try:
    with torch.no_grad():
        raise ValueError("inside")
except ValueError as err:
    print("caught", err, torch.is_grad_enabled())

# %%
with torch.inference_mode():
    inf = x * 2
    print(torch.is_inference_mode_enabled(), torch.is_grad_enabled(), inf.requires_grad, inf.is_inference())
print(torch.is_inference_mode_enabled(), x.is_inference())
with torch.inference_mode(mode=False):
    not_inf = x * 2
print(not_inf.requires_grad, not_inf.is_inference())


@torch.inference_mode()
def predict(t):
    return t * 10


pr = predict(x)
print(pr.requires_grad, pr.is_inference())
inf

# %%
# an inference tensor cannot be saved for backward outside inference mode
w = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
(w * inf).sum().backward()

# %%
inf.add_(1)

# %%
# a clone outside inference mode is a normal tensor
normal = inf.clone()
print(normal.is_inference())
(w * normal).sum().backward()
w.grad

# %%
# no_grad inside inference_mode and the other way round
with torch.inference_mode():
    with torch.no_grad():
        nn_in = x + 1
with torch.no_grad():
    with torch.inference_mode():
        in_nn = x + 1
print(nn_in.is_inference(), in_nn.is_inference())

# %%
# freezing the first layer of a model
model = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
with torch.no_grad():
    for prm in model.parameters():
        prm.fill_(0.5)
for prm in model[0].parameters():
    prm.requires_grad_(False)
print([prm.requires_grad for prm in model.parameters()])
out = model(torch.tensor([[1.0, -1.0]]))
out.backward()
print([prm.grad for prm in model.parameters()])
trainable = [name for name, prm in model.named_parameters() if prm.requires_grad]
print(trainable)
out

# %%
# everything frozen: backward has nothing to do
for prm in model.parameters():
    prm.requires_grad_(False)
model(torch.ones(1, 2)).backward()

# %%
# requires_grad_ on a leaf, detach_, and requires_grad of results
r = torch.ones(2)
print(r.requires_grad_(), r.requires_grad)
s = r * 2
s2 = s.detach_()
print(s2 is s, s.requires_grad, s.grad_fn, s.is_leaf)
torch.ones(2, dtype=torch.long).requires_grad_()
