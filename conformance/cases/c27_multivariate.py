# torch.distributions' multivariate and relaxed distributions as tutorials use them: a VAE's
# reparameterized MultivariateNormal and LowRankMultivariateNormal samples with gradients to
# the encoder's loc and scale, the KL term against a standard normal, a Gaussian mixture's
# log-likelihood, and Gumbel-softmax / relaxed samples. Seeded with torch.random.manual_seed
# (which the recorder leaves as is), so the sampled values are compared too.
import torch
from torch.distributions import (LowRankMultivariateNormal, MixtureSameFamily, MultivariateNormal, Normal,
                                 Categorical, Independent, RelaxedBernoulli, RelaxedOneHotCategorical, kl_divergence)

# %%
# A VAE's latent: loc and a lower-triangular scale from an "encoder", z = loc + L @ eps.
torch.random.manual_seed(0)
h = torch.randn(4, 3)
w_loc = torch.randn(3, 2, requires_grad=True)
w_scale = torch.randn(3, 2, requires_grad=True)
z_loc = h @ w_loc
z_diag = torch.nn.functional.softplus(h @ w_scale) + 0.1
z_tril = torch.diag_embed(z_diag) + torch.tensor([[0.0, 0.0], [0.3, 0.0]])
q = MultivariateNormal(z_loc, scale_tril=z_tril)
z = q.rsample()
prior = MultivariateNormal(torch.zeros(2), torch.eye(2))
kl = kl_divergence(q, prior)
log_q = q.log_prob(z)
loss = (kl + (z ** 2).sum(-1)).mean()
loss.backward()
print(q)
print(q.batch_shape, q.event_shape, z.grad_fn, kl.grad_fn)
(z, kl, log_q, q.entropy(), q.covariance_matrix, w_loc.grad, w_scale.grad)

# %%
# A low-rank-plus-diagonal covariance: sample, density, and the KL between two of them.
torch.random.manual_seed(1)
loc = torch.zeros(3, requires_grad=True)
factor = torch.tensor([[1.0], [0.5], [-0.3]], requires_grad=True)
diag = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
lr = LowRankMultivariateNormal(loc, factor, diag)
x = lr.rsample((5,))
lr_log_prob = lr.log_prob(x)
lr_log_prob.sum().backward()
other = LowRankMultivariateNormal(torch.ones(3), factor.detach() * 2, torch.ones(3))
print(lr)
(x, lr_log_prob, lr.variance, lr.covariance_matrix, lr.precision_matrix, kl_divergence(lr, other),
 factor.grad, diag.grad)

# %%
# A mixture of three 1-D Gaussians: its log-likelihood on data, trained one step.
torch.random.manual_seed(2)
mix_logits = torch.zeros(3, requires_grad=True)
means = torch.tensor([-2.0, 0.0, 3.0], requires_grad=True)
log_scales = torch.zeros(3, requires_grad=True)
gmm = MixtureSameFamily(Categorical(logits=mix_logits), Normal(means, log_scales.exp()))
data = gmm.sample((6,))
nll = -gmm.log_prob(data).mean()
nll.backward()
print(gmm)
(data, nll, gmm.mean, gmm.variance, mix_logits.grad, means.grad, log_scales.grad)

# %%
# A 2-D mixture with Independent components, and its support's repr.
torch.random.manual_seed(3)
gmm2 = MixtureSameFamily(Categorical(probs=torch.tensor([0.3, 0.7])),
                         Independent(Normal(torch.tensor([[0.0, 0.0], [2.0, -1.0]]), torch.ones(2, 2)), 1))
points = gmm2.sample((4,))
print(gmm2.support, gmm2.event_shape)
(points, gmm2.log_prob(points))

# %%
# Gumbel-softmax: a relaxed one-hot sample that carries gradient to the logits.
torch.random.manual_seed(4)
logits = torch.tensor([[1.0, 0.5, -1.0], [0.0, 2.0, 0.1]], requires_grad=True)
relaxed = RelaxedOneHotCategorical(torch.tensor(0.5), logits=logits)
soft = relaxed.rsample()
(soft * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(relaxed, relaxed.event_shape)
(soft, relaxed.log_prob(soft.detach()), logits.grad)

# %%
# A relaxed Bernoulli gate.
torch.random.manual_seed(5)
gate_probs = torch.tensor([0.1, 0.5, 0.9], requires_grad=True)
gate = RelaxedBernoulli(torch.tensor(0.3), probs=gate_probs)
g = gate.rsample((2,))
g.sum().backward()
print(gate)
(g, gate.log_prob(g.detach()), gate_probs.grad)

# %%
# The errors a misuse meets.
MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[1.0, 2.0], [2.0, 1.0]]))

# %%
LowRankMultivariateNormal(torch.zeros(2), torch.ones(3, 1), torch.ones(2))
