# Edge cases of gradients found by the property tests (tests/test_properties_engine.py):
# atan2 at the origin, second derivatives of piecewise-linear activations (zeros, not
# None), lerp with mixed dtypes, expand() without a size, and gather with repeated indices.
import torch
import torch.nn.functional as F

# %%
x = torch.zeros(2, requires_grad=True)
y = torch.tensor([0.0, 1.0], requires_grad=True)
torch.atan2(x, y).sum().backward()
(x.grad, y.grad)

# %%
# second order through leaky_relu / hardtanh / relu / elu: a zero gradient, not None
del x, y
results = {}
for name, f in {"leaky_relu": lambda t: F.leaky_relu(t, 0.1), "hardtanh": F.hardtanh,
                "relu": torch.relu, "elu": F.elu}.items():
    t = torch.tensor([0.3, -0.8, 1.2], dtype=torch.float64, requires_grad=True)
    up = torch.ones(3, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(f(t), t, up, create_graph=True)
    g2 = torch.autograd.grad((g * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum(), [t, up],
                             allow_unused=True)
    results[name] = [None if r is None else r.tolist() for r in g2]
    print(f"{name:10s}", results[name])
    del g, g2  # PyTorch may return an efficient zero tensor, which has no storage to record

# %%
# float64 tensors made from Python floats keep float64 precision
print(torch.tensor([0.3, 0.1], dtype=torch.float64).tolist(), torch.tensor(0.3, dtype=torch.float64).item())
print(torch.tensor([[0.1, 0.7]], dtype=torch.float64, requires_grad=True).tolist(), torch.tensor([0.1]).double().tolist())

# %%
torch.lerp(torch.ones(2), torch.ones(2, dtype=torch.float64), 0.3)

# %%
torch.lerp(torch.ones(2, requires_grad=True), torch.zeros(2), 0.25)

# %%
torch.tensor(1.0).expand()

# %%
w = torch.zeros(3, requires_grad=True)
gw = w.gather(0, torch.tensor([1, 1, 2, 1]))
gw.sum().backward()
w.grad

# %%
del w
w2 = torch.zeros(2, 3, requires_grad=True)
w2.gather(1, torch.tensor([[0, 0], [2, 2]])).sum().backward()
w2.grad

# %%
# the same values through scatter_add and index_add
del w2
z = torch.zeros(3).scatter_add(0, torch.tensor([1, 1, 2, 1]), torch.ones(4))
zi = torch.zeros(3).index_add(0, torch.tensor([1, 1, 2, 1]), torch.ones(4))
(z, zi)
