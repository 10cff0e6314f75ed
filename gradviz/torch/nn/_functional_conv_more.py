"""conv3d and the transposed convolutions of torch.nn.functional: PyTorch's argument checks,
then the op table's convolution (ConvolutionBackward0, transposed=True for the transposed
ones). An input one rank short is unbatched: it runs with a batch of one, as in PyTorch."""
from .. import _errors_nn_more as E
from .. import _kernels_conv as KC
from .. import _ops_nn_more as ops
from . import functional as _functional


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _functional._convnd("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def _conv_transposend(name, n, input, weight, bias, stride, padding, output_padding, groups, dilation):
    if input.dim() not in (n + 1, n + 2):
        raise E.conv_input_rank(n, name, input.shape)
    stride, padding = _functional._tuple(stride, n), _functional._tuple(padding, n)
    output_padding, dilation = _functional._tuple(output_padding, n), _functional._tuple(dilation, n)
    unbatched = input.dim() == n + 1
    x = input.unsqueeze(0) if unbatched else input
    if weight.shape[0] % groups:
        raise E.conv_weight_groups(groups, weight.shape)
    if x.shape[1] != weight.shape[0]:
        shown = tuple(x.shape) if n > 1 else (x.shape[0], x.shape[1], 1, x.shape[2])
        raise E.conv_transposed_channels(weight.shape, shown, weight.shape[0], x.shape[1])
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise E.conv_output_padding(output_padding, stride, dilation)
    size = KC.transposed_size(x.shape[2:], weight.shape[2:], stride, padding, output_padding, dilation)
    if any(s < 1 for s in size):
        raise E.conv_output_too_small(tuple(x.shape[2:]), size)
    out = ops.conv_transpose(x, weight, bias, stride, padding, output_padding, dilation, groups)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transposend("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                             dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transposend("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                             dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transposend("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                             dilation)
