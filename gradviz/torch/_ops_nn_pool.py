"""Op-table entries for pooling beyond the 2-D max / average pooling of ``_ops_nn``: 3-D max
and average pooling, 3-D adaptive average pooling, 2-D and 3-D adaptive max pooling and
max unpooling, as derivatives.yaml declares them. Each pooling's gradient is a backward
op of its own taking (grad_output, self), whose own formulas close the loop: grad_output's
is the forward again (average pooling) or a gather at the saved indices (max pooling), and
self's is zeros, as PyTorch's ``zeros_like(self)``."""
import numpy as np

from . import _kernels_pool as KP
from ._namespace import F
from ._ops import Op
from .autograd import graph


def _apply(op, inputs, **params):
    return graph.apply(op, inputs, params)


def gather_at_indices(grad, indices, rank):
    """ATen's max_pool_double_backward: the gradient's planes read at the flat indices (a view,
    a gather and a view back), the adjoint of scattering to them."""
    index = F.from_numpy(np.ascontiguousarray(indices))
    return F.gather(grad.flatten(-rank), -1, index.flatten(-rank)).view(tuple(indices.shape))


def _input_zeros(grad):
    return F.zeros_like(grad)


def _max_pool_ops(rank):
    backward = Op(
        f"MaxPool{rank}DWithIndicesBackwardBackward0",
        lambda grad_output, self, *, indices: KP.unbatched(
            KP.scatter_to_indices, rank, grad_output, indices, self.shape[-rank:]),
        grad_output=lambda grad, indices: gather_at_indices(grad, indices, rank), self=_input_zeros)
    forward = Op(
        f"MaxPool{rank}DWithIndicesBackward0",
        lambda self, *, kernel_size, stride, padding, dilation, ceil_mode: KP.unbatched(
            KP.max_pool, rank, self, kernel_size, stride or kernel_size, padding, dilation, ceil_mode),
        multi_output=True,
        self=lambda grads, self, result1: _apply(backward, (grads[0], self), indices=result1._data),
        keeps=("ceil_mode", "dilation", "kernel_size", "padding", "stride"))
    return forward, backward


def _avg_pool_ops(rank):
    def pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
        return _apply(forward, (input,), kernel_size=kernel_size, stride=stride, padding=padding,
                      ceil_mode=ceil_mode, count_include_pad=count_include_pad, divisor_override=divisor_override)

    backward = Op(
        f"AvgPool{rank}DBackwardBackward0",
        lambda grad_output, self, *, kernel_size, stride, padding, ceil_mode, count_include_pad,
        divisor_override: KP.unbatched(KP.avg_pool_backward, rank, grad_output, self.shape, kernel_size,
                                       stride or kernel_size, padding, ceil_mode, count_include_pad, divisor_override),
        grad_output=lambda grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: pool(
            grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override),
        self=_input_zeros)
    forward = Op(
        f"AvgPool{rank}DBackward0",
        lambda self, *, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: KP.unbatched(
            KP.avg_pool, rank, self, kernel_size, stride or kernel_size, padding, ceil_mode, count_include_pad,
            divisor_override),
        self=lambda grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: _apply(
            backward, (grad, self), kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
            count_include_pad=count_include_pad, divisor_override=divisor_override))
    return forward, backward


def _adaptive_max_pool_ops(rank):
    backward = Op(
        f"AdaptiveMaxPool{rank}DBackwardBackward0",
        lambda grad_output, self, *, indices: KP.unbatched(
            KP.scatter_to_indices, rank, grad_output, indices, self.shape[-rank:]),
        grad_output=lambda grad, indices: gather_at_indices(grad, indices, rank), self=_input_zeros)
    forward = Op(
        f"AdaptiveMaxPool{rank}DBackward0",
        lambda self, *, output_size: KP.unbatched(KP.adaptive_max_pool, rank, self, output_size),
        multi_output=True,
        self=lambda grads, self, result1: _apply(backward, (grads[0], self), indices=result1._data))
    return forward, backward


def _max_unpool_op(rank):
    return Op(f"MaxUnpool{rank}DBackward0",
              lambda self, *, indices, output_size: KP.unbatched(KP.max_unpool, rank, self, indices, output_size),
              self=lambda grad, indices: gather_at_indices(grad, indices, rank))


max_pool3d, max_pool3d_backward = _max_pool_ops(3)
avg_pool3d, avg_pool3d_backward = _avg_pool_ops(3)
adaptive_max_pool2d, adaptive_max_pool2d_backward = _adaptive_max_pool_ops(2)
adaptive_max_pool3d, adaptive_max_pool3d_backward = _adaptive_max_pool_ops(3)
max_unpool2d = _max_unpool_op(2)
max_unpool3d = _max_unpool_op(3)

adaptive_avg_pool3d = Op(
    "AdaptiveAvgPool3DBackward0",
    lambda self, *, output_size: KP.adaptive_avg_pool3d(self, output_size),
    self=lambda grad, self: _apply(adaptive_avg_pool3d_backward, (grad, self),
                                   grad_output_sym_argsize_minus_3=grad.shape[-3],
                                   grad_output_sym_argsize_minus_2=grad.shape[-2],
                                   grad_output_sym_argsize_minus_1=grad.shape[-1]))

# Its gradient pools back to the pooled size, which PyTorch keeps as three numbers.
adaptive_avg_pool3d_backward = Op(
    "AdaptiveAvgPool3DBackwardBackward0",
    lambda grad_output, self, *, grad_output_sym_argsize_minus_3, grad_output_sym_argsize_minus_2,
    grad_output_sym_argsize_minus_1: KP.adaptive_avg_pool3d_backward(grad_output, self.shape),
    grad_output=lambda grad, grad_output_sym_argsize_minus_3, grad_output_sym_argsize_minus_2,
    grad_output_sym_argsize_minus_1: _apply(adaptive_avg_pool3d, (grad,), output_size=(
        grad_output_sym_argsize_minus_3, grad_output_sym_argsize_minus_2, grad_output_sym_argsize_minus_1)),
    self=_input_zeros)
