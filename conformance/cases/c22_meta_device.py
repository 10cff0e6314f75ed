# The meta device: tensors with a shape and a dtype and no data. Factories, .to('meta'),
# ops and their result shapes and dtypes, reprs, autograd, nn modules built on meta and
# materialised with to_empty, and every refusal to read values or mix devices.
import torch
import torch.nn as nn
import torch.nn.functional as F

# %%
m = torch.empty(2, 3, device="meta")
print(m)
print(m.device, m.device.type, m.is_meta, torch.ones(1).is_meta)
print(torch.device("meta"), repr(torch.device("meta")))
print(torch.zeros(4, dtype=torch.int64, device="meta"))
print(torch.ones(2, 2, dtype=torch.bool, device="meta"))
print(torch.ones((), dtype=torch.float64, device="meta"))
print(torch.ones(0, 3, device="meta"))
print(torch.arange(5, device="meta"), torch.full((2,), 1.5, device="meta"))
print(torch.empty(10 ** 6, 10 ** 6, device="meta").shape)

# %%
c = torch.linspace(-1, 1, 6).reshape(2, 3).requires_grad_()
moved = c.to("meta")
print(moved)
print(torch.ones(3).to(device="meta"), torch.empty_like(c, device="meta"))
print(m.to("meta") is m, m.to(torch.float64))
print(m.stride(), m.t().shape, m.numel())

# %%
a = torch.empty(4, 1, 3, device="meta")
b = torch.empty(2, 1, device="meta")
s = a + b
print(s)
print(a * 2.5, (a > 0).dtype, torch.ones(2, dtype=torch.int64, device="meta") / 2)
print(a @ torch.empty(3, 5, device="meta"))
print(a.sum(), a.mean(-1, keepdim=True), a.max(0))
print(a.reshape(12).shape, a.permute(2, 0, 1).shape, a.squeeze(1).shape, a[1:, 0].shape)
print(torch.cat([a, a]).shape, torch.stack([a, a], dim=1).shape)
print(a.softmax(-1), F.log_softmax(a, 0).dtype)
print(F.conv2d(torch.empty(1, 2, 6, 5, device="meta"), torch.empty(4, 2, 3, 3, device="meta"), padding=1))

# %%
x = torch.empty(2, 3, device="meta", requires_grad=True)
y = (x.exp() * 3).sum()
print(y)
y.backward()
print(x.grad)
print(torch.autograd.grad((x * x).sum(), x))

# %%
layer = nn.Linear(3, 4, device="meta")
print(layer.weight)
out = layer(torch.empty(5, 3, device="meta"))
print(out)
print(nn.Conv2d(2, 3, 3, device="meta")(torch.empty(1, 2, 5, 5, device="meta")))
print(nn.LayerNorm(3, device="meta")(torch.empty(2, 3, device="meta")))
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to("meta")
print([p.device.type for p in net.parameters()], net(torch.empty(6, 3, device="meta")).shape)

# %%
with torch.device("meta"):
    inside = nn.Linear(3, 4)
    made = torch.ones(2)
print(inside.weight.is_meta, made.is_meta, torch.ones(1).is_meta)
real = inside.to_empty(device="cpu")
print(real.weight.shape, real.weight.dtype, real.weight.device, real.weight.requires_grad)
del inside, real  # uninitialised storage: its values are arbitrary, so they are not recorded

# %%
torch.ones((), device="meta").item()

# %%
m.tolist()

# %%
m.numpy()

# %%
float(torch.ones((), device="meta"))

# %%
bool(torch.ones((), device="meta"))

# %%
m.to("cpu")

# %%
torch.ones(2, 3).copy_(m)

# %%
nn.Linear(3, 4, device="meta").to("cpu")

# %%
m + torch.ones(2, 3)

# %%
torch.ones(2, 3) * torch.ones((), device="meta")

# %%
torch.cat([torch.ones(2, 3), m])

# %%
m + torch.empty(4, device="meta")

# %%
print(m + torch.tensor(1.0), torch.tensor(2.0) * m)
