"""The error and warning texts of F.unfold / F.fold, F.affine_grid and F.grid_sample (ATen's
Im2Col / Col2Im shape checks, GridSampler.cpp and torch/nn/functional.py), in PyTorch 2.13's
exact words, and the engine's own for what it lacks."""

ALIGN_CORNERS_DEFAULT = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                         "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                         "documentation of grid_sample for details.")
UNIT_SIZE_GRID = ("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. "
                  "This is not an intended use case of affine_grid. See the documentation of affine_grid for details.")


def _t(values):
    return "(" + ", ".join(str(v) for v in values) + ")"


def im2col_blocks(size, kernel, dilation, padding, stride):
    blocks = [(s + 2 * p - (d * (k - 1) + 1)) // st + 1 for s, k, d, p, st in zip(size, kernel, dilation, padding,
                                                                                   stride)]
    return RuntimeError(f"Given input with spatial size {_t(size)}, kernel_size={_t(kernel)}, dilation={_t(dilation)}, "
                        f"padding={_t(padding)}, calculated shape of the array of sliding blocks as {_t(blocks)}, "
                        "but its components must be at least one.")


def col2im_channels(columns, kernel):
    return RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
                        f"input.size(1)={columns} and kernel_size={_t(kernel)}.")


def col2im_blocks(output_size, kernel, dilation, padding, stride, blocks, count):
    return RuntimeError(f"Given output_size={_t(output_size)}, kernel_size={_t(kernel)}, dilation={_t(dilation)}, "
                        f"padding={_t(padding)}, stride={_t(stride)}, expected size of input's dimension 2 to match "
                        f"the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, "
                        f"but got input.size(2)={count}.")


def grid_last_dim(shape):
    return RuntimeError("grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes "
                        "[" + ", ".join(str(s) for s in shape) + "]")


def grid_mode(mode):
    return ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: "
                      f"'{mode}'")


def grid_padding_mode(padding_mode):
    return ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', "
                      f"but got: '{padding_mode}'")


def theta_dtype(dtype):
    return ValueError(f"Expected theta to have floating point type, but got {dtype}")


def theta_shape(size, shape):
    return ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {shape}.")


def affine_grid_rank(size):
    return NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                               f"respectively. Got size {size}.")


def affine_grid_nonpositive(size):
    return ValueError(f"Expected non-zero, positive output size. Got {size}")


def bicubic_missing():
    """gradviz's own: a mode the engine lacks."""
    return NotImplementedError("gradviz's engine samples grids in 'bilinear' and 'nearest' modes only; run the script "
                               "with --engine torch for 'bicubic'")


def grid_sampler_3d_missing():
    """gradviz's own: volumes (5-D inputs) are not sampled."""
    return NotImplementedError("gradviz's engine samples 2-D grids (4-D inputs) only; run the script with --engine "
                               "torch for 5-D inputs")


def affine_grid_3d_missing():
    return NotImplementedError("gradviz's engine builds 2-D affine grids (4-D sizes) only; run the script with "
                               "--engine torch for 5-D sizes")
