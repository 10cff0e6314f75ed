"""How torch.tensor stores each Python number of its data (torch/csrc/utils/tensor_new.cpp's
recursive_store and store_scalar): every number is unpacked for the tensor's dtype, one at a
time and in order, so the first value that does not fit raises PyTorch's error for it rather
than being wrapped by numpy. Only the checks and the unpacking live here; the array is built
by the caller."""
import builtins

import numpy as np

from . import _dtypes, _errors, _tensor

_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1


def store_nested(data, target):
    """``data`` (Python numbers in nested lists, tuples, arrays or tensors) with each number
    as PyTorch unpacks it for ``target``. Sequences are walked depth first, each length
    checked before its items are stored, as recursive_store does, so a ragged list and a
    bad number are reported in the order PyTorch meets them."""
    whole = _stored_at_once(data, target)
    if whole is not None:
        return whole
    store = _storer(target)
    sizes, probe = [], data
    while isinstance(probe, (list, tuple)):
        sizes.append(len(probe))
        if not probe:
            break
        probe = probe[0]
    root = []
    stack = [(data, 0, root)]  # iterative: a deeply nested list must not hit the recursion limit
    while stack:
        item, depth, parent = stack.pop()
        if isinstance(item, (np.ndarray, _tensor.Tensor)):
            parent.append(item)
        elif depth == len(sizes):
            parent.append(store(item))
        elif not isinstance(item, (list, tuple)):
            raise TypeError("not a sequence")
        elif len(item) != sizes[depth]:
            raise ValueError(f"expected sequence of length {sizes[depth]} at dim {depth} (got {len(item)})")
        else:
            node = []
            parent.append(node)
            stack.extend((child, depth + 1, node) for child in reversed(item))
    return root[0]


#: int64s up to this size are exact in a double: converted at once, they round as one by one
_EXACT_IN_DOUBLE = 2 ** 53


def _stored_at_once(data, target):
    """The common case at numpy's speed (a million numbers in a fraction of the time): a
    rectangular list of plain floats or ints for a dtype that holds each of them as the
    one-by-one path stores it. None for anything else, which takes that path: ints beyond
    int64 (numpy makes uint64 or objects of them), floats for an integer dtype (range
    checks), half precision (rounded twice), bool, complex, ragged lists."""
    if target not in (_dtypes.float32, _dtypes.float64, _dtypes.int64):
        return None
    try:
        with np.errstate(all="ignore"):
            arr = np.array(data)
    except (ValueError, TypeError, OverflowError):
        return None
    if arr.dtype == np.float64 and target is not _dtypes.int64:
        return arr
    if arr.dtype == np.int64:
        if target is _dtypes.int64:
            return arr
        if arr.size == 0 or builtins.int(np.abs(arr).max()) < _EXACT_IN_DOUBLE:
            return arr.astype(np.float64)
    return None


def _storer(target):
    if target.is_complex:
        return _store_complex
    if target.is_floating_point:
        # c10::Half and c10::BFloat16 are built from a float: the double is rounded twice
        return _store_float if target.itemsize >= 4 else _store_half
    if target is _dtypes.bool:
        return _store_bool
    info = np.iinfo(target.np)
    return lambda value: _store_integral(value, target.name, int(info.min), int(info.max))


def _store_integral(value, type_word, low, high):
    """unpackIntegral: a float goes through checked_convert from double, anything else
    through THPUtils_unpackLong (int64) and then checked_convert from int64."""
    if isinstance(value, (float, np.float64)):
        # c10::overflows compares in double, where int64's max rounds up to 2**63
        if value != value or value < float(low) or value > float(high):
            raise _errors.value_overflow(type_word)
        number = builtins.int(value)
        return _INT64_MIN if number > _INT64_MAX else number  # x86's cvttsd2si for 2.0**63
    if isinstance(value, (bool, np.bool_)):
        return builtins.int(value)
    if not isinstance(value, (int, np.integer)):
        raise _errors.not_an_integer(value)
    number = builtins.int(value)
    if not _INT64_MIN <= number <= _INT64_MAX:
        raise _errors.unpack_long_overflow()
    # unsigned types let a negative number wrap as long as its magnitude fits
    if number > high or (number < low and (low < 0 or -number > high)):
        raise _errors.value_overflow(type_word)
    return number


def _store_float(value):
    if isinstance(value, (complex, np.complexfloating)) or not isinstance(value, (int, float, np.number)):
        raise _errors.not_a_real_number(value)
    return builtins.float(value)  # OverflowError for an int beyond double, Python's words as PyTorch's


def _store_half(value):
    with np.errstate(over="ignore"):  # beyond float32 is inf, silently, as in C++
        return builtins.float(np.float32(_store_float(value)))


def _store_complex(value):
    if isinstance(value, (complex, np.complexfloating)):
        return builtins.complex(value)
    return _store_float(value)


def _store_bool(value):
    """THPUtils_unpackNumberAsBool: any size of int is true or false; only non-numbers fail."""
    if not isinstance(value, (int, float, complex, np.number, np.bool_)):
        raise _errors.not_an_integer(value)
    return builtins.bool(value)
