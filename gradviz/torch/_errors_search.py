"""The error texts of unique, searchsorted / bucketize and quantile (ATen's Unique.cpp,
Bucketization.cpp, BucketizationUtils.h and Sorting.cpp), in PyTorch 2.13's exact words."""

UNIQUE_ZERO_SIZED = "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
QUANTILE_EMPTY = "quantile() input tensor must be non-empty"
QUANTILE_Q_DIM = "quantile() q must be a scalar or 1D tensor"
QUANTILE_DTYPE = "quantile() input tensor must be either float or double dtype"
QUANTILE_Q_DTYPE = "quantile() q tensor must be same dtype as the input tensor"
QUANTILE_Q_VALUES = "quantile() q values must be in the range [0, 1]"


def quantile_q_range(q):
    return RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")


def quantile_interpolation(interpolation):
    return RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                        f"but got {interpolation}")


def _sizes(shape):
    return "[" + ", ".join(str(n) for n in shape) + "]"


def searchsorted_side(side):
    return RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")


def searchsorted_opposites(side):
    return RuntimeError(f"torch.searchsorted(): side and right can't be set to opposites, got side of {side} while "
                        "right was True")


def sorter_size(boundaries, sorter):
    return RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor "
                        f"{_sizes(boundaries)}and got sorter tensor {_sizes(sorter)}")


def sorter_dtype(dtype_word):
    return RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype {dtype_word}")


def searchsorted_scalar(boundaries_dim, input_dim, numel):
    return RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, "
                        f"but we got boundaries tensor dim({boundaries_dim}) and input value's dim({input_dim}) "
                        f"numel({numel})")


SEARCHSORTED_ZERO_DIM = "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension"


def searchsorted_dims(boundaries, values):
    return RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                        "boundaries tensor and input value tensor must match, but we got boundaries tensor "
                        f"{_sizes(boundaries)} and input value tensor {_sizes(values)}")


def bucketize_dim(dim):
    return RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({dim})")
