# Lessons with the last distributions: a Multinomial count model (word counts in documents),
# a ContinuousBernoulli likelihood for [0, 1]-valued pixels as in a VAE, a LogisticNormal
# prior over topic proportions, a GeneralizedPareto for exceedances over a threshold, and
# VonMises for wind directions. Seeds are set with torch.random.manual_seed, which record.py
# does not shift: the samples drawn after them are compared too, so they check PyTorch's
# multinomial draws and the von Mises rejection sampler bit for bit.
import math

import torch
from torch.distributions import (ContinuousBernoulli, GeneralizedPareto, LogisticNormal, Multinomial, Normal,
                                 Uniform, VonMises, kl_divergence)

# %%
torch.random.manual_seed(0)
logits = torch.tensor([[1.0, 0.2, -0.5, 0.0], [0.0, 0.0, 2.0, -1.0]], requires_grad=True)
words = Multinomial(20, logits=logits)
print(words, words.batch_shape, words.event_shape, words.support)
documents = words.sample((3,))
print(documents)
print(documents.sum(-1))
log_likelihood = words.log_prob(documents).sum()
log_likelihood.backward()
print(logits.grad)
entropy = words.entropy()
mean, variance = words.mean, words.variance

# %%
torch.random.manual_seed(1)
pixels = torch.rand(2, 6)
decoder_logits = torch.randn(2, 6, requires_grad=True)
likelihood = ContinuousBernoulli(logits=decoder_logits)
print(likelihood)
reconstruction = likelihood.log_prob(pixels).sum(-1)
(-reconstruction.mean()).backward()
print(decoder_logits.grad.shape, reconstruction.grad_fn)
cb_mean = likelihood.mean
cb_variance = likelihood.variance
cb_entropy = likelihood.entropy()
print(ContinuousBernoulli(torch.tensor([0.2, 0.5, 0.9])).mean)
draws = likelihood.rsample((2,))
cdf = likelihood.cdf(pixels)

# %%
probs = torch.tensor([0.1, 0.4995, 0.8], requires_grad=True)
p = ContinuousBernoulli(probs)
q = ContinuousBernoulli(torch.tensor([0.3, 0.3, 0.3]))
kl_cb = kl_divergence(p, q)
kl_cb.sum().backward()
grad_probs = probs.grad
kl_normal = kl_divergence(p, Normal(torch.zeros(3), torch.ones(3)))
kl_uniform = kl_divergence(p, Uniform(torch.tensor([-1.0, 0.0, 0.2]), torch.tensor([2.0, 1.0, 0.9])))
print(kl_uniform)
print(kl_divergence(Normal(0.0, 1.0), ContinuousBernoulli(0.3)))

# %%
torch.random.manual_seed(2)
topic_loc = torch.zeros(3, requires_grad=True)
topic_scale = torch.ones(3, requires_grad=True)
prior = LogisticNormal(topic_loc, topic_scale)
print(prior, prior.batch_shape, prior.event_shape, prior.support)
proportions = prior.rsample((4,))
print(proportions.shape, proportions.grad_fn)
prior_log_prob = prior.log_prob(proportions)
prior_log_prob.sum().backward()
loc_grad, scale_grad = topic_loc.grad, topic_scale.grad

# %%
torch.random.manual_seed(3)
threshold = torch.tensor(2.0)
scale = torch.tensor([1.0, 0.5], requires_grad=True)
shape = torch.tensor([0.25, 0.0], requires_grad=True)
tail = GeneralizedPareto(threshold, scale, shape)
print(tail, tail.support)
exceedances = tail.sample((5,))
one_draw = tail.rsample()
tail_log_prob = tail.log_prob(one_draw)
(tail_log_prob.sum() + one_draw.sum()).backward()
scale_grad_gp, shape_grad_gp = scale.grad, shape.grad
log_probs = tail.log_prob(exceedances)
tail_mean, tail_variance, tail_entropy = tail.mean, tail.variance, tail.entropy()
tail_cdf = tail.cdf(torch.tensor([[2.5, 3.0]]))
quantiles = tail.icdf(torch.tensor([[0.5, 0.9]]))

# %%
torch.random.manual_seed(4)
direction = torch.tensor([0.0, math.pi / 2, -2.5])
kappa = torch.tensor([0.5, 4.0, 25.0], requires_grad=True)
wind = VonMises(direction, kappa)
print(wind)
angles = wind.sample((6,))
print(angles)
print(torch.rand(2))
wind_log_prob = wind.log_prob(angles)
wind_log_prob.sum().backward()
kappa_grad = kappa.grad
circular_variance = wind.variance
try:
    wind.rsample()
except NotImplementedError as e:
    print(type(e).__name__)
