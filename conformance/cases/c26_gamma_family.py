# Lessons with the Gamma family and the counting distributions: a Gamma and a Beta fitted by
# their reparameterized samples (gradients through torch._standard_gamma and the Dirichlet
# sampler), a Dirichlet prior over mixture weights, and a Poisson / Binomial count model.
# Seeds are set with torch.random.manual_seed, which record.py does not shift: the samples
# drawn after them are compared too, so they check PyTorch's gamma, Poisson and binomial
# streams bit for bit.
import torch
from torch.distributions import (Beta, Binomial, Chi2, Dirichlet, Gamma, NegativeBinomial, Poisson, StudentT,
                                 kl_divergence)

# %%
torch.random.manual_seed(0)
concentration = torch.tensor([0.4, 1.0, 3.5], requires_grad=True)
rate = torch.tensor([1.0, 2.0, 0.5], requires_grad=True)
gamma = Gamma(concentration, rate)
print(gamma, gamma.batch_shape)
samples = gamma.rsample((4,))
print(samples)
objective = (samples ** 2).mean()
objective.backward()
print(concentration.grad, rate.grad)
print(samples.grad_fn, samples.grad_fn.next_functions[0][0])
log_prob = gamma.log_prob(samples.detach())
entropy = gamma.entropy()
print(gamma.mean, gamma.variance, gamma.mode)

# %%
torch.random.manual_seed(1)
a = torch.tensor([0.5, 2.0, 5.0], requires_grad=True)
b = torch.tensor([1.5, 2.0, 0.7], requires_grad=True)
beta = Beta(a, b)
x = beta.rsample((3,))
print(x, x.grad_fn)
loss = -beta.log_prob(x.clamp(1e-4, 1 - 1e-4)).mean() + x.sum()
loss.backward()
print(a.grad, b.grad)
print(beta.mean, beta.variance, beta.entropy())
prior = Beta(torch.tensor([2.0, 2.0, 2.0]), torch.tensor([2.0, 2.0, 2.0]))
kl = kl_divergence(beta, prior)

# %%
torch.random.manual_seed(2)
alpha = torch.tensor([1.0, 0.5, 3.0, 0.2], requires_grad=True)
prior = Dirichlet(alpha)
weights = prior.rsample((5,))
print(weights, weights.sum(-1))
print(type(weights.grad_fn).__name__)
centres = torch.tensor([-2.0, 0.0, 1.0, 4.0])
mixture_mean = (weights * centres).sum(-1)
mixture_mean.sum().backward()
print(alpha.grad)
print(prior.log_prob(weights.detach()), prior.entropy(), prior.mean, prior.mode)
posterior = Dirichlet(alpha.detach() + torch.tensor([3.0, 0.0, 1.0, 2.0]))
kl_post = kl_divergence(posterior, prior)

# %%
torch.random.manual_seed(3)
true_rates = torch.tensor([0.5, 3.0, 12.0, 40.0])
counts = Poisson(true_rates).sample((6,))
print(counts)
log_rate = torch.zeros(4, requires_grad=True)
optimizer = torch.optim.SGD([log_rate], lr=0.002)
for step in range(20):
    optimizer.zero_grad()
    nll = -Poisson(log_rate.exp()).log_prob(counts).sum()
    nll.backward()
    optimizer.step()
print(log_rate.exp(), nll)
fitted = log_rate.detach().exp()

# %%
torch.random.manual_seed(4)
trials = torch.tensor([5.0, 20.0, 100.0, 400.0])
probs = torch.tensor([0.3, 0.05, 0.6, 0.97])
binomial = Binomial(trials, probs)
draws = binomial.sample((3,))
print(draws, binomial.mean, binomial.variance)
print(Binomial(10, torch.tensor([0.2, 0.7])).entropy())
overdispersed = NegativeBinomial(torch.tensor([2.0, 5.0]), probs=torch.tensor([0.4, 0.8])).sample((4,))
print(overdispersed)
student = StudentT(torch.tensor([2.5, 8.0]), 0.0, 1.5)
t_draws = student.rsample((3,))
chi = Chi2(torch.tensor([1.0, 4.0])).sample((2,))
print(t_draws, chi)

# %%
Gamma(torch.tensor([-1.0]), 1.0)

# %%
torch.poisson(torch.tensor([2.0, -1.0]))
