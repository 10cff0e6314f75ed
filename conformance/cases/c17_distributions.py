# torch.distributions: a REINFORCE policy gradient with Categorical, a VAE-style Normal
# rsample with kl_divergence against a standard normal, Bernoulli by probs and by logits,
# Uniform and OneHotCategorical, expand, the reprs, and the validation errors. The cells
# whose values depend on the seed come last, so that the tensors only their metadata can
# be checked of are listed after few cells.
import torch
from torch.distributions import Bernoulli, Categorical, Normal, OneHotCategorical, Uniform, kl_divergence

# %%
# A linear policy over 3 actions in 4 states, scored on fixed actions: every value is checked.
states = torch.tensor([[1.0, 0.5], [-0.3, 0.8], [0.2, -1.0], [0.9, 0.1]])
returns = torch.tensor([1.0, -0.5, 2.0, 0.3])
w_fixed = torch.tensor([[0.5, -0.2, 0.1], [0.3, 0.4, -0.6]], requires_grad=True)
fixed_policy = Categorical(logits=states @ w_fixed)
fixed_actions = torch.tensor([0, 2, 1, 1])
fixed_log_probs = fixed_policy.log_prob(fixed_actions)
policy_entropy = fixed_policy.entropy()
pg_loss = -(fixed_log_probs * returns).mean() - 0.01 * policy_entropy.mean()
pg_loss.backward()
action_probs = fixed_policy.probs
print(fixed_policy)
print(fixed_policy.batch_shape, fixed_policy.event_shape, fixed_log_probs.grad_fn)
(fixed_log_probs, policy_entropy, action_probs, w_fixed.grad)

# %%
# Normal's closed forms on fixed values.
loc = torch.tensor([0.0, 1.0, -2.0], requires_grad=True)
scale = torch.tensor([1.0, 0.5, 2.0], requires_grad=True)
n = Normal(loc, scale)
values = torch.tensor([0.3, 1.2, -1.0])
normal_log_prob = n.log_prob(values)
normal_cdf = n.cdf(values)
normal_entropy = n.entropy()
normal_kl = kl_divergence(n, Normal(0.5, 1.5))
(normal_log_prob + normal_cdf + normal_entropy + normal_kl).sum().backward()
print(Normal(0.0, 1.0), n.mean, n.stddev, n.variance)
(normal_log_prob, normal_cdf, normal_entropy, normal_kl, loc.grad, scale.grad)

# %%
# Bernoulli by logits: log_prob through BCE-with-logits, entropy, KL to one by probs.
p_logits = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
b = Bernoulli(logits=p_logits)
b_log_prob = b.log_prob(torch.tensor([1.0, 0.0, 1.0]))
b_entropy = b.entropy()
b_kl = kl_divergence(b, Bernoulli(probs=torch.tensor([0.3, 0.5, 0.9])))
(b_log_prob.sum() + b_entropy.sum() + b_kl.sum()).backward()
print(b, Bernoulli(0.25), b_log_prob.grad_fn, b_entropy.grad_fn)
(b_log_prob, b_entropy, b_kl, p_logits.grad, b.probs)

# %%
# A negative scale fails validation, in PyTorch's words.
Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, -1.0]))

# %%
# A value outside the support.
Categorical(torch.tensor([0.5, 0.5])).log_prob(torch.tensor(2))

# %%
# No KL is registered for this pair.
kl_divergence(Categorical(torch.tensor([0.5, 0.5])), Normal(0.0, 1.0))

# %%
# Samples: Bernoulli, Uniform, OneHotCategorical, expand and sample shapes.
torch.manual_seed(4)
coin = b.sample((4,))
u = Uniform(torch.tensor([0.0, -1.0]), torch.tensor([2.0, 1.0]))
u_sample = u.rsample((3,))
u_log_prob = u.log_prob(torch.tensor([1.0, 0.5]))
one_hot = OneHotCategorical(probs=torch.tensor([0.2, 0.3, 0.5]))
one_hot_index = one_hot.sample((8,)) @ torch.arange(3.0)  # one-hot rows all share their statistics
expanded = Normal(torch.tensor(0.0), 1.0).expand((2, 3))
print(u, one_hot, expanded, expanded.batch_shape)
print(expanded.sample().shape, Categorical(torch.tensor([1.0, 1.0])).sample((2, 3)).shape)
(u_log_prob, u.entropy(), one_hot.entropy())  # the samples' values vary with the seed: not printed

# %%
# REINFORCE: sample the policy's actions, weight their log-probabilities by the returns.
torch.manual_seed(0)
w_policy = torch.tensor([[0.5, -0.2, 0.1], [0.3, 0.4, -0.6]], requires_grad=True)
policy = Categorical(logits=states @ w_policy)
actions = policy.sample()
log_probs = policy.log_prob(actions)
reinforce_loss = -(log_probs * returns).sum()
reinforce_loss.backward()
print(policy, actions.shape, log_probs.grad_fn)
(actions.dtype, log_probs.shape, w_policy.grad.shape)  # a few small integers could match by chance

# %%
# A few policy-gradient steps with SGD, sampling each step.
torch.manual_seed(3)
w_train = torch.tensor([[0.5, -0.2, 0.1], [0.3, 0.4, -0.6]], requires_grad=True)
opt = torch.optim.SGD([w_train], lr=0.1)
for step in range(3):
    opt.zero_grad()
    dist = Categorical(logits=states @ w_train)
    a = dist.sample((2,))
    step_loss = -(dist.log_prob(a) * returns).sum()
    step_loss.backward()
    opt.step()
w_train

# %%
# VAE-style: an encoder gives mu and logvar, z = mu + eps * std by rsample, KL to N(0, 1).
torch.manual_seed(1)
x = torch.tensor([[0.5, -1.0, 0.25], [1.5, 0.0, -0.5]])
w_enc = torch.tensor([[0.2, -0.1, 0.4, 0.3], [0.1, 0.5, -0.2, 0.0], [-0.3, 0.2, 0.1, 0.6]], requires_grad=True)
h = x @ w_enc
mu, logvar = h[:, :2], h[:, 2:]
std = torch.exp(0.5 * logvar)
q = Normal(mu, std)
prior = Normal(torch.zeros_like(mu), torch.ones_like(std))
z = q.rsample()
kl = kl_divergence(q, prior).sum(-1)
recon = (z ** 2).sum(-1)
elbo_loss = (recon + kl).mean()
elbo_loss.backward()
print(q)
print(z.grad_fn, kl.grad_fn, q.log_prob(z).grad_fn)
(z, kl, w_enc.grad)
