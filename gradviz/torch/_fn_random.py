"""torch's random functions: seeding, the random factories (rand, randn, randint, randperm,
normal, bernoulli, multinomial and their _like forms) and the in-place fills, with
PyTorch's argument rules. The numbers come from ``_random``, in the order ATen draws them."""
import builtins
import math

import numpy as np

from . import _dtypes, _errors, _kernels as K, _meta, _ops, _random as R, _tensor
from ._device import is_meta_device
from ._common import _dtype_word, _inplace, _new_leaf, _out_variant, _resolve_dtype, _shape_args, _sizes_or_keyword, apply
from ._namespace import F  # the other families' functions, read at call time
from ._random import Generator, default_generator  # noqa: F401

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "rand",
    "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "rand_like", "randn_like", "randint_like",
    "uniform_", "normal_", "bernoulli_", "exponential_", "cauchy_", "log_normal_", "geometric_", "random_",
)
TORCH = (
    "Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "rand",
    "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "rand_like", "randn_like", "randint_like",
)
METHODS = (
    "bernoulli", "multinomial", "uniform_", "normal_", "bernoulli_", "exponential_", "cauchy_", "log_normal_",
    "geometric_", "random_",
)


_int = builtins.int


# ----- seeding -------------------------------------------------------------------------
def manual_seed(seed):
    return default_generator.manual_seed(_int(seed))


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


# ----- helpers ---------------------------------------------------------------------------
def _word(dtype):
    return _dtype_word(dtype)


def _floating(dtype, kernel):
    """ATen dispatches these kernels for floating (and complex) dtypes only."""
    if np.dtype(dtype).kind not in "fcV":
        raise _errors.kernel_not_implemented(kernel, _word(dtype))


def _sizes(size, keyword):
    return _checked(_shape_args(_sizes_or_keyword(size, keyword, "size")))


def _checked(shape):
    F._check_sizes(shape)
    return shape


def _new(shape, dtype, values, requires_grad=False):
    return _new_leaf(np.asanyarray(values).reshape(shape).astype(dtype, copy=False), requires_grad)


def _drawn(device, shape, dtype, draw):
    """A random factory's values: none on the meta device, where nothing is drawn (the CPU
    generator's stream is left as it was, as in PyTorch)."""
    if is_meta_device(device):
        return _meta.placeholder(shape, dtype)
    return draw()


def _like_layout(input, dtype):
    """The array torch.empty_like(input) would allocate: dense inputs keep their layout."""
    return np.empty_like(input._data, dtype=dtype)


# ----- factories ---------------------------------------------------------------------------
def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
         requires_grad=False, **keyword):
    shape = _sizes(size, keyword)

    def make(out_dtype):
        dt = (out_dtype or _resolve_dtype(dtype) or _dtypes.DEFAULTS.float_dtype).np
        _floating(dt, "check_uniform_bounds")
        return _new(shape, dt, _drawn(device, shape, dt, lambda: R.uniform(generator, math.prod(shape), dt)),
                    requires_grad)
    if out is None:
        return make(None)
    return _out_variant("rand", out, (), lambda: make(out.dtype))  # warns at the caller


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False, **keyword):
    shape = _sizes(size, keyword)

    def make(out_dtype):
        dt = (out_dtype or _resolve_dtype(dtype) or _dtypes.DEFAULTS.float_dtype).np
        _floating(dt, "normal_kernel_cpu")
        return _new(shape, dt, _drawn(device, shape, dt, lambda: R.normal(generator, math.prod(shape), dt)),
                    requires_grad)
    if out is None:
        return make(None)
    return _out_variant("randn", out, (), lambda: make(out.dtype))  # warns at the caller


def randint(low=None, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
            pin_memory=False, requires_grad=False):
    """randint(high, size) or randint(low, high, size); each also by keyword."""
    given = [type(a).__name__ for a in (low, high, size) if a is not None]
    if size is None and isinstance(high, (tuple, list, _tensor.Size)):
        low, high, size = None, low, high
    elif high is None:
        low, high = None, low
    low = 0 if low is None else low
    if not (_is_int(low) and _is_int(high) and isinstance(size, (tuple, list, _tensor.Size))):
        raise _errors.invalid_arguments("randint", given)
    low, high = _int(low), _int(high)
    shape = _checked(_shape_args((size,)))

    def make(out_dtype):
        dt = (out_dtype or _resolve_dtype(dtype) or _dtypes.int64).np
        R.random_bounds(dt, low, high)
        return _new(shape, dt, _drawn(device, shape, dt, lambda: R.random_integers(
            generator, math.prod(shape), dt, low, high)), requires_grad)
    if out is None:
        return make(None)
    return _out_variant("randint", out, (), lambda: make(out.dtype))  # warns at the caller


