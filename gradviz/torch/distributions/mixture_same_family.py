"""torch.distributions.MixtureSameFamily: a Categorical choosing among the rightmost batch
dim of one component distribution; log_prob is a logsumexp over the components, sample
gathers the chosen component's draw (PyTorch 2.13's op sequence: the Categorical draws
first, then every component)."""
from .. import _errors_distributions as ED
from .._namespace import F
from .._tensor import Size
from ..autograd.grad_mode import no_grad
from ..nn import functional as nn_functional
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """``component_distribution``'s last batch dim mixed with the weights of ``mixture_distribution``."""

    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(self._mixture_distribution, Categorical):
            raise ED.mixture_not_categorical()
        if not isinstance(self._component_distribution, Distribution):
            raise ED.component_not_distribution()
        mdbs = self._mixture_distribution.batch_shape
        cdbs = self._component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ED.mixture_batch_incompatible(mdbs, cdbs)
        km = self._mixture_distribution.logits.shape[-1]
        kc = self._component_distribution.batch_shape[-1]
        if km != kc:
            raise ED.mixture_component_count(km, kc)
        self._num_component = km
        event_shape = self._component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(batch_shape=cdbs, event_shape=event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        super(MixtureSameFamily, new).__init__(batch_shape=batch_shape,
                                               event_shape=new._component_distribution.event_shape,
                                               validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return F.sum(probs * self.component_distribution.mean, dim=-1 - self._event_ndims)

    @property
    def variance(self):
        # the law of total variance: the mixed variances plus the variance of the means
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        mean_cond_var = F.sum(probs * self.component_distribution.variance, dim=-1 - self._event_ndims)
        var_cond_mean = F.sum(probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0),
                              dim=-1 - self._event_ndims)
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return F.sum(cdf_x * self.mixture_distribution.probs, dim=-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix_prob = nn_functional.log_softmax(self.mixture_distribution.logits, dim=-1)
        return F.logsumexp(log_prob_x + log_mix_prob, dim=-1)

    def sample(self, sample_shape=Size()):
        with no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            es = self.event_shape
            mix_sample = self.mixture_distribution.sample(sample_shape)
            mix_shape = mix_sample.shape
            comp_samples = self.component_distribution.sample(sample_shape)
            # the chosen index repeated over the event dims, gathered along the component dim
            mix_sample_r = mix_sample.reshape(mix_shape + Size([1] * (len(es) + 1)))
            mix_sample_r = mix_sample_r.repeat(Size([1] * len(mix_shape)) + Size([1]) + es)
            samples = F.gather(comp_samples, gather_dim, mix_sample_r)
            return samples.squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = x.shape
        return x.reshape(xs[:-1] + Size(pad_ndims * [1]) + xs[-1:] + Size(self._event_ndims * [1]))

    def __repr__(self):
        return "MixtureSameFamily" + "(" + f"\n  {self.mixture_distribution},\n  {self.component_distribution}" + ")"
