"""torch.distributions.ExponentialFamily: entropy (and, in kl.py, the KL divergence) from the
log normalizer's gradient, a Bregman divergence, for families that define no closed form."""
from ..autograd.entry import grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A density exp(<t(x), theta> - F(theta) + k(x)): subclasses give the natural
    parameters theta, the log normalizer F and the carrier measure's mean."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = grad(lg_normal.sum(), nparams, create_graph=True)
        result += lg_normal
        for nparam, g in zip(nparams, gradients):
            result -= (nparam * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
