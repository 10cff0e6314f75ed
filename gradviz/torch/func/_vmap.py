"""torch.func.vmap by looping: the function runs once per index of the mapped dimension,
on slices (``select``) of the mapped inputs, and the results are stacked at ``out_dims``.

PyTorch runs the function once, on whole batches, so a result's grad_fn is the last
batched op's node (``MulBackward0``), not a stack. Where that is what one call on the
batches does here too, the loop stops after the first sample and the function runs once
on the batched inputs themselves: when the first sample's graph holds elementwise ops only
(their operands at most the samples' rank), every mapped input is mapped at dim 0 and every
output goes to dim 0, without chunks or random numbers. Anything else (reductions, matmul,
views, in_dims / out_dims elsewhere, chunk_size) stays the loop, whose values agree but
whose graph ends in StackBackward0 (docs/limits.md).

The checks on ``in_dims``, ``out_dims``, ``randomness`` and ``chunk_size`` and their
messages are PyTorch 2.13's. What a loop cannot see is judged from the results:
an output with ``out_dims=None`` is "batched" if it differs between samples, and a random
op under ``randomness="error"`` is one that moved the random state. ``"same"`` replays the
random state for every sample.
"""
import functools

import numpy as np

from .. import _errors_func as E
from .._namespace import F
from .._tensor import Tensor
from ._pytree import broadcast_to_and_flatten, tree_flatten, tree_unflatten

__all__ = ["vmap"]


def check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise E.vmap_randomness(randomness)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    check_randomness(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise E.vmap_chunk_size(chunk_size)

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)
    return wrapped


def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _check_out_dims(out_dims, func):
    if isinstance(out_dims, int):
        return
    for leaf in tree_flatten(out_dims)[0]:
        if leaf is not None and not isinstance(leaf, int):
            raise E.vmap_out_dims_type(_name(func), out_dims)


def _batched_inputs(in_dims, args, func):
    """(batch size, per flat argument its mapped dim or None, flat arguments, their spec)."""
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise E.vmap_in_dims_type(name, in_dims)
    if not args:
        raise E.vmap_no_inputs(name)
    flat_args, args_spec = tree_flatten(args)
    flat_in_dims = broadcast_to_and_flatten(in_dims, args_spec)
    if flat_in_dims is None:
        raise E.vmap_in_dims_structure(name, in_dims, tree_flatten(in_dims)[1], args_spec)
    for i, (arg, in_dim) in enumerate(zip(flat_args, flat_in_dims)):
        if in_dim is not None and not isinstance(in_dim, int):
            raise E.vmap_in_dim_type(name, in_dims, in_dim)
        if isinstance(in_dim, int) and not isinstance(arg, Tensor):
            raise E.vmap_in_dim_not_tensor(name, in_dims, in_dim, arg)
        if in_dim is not None and not -arg.dim() <= in_dim < arg.dim():
            raise E.vmap_in_dim_range(name, in_dims, in_dim, arg.dim())
        if in_dim is not None and in_dim < 0:
            flat_in_dims[i] = in_dim % arg.dim()
    sizes = [arg.size(d) for d, arg in zip(flat_in_dims, flat_args) if d is not None]
    if not sizes:
        raise E.vmap_nothing_to_map()
    if any(s != sizes[0] for s in sizes):
        raise E.vmap_batch_sizes(sizes)
    return sizes[0], flat_in_dims, flat_args, args_spec


def _rng_state():
    return F.get_rng_state()._data.copy()


def _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    _check_out_dims(out_dims, func)
    batch_size, flat_in_dims, flat_args, args_spec = _batched_inputs(in_dims, args, func)
    start_state = _rng_state() if randomness in ("same", "error") else None
    samples = []
    for b in range(max(batch_size, 1)):
        if randomness == "same":
            F.set_rng_state(F.tensor(start_state))
        rng_before = _rng_state()
        sample = [arg if d is None else _sample(arg, d, b, batch_size) for arg, d in zip(flat_args, flat_in_dims)]
        samples.append(func(*tree_unflatten(sample, args_spec), **kwargs))
        if randomness == "error" and not np.array_equal(_rng_state(), start_state):
            raise E.vmap_random_in_error_mode()
        if b == 0 and chunk_size is None and batch_size > 0 and np.array_equal(_rng_state(), rng_before) and \
                _elementwise_at_dim_0(samples[0], sample, flat_in_dims, out_dims):
            return func(*tree_unflatten(flat_args, args_spec), **kwargs)
    return _stacked_outputs(samples, out_dims, batch_size, func, chunk_size)