def _is_int(value):
    return isinstance(value, (_int, np.integer)) and not isinstance(value, bool)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    if isinstance(n, bool) or not isinstance(n, (_int, np.integer)):
        raise _errors.argument_type("randperm", "n", 1, "int", type(n).__name__)
    F._check_sizes((_int(n),))
    K.check_allocation(_int(n), np.int64)

    def make(out_dtype):
        dt = (out_dtype or _resolve_dtype(dtype) or _dtypes.int64).np
        return _new((_int(n),), dt, _drawn(device, (_int(n),), dt, lambda: R.permutation(generator, _int(n))),
                    requires_grad)
    if out is None:
        return make(None)
    return _out_variant("randperm", out, (), lambda: make(out.dtype))  # warns at the caller


def rand_like(input, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
              memory_format=None, generator=None):
    layout_of = _like_layout(input, (_resolve_dtype(dtype) or input.dtype).np)
    _floating(layout_of.dtype, "check_uniform_bounds")
    if _meta.is_meta(layout_of):
        return _new_leaf(layout_of, requires_grad)  # nothing drawn on the meta device
    values = R.uniform(generator, layout_of.size, layout_of.dtype)
    layout_of[...] = R.in_memory_order(layout_of, values)
    return _new_leaf(layout_of, requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
               memory_format=None, generator=None):
    layout_of = _like_layout(input, (_resolve_dtype(dtype) or input.dtype).np)
    _floating(layout_of.dtype, "normal_kernel_cpu")
    if _meta.is_meta(layout_of):
        return _new_leaf(layout_of, requires_grad)  # nothing drawn on the meta device
    values = R.normal(generator, layout_of.size, layout_of.dtype, contiguous=layout_of.flags.c_contiguous)
    layout_of[...] = R.in_memory_order(layout_of, values)
    return _new_leaf(layout_of, requires_grad)


