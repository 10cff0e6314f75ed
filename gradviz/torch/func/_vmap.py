"""torch.func.vmap by looping: the function runs once per index of the mapped dimension,
on slices (``select``) of the mapped inputs, and the results are stacked at ``out_dims``.

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
        sample = [arg if d is None else _sample(arg, d, b, batch_size) for arg, d in zip(flat_args, flat_in_dims)]
        samples.append(func(*tree_unflatten(sample, args_spec), **kwargs))
        if randomness == "error" and not np.array_equal(_rng_state(), start_state):
            raise E.vmap_random_in_error_mode()
    return _stacked_outputs(samples, out_dims, batch_size, func, chunk_size)


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
