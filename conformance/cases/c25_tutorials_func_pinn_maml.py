# Lessons in the style of the torch.func ensembling and per-sample-gradient tutorials, a
# physics-informed network (derivatives of derivatives with create_graph) and MAML
# (second-order gradients through an inner loop with functional weights), on tiny models.
# Seeds are set with torch.random.manual_seed, which record.py does not shift: the values
# drawn after them are compared too, so they check PyTorch's random streams as well.
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, stack_module_state, vmap

# %%
class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


torch.random.manual_seed(0)
num_models = 3
minibatches = torch.randn(num_models, 5, 4)
models = [SimpleMLP() for _ in range(num_models)]
predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]
params, buffers = stack_module_state(models)
print({k: (v.shape, v.requires_grad, v.is_leaf) for k, v in params.items()}, buffers)
base_model = copy.deepcopy(models[0])


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


# (the vmapped results are used inline and not backpropagated: the graph PyTorch records
# through vmap is not what these lessons check)
print(torch.allclose(vmap(fmodel)(params, buffers, minibatches), torch.stack(predictions_diff_minibatch_loop),
                     atol=1e-3, rtol=1e-5))
minibatch = minibatches[0]
print(vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch).shape,
      torch.allclose(vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch),
                     torch.stack([m(minibatch) for m in models]), atol=1e-3))
params['fc1.weight'].shape

# %%
torch.random.manual_seed(1)
model = SimpleMLP()
data = torch.randn(6, 4)
targets = torch.tensor([0, 2, 1, 1, 0, 2])
fparams = {k: v.detach() for k, v in model.named_parameters()}
fbuffers = {k: v.detach() for k, v in model.named_buffers()}


# (a squared error to one-hot targets made outside vmap: PyTorch 2.13's vmap refuses the
# tutorial's cross_entropy, and one_hot, over a batched class index, as data-dependent;
# gradviz's vmap does not yet refuse them)
targets = F.one_hot(targets, 3).float()


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return F.mse_loss(predictions, targets)


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(fparams, fbuffers, data, targets)


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)
    target = target.unsqueeze(0)
    loss = F.mse_loss(model(sample), target)
    return torch.autograd.grad(loss, list(model.parameters()))


per_sample_grads = [compute_grad(data[i], targets[i]) for i in range(6)]
per_sample_grads = zip(*per_sample_grads)
per_sample_grads = [torch.stack(shards) for shards in per_sample_grads]
for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
    print(per_sample_grad.shape, torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5))
fw1 = ft_per_sample_grads['fc1.weight']

# %%
torch.random.manual_seed(2)
pinn = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1))
x = torch.linspace(0, 1, 6).reshape(-1, 1).requires_grad_(True)
u = pinn(x)
u_x = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
u_xx = torch.autograd.grad(u_x, x, grad_outputs=torch.ones_like(u_x), create_graph=True)[0]
residual = u_xx + torch.pi ** 2 * torch.sin(torch.pi * x)
x_b = torch.tensor([[0.0], [1.0]])
loss_pde = torch.mean(residual ** 2)
loss_bc = torch.mean(pinn(x_b) ** 2)
loss = loss_pde + loss_bc
opt = torch.optim.Adam(pinn.parameters(), lr=1e-3)
opt.zero_grad()
loss.backward()
opt.step()
print(u_x.grad_fn, u_xx.grad_fn, u_x.requires_grad, residual.grad_fn, loss.grad_fn)
u, u_x, u_xx, loss, pinn[0].weight.grad

# %%
torch.random.manual_seed(3)
t = torch.linspace(0.1, 1.0, 5, requires_grad=True)
y = t ** 3 * torch.exp(-t)
dy, = torch.autograd.grad(y.sum(), t, create_graph=True)
d2y, = torch.autograd.grad(dy.sum(), t, create_graph=True)
d3y, = torch.autograd.grad(d2y.sum(), t)
print(dy.grad_fn, d2y.grad_fn, d3y.requires_grad)
H = torch.autograd.functional.hessian(lambda v: (v ** 2).prod(), torch.tensor([1.0, 2.0, 3.0]))
J = torch.autograd.functional.jacobian(lambda v: torch.stack([v[0] * v[1], v[1].sin()]), torch.tensor([0.5, 1.5]))
dy, d2y, d3y, H, J

# %%
def net_forward(x, weights):
    h = F.relu(F.linear(x, weights[0], weights[1]))
    return F.linear(h, weights[2], weights[3])


torch.random.manual_seed(4)
meta_model = nn.Sequential(nn.Linear(1, 10), nn.ReLU(), nn.Linear(10, 1))
meta_opt = torch.optim.Adam(meta_model.parameters(), lr=1e-3)
inner_lr = 0.01
meta_opt.zero_grad()
outer_losses = []
for task in range(2):
    amp, phase = 1.0 + task, 0.5 * task
    x_s = torch.rand(5, 1) * 10 - 5
    y_s = amp * torch.sin(x_s + phase)
    x_q = torch.rand(5, 1) * 10 - 5
    y_q = amp * torch.sin(x_q + phase)
    fast_weights = list(meta_model.parameters())
    for step in range(2):
        inner_loss = F.mse_loss(net_forward(x_s, fast_weights), y_s)
        grads = torch.autograd.grad(inner_loss, fast_weights, create_graph=True)
        fast_weights = [w - inner_lr * g for w, g in zip(fast_weights, grads)]
    outer_loss = F.mse_loss(net_forward(x_q, fast_weights), y_q)
    outer_loss.backward()
    outer_losses.append(outer_loss.item())
meta_opt.step()
print(fast_weights[0].grad_fn, grads[0].grad_fn, len(outer_losses), outer_loss.grad_fn)
first_order = torch.autograd.grad(F.mse_loss(net_forward(x_s, list(meta_model.parameters())), y_s),
                                  list(meta_model.parameters()), allow_unused=True)
meta_model[0].weight.grad, meta_model[2].bias.grad, fast_weights[3], first_order[3]
