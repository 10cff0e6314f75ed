"""The error texts of ops that refuse the inputs PyTorch's kernels cannot take (a bool
argmax, a 1-D tril, a clamp without bounds...), in PyTorch 2.13's exact wording; each
constructor returns the exception to raise. (Kernels "not implemented for" a dtype:
_errors.kernel_not_implemented.)"""


def needs_a_matrix(fn):
    """tril / triu of a tensor of fewer than two dimensions."""
    return RuntimeError(f"{fn}: input tensor must have at least 2 dimensions")


def no_bool_input(fn):
    """argmax / argmin of a bool tensor."""
    return RuntimeError(f"{fn}(): does not support bool input")


def relu_of_bool():
    return RuntimeError("Boolean inputs not supported for relu")


def needs_floating_input(fn, scalar_type):
    """nanmean of an integer or bool tensor (scalar_type: Long, Bool...)."""
    return RuntimeError(f"{fn}(): expected input to have floating point or complex dtype but got {scalar_type}")


def bool_not_supported(fn):
    """cov / corrcoef of a bool tensor."""
    return RuntimeError(f"{fn}(): bool dtype is not supported for input")


def clamp_without_bounds():
    return RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")


def positive_of_bool():
    return RuntimeError("The `+` operator, on a bool tensor is not supported.")


def trace_needs_a_matrix(ndim):
    return RuntimeError(f"trace: expected a matrix, but got tensor with dim {ndim}")


def repeats_not_a_vector():
    """torch.repeat_interleave(repeats) of repeats that are not one-dimensional."""
    return RuntimeError("repeat_interleave only accept 1D vector as repeat")


def svd_needs_a_matrix(ndim):
    """The older torch.svd of a tensor of fewer than two dimensions."""
    return RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has {ndim} dimensions instead")
