"""Kernels of unique / unique_consecutive and searchsorted / bucketize, as ATen's CPU kernels
compute them: unique sorts (stably) and starts a new value wherever two neighbours differ, so
NaNs stay apart as PyTorch keeps them; searchsorted is ATen's binary search, run on every
element at once, with its comparisons (``!(mid >= value)``), so NaN values land past the end."""
import numpy as np


def _groups(rows, consecutive_equal):
    """(first index of each group, inverse of each row, count of each group) of rows already in
    order; consecutive_equal[i] says whether row i+1 equals row i."""
    starts = np.concatenate(([True], ~consecutive_equal)) if len(rows) else np.zeros(0, dtype=bool)
    group = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    counts = np.diff(np.append(first, len(rows))).astype(np.int64)
    return first, group.astype(np.int64), counts


def _rows_equal(rows):
    """Whether each row equals the next, element by element (NaN equals nothing)."""
    if rows.shape[1] == 0:
        return np.ones(len(rows) - 1, dtype=bool) if len(rows) else np.zeros(0, dtype=bool)
    return (rows[1:] == rows[:-1]).all(axis=1)


def unique_flat(x, consecutive):
    """(values, inverse shaped as x, counts) over all of x's elements."""
    flat = x.reshape(-1)
    order = np.arange(flat.size) if consecutive else np.argsort(flat, kind="stable")
    ordered = flat[order]
    first, group, counts = _groups(ordered, ordered[1:] == ordered[:-1])
    inverse = np.empty(flat.size, dtype=np.int64)
    inverse[order] = group
    return ordered[first], inverse.reshape(x.shape), counts


def unique_dim(x, dim, consecutive):
    """(values, inverse, counts) of the slices of x along dim, compared lexicographically."""
    moved = np.moveaxis(x, dim, 0)
    rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:], dtype=np.int64)))
    if consecutive:
        order = np.arange(len(rows))
    else:  # lexsort sorts by its last key first: the first element of a slice leads
        order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(len(rows))
    ordered = rows[order]
    first, group, counts = _groups(ordered, _rows_equal(ordered))
    inverse = np.empty(len(rows), dtype=np.int64)
    inverse[order] = group
    values = ordered[first].reshape((len(first),) + moved.shape[1:])
    return np.ascontiguousarray(np.moveaxis(values, 0, dim)), inverse, counts


def search_sorted(boundaries, values, right, sorter, out_dtype):
    """ATen's lower / upper bound of every value in its row of boundaries (one shared row when
    boundaries is 1-D), through ``sorter`` when given."""
    length = boundaries.shape[-1]
    rows = boundaries.reshape(-1, length) if boundaries.ndim > 1 else boundaries.reshape(1, length)
    order = None if sorter is None else (sorter.reshape(-1, length) if sorter.ndim > 1 else sorter.reshape(1, -1))
    flat = values.reshape(-1)
    row = (np.arange(flat.size) // (flat.size // len(rows))) if boundaries.ndim > 1 and flat.size else \
        np.zeros(flat.size, dtype=np.int64)
    start = np.zeros(flat.size, dtype=np.int64)
    end = np.full(flat.size, length, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        while True:
            active = start < end
            if not active.any():
                break
            mid = start + ((end - start) >> 1)
            position = np.minimum(mid, length - 1)
            if order is not None:
                position = order[row, position]
            mid_value = rows[row, position]
            go_right = ~(mid_value > flat) if right else ~(mid_value >= flat)
            start = np.where(active & go_right, mid + 1, start)
            end = np.where(active & ~go_right, mid, end)
    return start.astype(out_dtype).reshape(values.shape)
