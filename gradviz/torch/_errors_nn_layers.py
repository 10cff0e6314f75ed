"""The error texts of nn's activations, dropout variants, pooling, padding, shuffles and
fold / unfold, in PyTorch 2.13's exact words (ATen's checks and torch/nn's Python). Each
constructor returns the exception to raise."""


def glu_scalar():
    return RuntimeError("glu does not support scalars because halving size must be even")


def glu_odd(dim, size):
    return RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")


def prelu_weight_count(weight_num, channels):
    return RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                        f"{weight_num} and channel size = {channels}.")


def prelu_weight_dim(ndim):
    return RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {ndim}")


def shrink_lambda(lambd, dtype_word, largest):
    return RuntimeError(f"lambda must be in range [0, {largest}] for input dtype {dtype_word}, but found {lambd}")


def rrelu_bounds():
    return RuntimeError("Lower bound should be less than or equal to the upper bound")


def celu_zero_alpha():
    return RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")


def softmax2d_rank(ndim):
    return ValueError(f"Softmax2d: expected input to be 3D or 4D, got {ndim}D instead")
