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


# ---------------------------------------------------------------------------------------
# dropout
def feature_dropout_rank():
    return RuntimeError("Feature dropout requires at least 2 dimensions in the input")


def dropout1d_rank(ndim):
    return RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. Note that dropout1d "
                        "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                        "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")


def dropout_nd_rank_warning(spatial, ndim):
    words = {2: "2 spatial dimensions", 3: "3 spatial dimensions"}[spatial]
    return (f"dropout{spatial}d: Received a {ndim}-D input to dropout{spatial}d, which is deprecated and will result "
            "in an error in a future release. To retain the behavior and silence this warning, please use dropout "
            f"instead. Note that dropout{spatial}d exists to provide channel-wise dropout on inputs with {words}, a "
            f"channel dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).")


DROPOUT2D_3D_WARNING = (
    "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired - "
    "input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a future "
    "release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
    "channel-wise dropout behavior, please switch to using dropout1d instead.")


# ---------------------------------------------------------------------------------------
# pooling, shuffles
def pool1d_rank(ndim, name):
    return RuntimeError(f"Expected 2 to 3 dimensions, but got {ndim}-dimensional tensor for argument #1 'self' "
                        f"(while checking arguments for {name})")


def shuffle_rank(name, ndim):
    return RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input with {ndim} dimension(s)")


def shuffle_factor(name, factor_name, value):
    return RuntimeError(f"{name} expects a positive {factor_name}, but got {value}")


def pixel_shuffle_channels(channels, square):
    return RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                        f"upscale_factor, but input.size(-3)={channels} is not divisible by {square}")


def pixel_unshuffle_size(name, axis, size, factor):
    return RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                        f"input.size({axis})={size} is not divisible by {factor}")


def channel_shuffle_rank(shape):
    return RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                        f"[{', '.join(map(str, shape))}]")


def channel_shuffle_groups(groups):
    return RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")


def channel_shuffle_divisible(channels, groups):
    return RuntimeError(f"Number of channels must be divisible by groups. Got {channels} channels and {groups} "
                        "groups.")