def randint_like(input, low=None, high=None, *, dtype=None, layout=None, device=None, pin_memory=False,
                 requires_grad=False, memory_format=None, generator=None):
    given = ["Tensor"] + [type(a).__name__ if not isinstance(a, _tensor.Tensor) else "Tensor"
                          for a in (low, high) if a is not None]
    if high is None:
        low, high = 0, low
    low = 0 if low is None else low
    if isinstance(high, _tensor.Tensor) and high.dim() == 0 and low == 0:
        high = high.item()  # randint_like(input, Tensor high)
    if not (_is_int(low) and _is_int(high)):
        raise _errors.invalid_arguments("randint_like", given)
    low, high = _int(low), _int(high)
    layout_of = _like_layout(input, (_resolve_dtype(dtype) or input.dtype).np)
    R.random_bounds(layout_of.dtype, low, high)
    values = R.random_integers(generator, layout_of.size, layout_of.dtype, low, high)
    layout_of[...] = R.in_memory_order(layout_of, values)
    return _new_leaf(layout_of, requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """normal(Tensor mean, Tensor std), (Tensor mean, float std=1), (float mean, Tensor std)
    (differentiable: the gradient is zero), and (float mean, float std, size)."""
    Tensor = _tensor.Tensor
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if out is not None:
            return _out_variant("normal", out, (mean, std), lambda: normal(mean, std, generator=generator))
        if isinstance(std, Tensor):
            if std._data.size and not (std._data >= 0).all():
                raise _errors.normal_std_tensor()
        elif std < 0:
            raise _errors.normal_std(std)
        if not isinstance(std, Tensor):
            return apply(_ops.normal_tensor_float, (mean,), {"std": std, "generator": generator,
                                                              "mean_sym_sizes": tuple(mean.shape)})
        if not isinstance(mean, Tensor):
            return apply(_ops.normal_float_tensor, (std,), {"mean": mean, "generator": generator,
                                                             "std_sym_sizes": tuple(std.shape)})
        return apply(_ops.normal_tensor_tensor, (mean, std), {"generator": generator, "mean_sym_sizes": tuple(
            mean.shape), "std_sym_sizes": tuple(std.shape)})
    if size is None:
        raise _errors.invalid_arguments("normal", [type(mean).__name__, type(std).__name__])
    if std < 0:
        raise _errors.normal_std(std)
    shape = _checked(_shape_args((size,)))

    def make(out_dtype):
        dt = (out_dtype or _resolve_dtype(dtype) or _dtypes.DEFAULTS.float_dtype).np
        _floating(dt, "normal_kernel_cpu")
        return _new(shape, dt, R.normal(generator, math.prod(shape), dt, mean, std), requires_grad)
    if out is None:
        return make(None)
    return _out_variant("normal", out, (), lambda: make(out.dtype))  # warns at the caller


def bernoulli(input, p=None, *, generator=None, out=None):
    """1 with probability ``input`` (or ``p``) elementwise, in input's dtype."""
    if out is not None:
        return _out_variant("bernoulli", out, (input,), lambda: bernoulli(input, p, generator=generator))
    if p is None:
        _check_probabilities(input._data)
        return apply(_ops.bernoulli, (input,), {"generator": generator})
    _check_probability(p)
    return apply(_ops.bernoulli_p, (input,), {"p": p, "generator": generator})


def _check_probability(p):
    if not 0 <= p <= 1:
        raise _errors.bernoulli_p(p)


def _check_probabilities(p):
    if p.dtype.kind not in "fV":
        raise _errors.kernel_not_implemented("bernoulli_tensor_cpu_p_", _word(p.dtype))
    if p.size and not ((p >= 0) & (p <= 1)).all():
        raise _errors.bernoulli_p_tensor()


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    if out is not None:
        return _out_variant("multinomial", out, (input,),
                              lambda: multinomial(input, num_samples, replacement, generator=generator))
    probs = input._data
    if probs.ndim not in (1, 2):
        raise _errors.multinomial("dim")
    if probs.dtype.kind not in "fV":
        raise _errors.multinomial_dtype(_word(probs.dtype))
    if num_samples <= 0:
        raise _errors.multinomial("samples")
    categories = probs.shape[-1]
    if not replacement and num_samples > categories:
        raise _errors.multinomial("too_many")
    if categories > 1 << 24:
        raise _errors.multinomial("categories")
    rows = probs.reshape(-1, categories)
    shape = probs.shape[:-1] + (num_samples,)
    if rows.size == 0 or math.prod(shape) == 0:
        return _new_leaf(np.zeros(shape, dtype=np.int64))
    if not replacement or num_samples == 1:
        # ATen samples without replacement by the largest p / q, q exponential (the
        # Gumbel-max trick).
        if not (np.all(probs < np.inf) and np.all(probs >= 0)):
            raise _errors.multinomial("invalid")
        if np.any(rows.sum(axis=1) == 0):
            raise _errors.multinomial("sum")
        q = R.exponential(generator, rows.size, 1.0).astype(probs.dtype).reshape(rows.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            keys = rows / q
        order = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
        return _new_leaf(order.astype(np.int64).reshape(shape))
    if np.any(rows < 0):
        raise _errors.multinomial("negative")
    if not np.all(np.isfinite(rows)):
        raise _errors.multinomial("infinite")
    if np.any(rows.sum(axis=1, dtype=np.float64) <= 0):
        raise _errors.multinomial("sum")
    return _new_leaf(R.multinomial_with_replacement(generator, rows, num_samples).reshape(shape))


# ----- in-place fills (node: the op's *Backward0, gradient zero w.r.t. old values) ----------
def uniform_(self, from_=0.0, to=1.0, *, generator=None, **keyword):
    from_ = keyword.pop("from", from_)
    _floating(self._data.dtype, "check_uniform_bounds")
    if from_ > to:
        raise _errors.uniform_range(from_, to)
    return _inplace(_ops.uniform_fill, self, (self,), {"low": from_, "high": to, "generator": generator})


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    if std < 0:
        raise _errors.normal_std(std)
    _floating(self._data.dtype, "normal_kernel_cpu")
    return _inplace(_ops.normal_fill, self, (self,), {"mean": mean, "std": std, "generator": generator})


def bernoulli_(self, p=0.5, *, generator=None):
    if isinstance(p, _tensor.Tensor):
        _check_probabilities(p._data)
        return _inplace(_ops.bernoulli_fill_tensor, self, (self, p), {"generator": generator})
    _check_probability(p)
    return _inplace(_ops.bernoulli_fill, self, (self,), {"p": p, "generator": generator})


def exponential_(self, lambd=1.0, *, generator=None):
    if self._data.dtype.kind not in "fV":
        raise _errors.continuous_only("Exponential", _word(self._data.dtype))
    if not lambd > 0:
        raise _errors.positive_parameter("exponential_", "lambda", lambd)
    return _inplace(_ops.exponential_fill, self, (self,), {"lambd": lambd, "generator": generator})


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    if not sigma > 0:
        raise _errors.positive_parameter("cauchy_", "sigma", sigma)
    if self._data.dtype.kind not in "fV":
        raise _errors.continuous_only("Cauchy", _word(self._data.dtype))
    return _inplace(_ops.cauchy_fill, self, (self,), {"median": median, "sigma": sigma, "generator": generator})


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    if not std > 0:
        raise _errors.positive_parameter("log_normal_", "std", std)
    _floating(self._data.dtype, "log_normal_cpu")
    return _inplace(_ops.log_normal_fill, self, (self,), {"mean": mean, "std": std, "generator": generator})


def geometric_(self, p, *, generator=None):
    if not 0 < p < 1:
        raise _errors.geometric_p(p)
    return _inplace(_ops.geometric_fill, self, (self,), {"p": p, "generator": generator})


def random_(self, *args, generator=None, **keyword):
    """random_(): integers in [0, 2**mantissa] for floats (the full range for integers);
    random_(to): [0, to); random_(from, to): [from, to), to None meaning the dtype's top."""
    if len(args) == 2 or "from" in keyword:
        low = args[0] if args else keyword.pop("from")
        to = args[1] if len(args) == 2 else keyword.pop("to", None)
        R.random_bounds(self._data.dtype, low, to)
        return _inplace(_ops.random_fill_range, self, (self,), {"low": low, "to": to, "generator": generator})
    if args or "to" in keyword:
        to = args[0] if args else keyword.pop("to")
        R.random_bounds(self._data.dtype, 0, to)
        return _inplace(_ops.random_fill_to, self, (self,), {"to": to, "generator": generator})
    return _inplace(_ops.random_fill_full, self, (self,), {"generator": generator})