# Nodes of ops that work element by element (their result has their broadcast operands'
# shape): run on whole batches mapped at dim 0, they give each sample what the sample alone gives.
_ELEMENTWISE = frozenset(name + "Backward" + nr for name, nrs in {
    "Add": "01", "Sub": "01", "Rsub": "01", "Mul": "01", "Div": "01", "Neg": "0", "Reciprocal": "0", "Pow": "01",
    "Exp": "0", "Exp2": "0", "Expm1": "0", "Log": "0", "Log2": "0", "Log10": "0", "Log1P": "0", "Sqrt": "0",
    "Rsqrt": "0", "Sin": "0", "Cos": "0", "Tan": "0", "Asin": "0", "Acos": "0", "Atan": "0", "Sinh": "0",
    "Cosh": "0", "Tanh": "0", "Sigmoid": "0", "Relu": "0", "Abs": "0", "Clamp": "01", "ClampMin": "01",
    "ClampMax": "01", "Clone": "0", "Erf": "0", "Atan2": "0", "Where": "0", "Maximum": "0", "Minimum": "0",
    "Gelu": "0", "LeakyRelu": "0", "Silu": "0", "Softplus": "0", "Hardtanh": "0", "Elu": "0", "Sgn": "0",
    "Sign": "0", "Lerp": "01", "Addcmul": "0", "Addcdiv": "0", "Hypot": "0", "Logaddexp": "0", "Xlogy": "0",
    "Logit": "0", "Lgamma": "0", "Digamma": "0"}.items() for nr in nrs)


def _elementwise_at_dim_0(first, sample, flat_in_dims, out_dims):
    """Does one call on the batches give what the loop gives, with PyTorch's graph? The first
    sample's outputs must come from its inputs through elementwise ops alone (see above)."""
    if any(d not in (0, None) for d in flat_in_dims) or any(d != 0 for d in tree_flatten(out_dims)[0]):
        return False
    mapped = [t for t, d in zip(sample, flat_in_dims) if d is not None]
    ranks = {t.dim() for t in mapped if isinstance(t, Tensor)}
    starts = [t.grad_fn._sequence_nr() for t in mapped if isinstance(t, Tensor) and t.grad_fn is not None]
    outputs = tree_flatten(first)[0]
    if len(ranks) != 1 or not starts or not all(isinstance(o, Tensor) for o in outputs):
        return False
    rank, before = ranks.pop(), max(starts)  # nodes up to ``before`` were there before the call
    pending = []
    for out in outputs:
        if out.dim() != rank or out.grad_fn is None or (out.grad_fn._sequence_nr() <= before
                                                          and not any(out is t for t in mapped)):
            return False
        pending.append(out.grad_fn)
    seen = set()
    while pending:
        node = pending.pop()
        if node is None or id(node) in seen or node._sequence_nr() <= before or \
                node.name() == "torch::autograd::AccumulateGrad":
            continue
        seen.add(id(node))
        if node.name() not in _ELEMENTWISE or any(len(meta[0]) != rank for meta in node._output_meta) or any(
                meta is not None and len(meta[0]) > rank for meta in node._input_meta):
            return False
        pending.extend(fn for fn, _ in node.next_functions)
    return True


def _sample(arg, dim, index, batch_size):
    if batch_size == 0:
        # An empty batch still runs the function once, on a stand-in sample, for the
        # shapes of the (empty) results.
        shape = arg.shape[:dim] + arg.shape[dim + 1:]
        return F.zeros(tuple(shape), dtype=arg.dtype)
    return arg.select(dim, index)


def _stacked_outputs(samples, out_dims, batch_size, func, chunk_size=None):
    name = _name(func)
    first = samples[0]
    flat_first, out_spec = tree_flatten(first)

    def incompatible():
        return E.vmap_out_dims_structure(name, out_dims, tree_flatten(out_dims)[1], out_spec)

    if isinstance(first, Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            flat_out_dims = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            flat_out_dims = list(out_dims)
        else:
            raise incompatible()
    else:
        flat_out_dims = broadcast_to_and_flatten(out_dims, out_spec)
        if flat_out_dims is None:
            raise incompatible()
    flat_samples = [tree_flatten(s)[0] for s in samples]
    results = []
    for i, out_dim in enumerate(flat_out_dims):
        values = [flat[i] for flat in flat_samples]
        if out_dim is None:
            if isinstance(values[0], Tensor) and batch_size > 1 and _differs(values):
                raise E.vmap_batched_with_none_out_dim(name)
            results.append(values[0])
            continue
        if not isinstance(values[0], Tensor):
            raise E.vmap_output_not_tensor(name, values[0])
        if chunk_size is not None and batch_size > 0:
            # PyTorch maps chunk by chunk and concatenates the chunks' results (even one chunk)
            chunks = [F.stack(values[i:i + chunk_size], dim=out_dim) for i in range(0, batch_size, chunk_size)]
            stacked = F.cat(chunks, dim=out_dim)
        else:
            stacked = F.stack(values, dim=out_dim)
        if batch_size == 0:
            stacked = stacked.narrow(out_dim, 0, 0)
        results.append(stacked)
    return tree_unflatten(results, out_spec)


def _differs(values):
    first = values[0]
    for v in values[1:]:
        if v is first:
            continue
        if not isinstance(v, Tensor) or v.shape != first.shape or not np.array_equal(v._data, first._data):
            return True
    return False
