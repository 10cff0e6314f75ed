"""torch.distributions.Distribution: shapes, sampling with a sample_shape, argument and
sample validation with PyTorch's ValueError messages, and PyTorch's repr."""
import warnings

from .. import _errors_func as E
from .._namespace import F
from .._tensor import Size, Tensor
from ..autograd.grad_mode import no_grad
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """The base of every distribution: ``batch_shape`` (independent parameter sets) and
    ``event_shape`` (one sample), with validation on unless ``python -O``."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._validate_parameters()
        super().__init__()

    def _validate_parameters(self):
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(E.distribution_no_arg_constraints_warning(type(self)), stacklevel=3)
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue  # a region that depends on the other parameters cannot be checked
            if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                continue  # computed from the given parameter when first read
            value = getattr(self, param)
            if not _all_true(constraint.check(value)):
                raise E.distribution_invalid_parameter(param, value, self, constraint)

    def expand(self, batch_shape, _instance=None):
        raise NotImplementedError

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def arg_constraints(self):
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=Size()):
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn(E.SAMPLE_N_DEPRECATED, FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return F.exp(self.entropy())

    def _extended_shape(self, sample_shape=Size()):
        """sample_shape + batch_shape + event_shape: the shape of a sample."""
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value):
        """The checks of log_prob / cdf on ``value``: a tensor, whose rightmost dims match the
        event shape and broadcast with the batch shape, inside the support."""
        if not isinstance(value, Tensor):
            raise E.distribution_value_not_tensor()
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise E.distribution_event_shape(value.size(), self._event_shape)
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise E.distribution_value_not_broadcastable(actual_shape, expected_shape)
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(E.distribution_no_support_warning(type(self)), stacklevel=2)
            return
        if not _all_true(support.check(value)):
            raise E.distribution_value_outside_support(value, support, self)

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise E.distribution_expand_needs_override(type(self).__name__, cls.__name__)
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        # a one-element parameter prints its value (a 0-dim one as a number), others their size
        param_names = [k for k in self.arg_constraints if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in param_names)
        return type(self).__name__ + "(" + args_string + ")"


def _all_true(valid):
    """torch._is_all_true: every element of a bool tensor is True."""
    return bool(valid.all())
