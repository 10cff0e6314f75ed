"""Op-table entries (the ``Op`` rules of ``_ops``) of F.unfold / F.fold (im2col / col2im, each
the other's gradient, so both differentiate any number of times), affine_grid's generator
and 2-D grid sampling."""
from . import _kernels_sampling as KS
from ._namespace import F
from ._ops import Op, not_implemented
from .autograd import graph

im2col = Op(
    "Im2ColBackward0",
    lambda self, *, kernel_size, dilation, padding, stride, self_sym_argsize_minus_2, self_sym_argsize_minus_1:
    KS.im2col(self, kernel_size, dilation, padding, stride),
    self=lambda grad, kernel_size, dilation, padding, stride, self_sym_argsize_minus_2, self_sym_argsize_minus_1:
    F.col2im(grad, (self_sym_argsize_minus_2, self_sym_argsize_minus_1), kernel_size, dilation, padding, stride))

col2im = Op(
    "Col2ImBackward0",
    lambda self, *, output_size, kernel_size, dilation, padding, stride: KS.col2im(
        self, output_size, kernel_size, dilation, padding, stride),
    self=lambda grad, kernel_size, dilation, padding, stride: F.im2col(grad, kernel_size, dilation, padding, stride))

# affine_grid's generator: the base grid [x, y, 1] times theta's transpose; its gradient is
# ATen's affine_grid_generator_backward, written in engine functions
affine_grid_generator = Op(
    "AffineGridGeneratorBackward0",
    lambda theta, *, size, align_corners: F.affine_grid_array(theta, size, align_corners),
    theta=lambda grad, size, align_corners: F.affine_grid_backward(grad, size, align_corners))

# grid_sampler_2d's backward computes both gradients in one kernel; the engine does not
# differentiate it again (PyTorch does)
grid_sampler_2d_backward = Op(
    "GridSampler2DBackwardBackward0",
    lambda grad_output, input, grid, *, interpolation_mode, padding_mode, align_corners, need_input:
    KS.grid_sample_2d_backward(grad_output, input, grid, interpolation_mode, padding_mode, align_corners,
                               need_input),
    multi_output=True,
    grad_output=lambda grads: not_implemented("grid_sampler_2d_backward"),
    input=lambda grads: not_implemented("grid_sampler_2d_backward"),
    grid=lambda grads: not_implemented("grid_sampler_2d_backward"))


def _grid_sampler_grads(grad, input, grid, interpolation_mode, padding_mode, align_corners, which):
    grads = graph.apply(grid_sampler_2d_backward, (grad, input, grid), {
        "interpolation_mode": interpolation_mode, "padding_mode": padding_mode, "align_corners": align_corners,
        "need_input": which == 0})
    return grads[which]


grid_sampler_2d = Op(
    "GridSampler2DBackward0",
    lambda input, grid, *, interpolation_mode, padding_mode, align_corners: KS.grid_sample_2d(
        input, grid, interpolation_mode, padding_mode, align_corners),
    input=lambda grad, input, grid, interpolation_mode, padding_mode, align_corners: _grid_sampler_grads(
        grad, input, grid, interpolation_mode, padding_mode, align_corners, 0),
    grid=lambda grad, input, grid, interpolation_mode, padding_mode, align_corners: _grid_sampler_grads(
        grad, input, grid, interpolation_mode, padding_mode, align_corners, 1),
    joint=True)
