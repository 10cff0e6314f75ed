# Lessons in the style of the saved-tensor-hooks tutorial, anomaly detection and gradient
# clipping: pack/unpack hooks on a graph and on one saved tensor, save_on_cpu,
# disable_saved_tensors_hooks, tensor hooks that scale and record gradients, detect_anomaly
# and set_detect_anomaly on NaN gradients, clip_grad_norm_ / clip_grad_value_ with their
# norms and options, parameters_to_vector.
# Seeds are set with torch.random.manual_seed, which record.py does not shift: the values
# drawn after them are compared too, so they check PyTorch's random streams as well.
import math
import warnings
import torch
import torch.nn as nn

# %%
packed = []


def pack_hook(x):
    packed.append(tuple(x.shape))
    return x


def unpack_hook(x):
    return x


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
    z = y.sin()
print(packed, y.grad_fn._saved_self, y.grad_fn._saved_other)
z.sum().backward()
print(a.grad)
a.grad

# %%
def pack_scale(x):
    return x * 4


def unpack_scale(x):
    return x / 4


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_scale, unpack_scale):
    y = x.pow(2)
y.sum().backward()
print(x.grad, y.grad_fn._saved_self)
x2 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y2 = x2.exp()
y2.grad_fn._raw_saved_result.register_hooks(lambda t: t * 2, lambda t: t)
y2.sum().backward()
print(x2.grad)
x3 = torch.tensor([0.5, 1.5], requires_grad=True)
with torch.autograd.graph.save_on_cpu(pin_memory=False):
    y3 = (x3 * x3).tanh()
y3.sum().backward()
x3.grad, x.grad, x2.grad

# %%
with torch.autograd.graph.disable_saved_tensors_hooks("saved tensor hooks are off here"):
    try:
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
    except RuntimeError as e:
        print(type(e).__name__, e)
x = torch.tensor([2.0], requires_grad=True)
y = x * x
y.backward(retain_graph=True)
print(y.grad_fn._saved_self)
y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)

# %%
grads = {}


def save_grad(name):
    def hook(grad):
        grads[name] = grad
    return hook


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 3
y.register_hook(save_grad('y'))
h = x.register_hook(lambda g: g * 2)
z = (y ** 2).sum()
z.backward()
print(grads['y'], x.grad)
h.remove()
x.grad = None
(y.detach() * x).sum().backward()
print(x.grad)
grads['y'], x.grad

# %%
torch.autograd.set_detect_anomaly(True)
print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
torch.autograd.set_detect_anomaly(False)
print(torch.is_anomaly_enabled())
x = torch.tensor([-1.0, 4.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        y = x.sqrt()
        print(y)
        z = y.sum()
        z.backward()
print(x.grad, len(caught))

# %%
x = torch.tensor([0.0, 1.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    out = (x / x).sum()
    out.backward()

# %%
x = torch.tensor([0.0, 1.0], requires_grad=True)
with torch.autograd.set_detect_anomaly(True, check_nan=False):
    out = (x * 0 / x).nansum()
    out.backward()
print(x.grad, torch.is_anomaly_enabled())
with torch.autograd.set_detect_anomaly(False):
    x.grad = None
    (x.log() * 0).sum().backward()
x.grad

# %%
torch.random.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
inp = torch.randn(5, 3) * 10
loss = model(inp).pow(2).sum()
loss.backward()
total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(total_norm, total_norm.requires_grad, total_norm.dtype)
after = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters()))
print(after <= 1.0 + 1e-6)
inf_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5, norm_type=float('inf'))
one_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5, norm_type=1)
torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.01)
print(inf_norm, one_norm, max(p.grad.abs().max() for p in model.parameters()))
vec = torch.nn.utils.parameters_to_vector(model.parameters())
torch.nn.utils.vector_to_parameters(vec * 0 + 1, model.parameters())
print(vec.shape, model[0].bias, torch.nn.utils.clip_grad_norm_([], 1.0))
total_norm, inf_norm, one_norm, model[0].weight.grad, model[2].weight.grad

# %%
w = torch.tensor([1.0, 2.0], requires_grad=True)
w.grad = torch.tensor([float('nan'), 1.0])
print(torch.nn.utils.clip_grad_norm_([w], 1.0))
w.grad = torch.tensor([3.0, 4.0])
single = torch.nn.utils.clip_grad_norm_(w, 1.0)
print(single, w.grad)
w.grad = torch.tensor([float('inf'), 1.0])
torch.nn.utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=True)
