"""Kernels of im2col / col2im (F.unfold / F.fold) and 2-D grid sampling (F.grid_sample), as
ATen's CPU kernels compute them: col2im adds each kernel offset's columns in ATen's order;
grid_sample is GridSamplerKernel.cpp's vectorized code (unnormalize as ``(g + 1) * s - 0.5``,
reflection by ``min(extra, twice_span - extra)``, the four corners summed in ATen's order), and
its input gradient is scattered chunk by chunk of 256-bit vectors, corner by corner,
the order ATen's mask_scatter_add adds in. GCC contracts the kernel's vector multiply-adds
into FMAs (its AVX intrinsics are plain vector arithmetic), and so do these kernels, where
ATen's build fuses them."""
import numpy as np

from ._libm import fused_multiply_add, fused_multiply_add32

BILINEAR, NEAREST = 0, 1
ZEROS, BORDER, REFLECTION = 0, 1, 2


def fma(a, b, c):
    """a * b + c rounded once, in a's dtype."""
    if np.result_type(a, b, c) == np.float32:
        return fused_multiply_add32(a, b, c)
    return fused_multiply_add(a, b, c).astype(np.result_type(a, b, c), copy=False)


def blocks(size, kernel, dilation, padding, stride):
    """The number of sliding blocks along each spatial dim."""
    return tuple((s + 2 * p - (d * (k - 1) + 1)) // st + 1 for s, k, d, p, st in
                 zip(size, kernel, dilation, padding, stride))


def im2col(x, kernel, dilation, padding, stride):
    batched = x.ndim == 4
    x = x if batched else x[None]
    n, c, h, w = x.shape
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel, dilation, padding, stride
    oh, ow = blocks((h, w), kernel, dilation, padding, stride)
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    cols = np.empty((n, c, kh, kw, oh, ow), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = padded[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
    cols = cols.reshape(n, c * kh * kw, oh * ow)
    return cols if batched else cols[0]


def col2im(cols, output_size, kernel, dilation, padding, stride):
    batched = cols.ndim == 3
    cols = cols if batched else cols[None]
    (h, w), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = output_size, kernel, dilation, padding, stride
    oh, ow = blocks((h, w), kernel, dilation, padding, stride)
    n, c = cols.shape[0], cols.shape[1] // (kh * kw)
    cols = cols.reshape(n, c, kh, kw, oh, ow)
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw] += cols[:, :, i, j]
    out = np.ascontiguousarray(out[:, :, ph:ph + h, pw:pw + w])
    return out if batched else out[0]


def _location(coord, size, padding_mode, align_corners):
    """(coordinate in pixels, d coordinate / d grid) of one axis, ATen's ComputeLocation."""
    t = coord.dtype.type
    if align_corners:
        scale, low, twice_span, empty = t(size - 1) / t(2), t(0), t(size - 1) * t(2), size <= 1
        x = (coord + t(1)) * scale
    else:
        scale, low, twice_span, empty = t(size) / t(2), t(-0.5), t(size) * t(2), size <= 0
        x = fma(coord + t(1), scale, t(-0.5))
    mult = np.full_like(coord, scale)
    if padding_mode == REFLECTION:
        if empty:
            x, mult = np.zeros_like(x), np.zeros_like(x)
        else:
            shifted = x - low
            magnitude = np.abs(shifted)
            extra = fma(-np.trunc(magnitude / twice_span), twice_span, magnitude)
            reflected = twice_span - extra
            flip = extra > reflected
            x = np.where(flip, reflected, extra) + low
            mult = mult * np.where(flip ^ (shifted < 0), t(-1), t(1))
    if padding_mode in (BORDER, REFLECTION):
        bounded = np.maximum(x, t(0))
        clipped = np.minimum(bounded, t(size - 1))
        inside = (bounded != 0) & (clipped != t(size - 1))
        mult = np.where(inside, mult, t(0))
        x = np.where(np.isnan(x), t(0), clipped)  # clamp_min(0, x) puts NaN to 0
    return x, mult


def _corners(x, y, h, w, must_in_bound):
    x_w, y_n = np.floor(x), np.floor(y)
    wx = x - x_w
    ny = y - y_n
    t = x.dtype.type
    e, s = t(1) - wx, t(1) - ny
    ix, iy = x_w.astype(np.int64), y_n.astype(np.int64)
    w_in = np.ones_like(ix, dtype=bool) if must_in_bound else (ix > -1) & (ix < w)
    n_in = np.ones_like(iy, dtype=bool) if must_in_bound else (iy > -1) & (iy < h)
    e_in = (ix + 1 < w) if must_in_bound else (ix + 1 > -1) & (ix + 1 < w)
    s_in = (iy + 1 < h) if must_in_bound else (iy + 1 > -1) & (iy + 1 < h)
    corners = [(iy, ix, s * e, w_in & n_in), (iy, ix + 1, s * wx, e_in & n_in),
               (iy + 1, ix, ny * e, w_in & s_in), (iy + 1, ix + 1, ny * wx, e_in & s_in)]
    return corners, (ny, s, wx, e)


def _gather(image, iy, ix, mask):
    """image (N, C, H, W) at (iy, ix) of shape (N, P), 0 where mask is off: (N, C, P)."""
    h, w = image.shape[2:]
    flat = image.reshape(image.shape[0], image.shape[1], h * w)
    index = np.where(mask, np.clip(iy, 0, max(h - 1, 0)) * w + np.clip(ix, 0, max(w - 1, 0)), 0)
    values = np.take_along_axis(flat, index[:, None, :], axis=2) if h * w else np.zeros(
        (image.shape[0], image.shape[1], index.shape[1]), image.dtype)
    return np.where(mask[:, None, :], values, image.dtype.type(0))


def grid_sample_2d(image, grid, mode, padding_mode, align_corners):
    n, c, h, w = image.shape
    out_h, out_w = grid.shape[1:3]
    gx, gy = grid[..., 0].reshape(n, -1), grid[..., 1].reshape(n, -1)
    x, _ = _location(gx, w, padding_mode, align_corners)
    y, _ = _location(gy, h, padding_mode, align_corners)
    must_in_bound = padding_mode != ZEROS
    if mode == NEAREST:
        ix, iy = np.rint(x).astype(np.int64), np.rint(y).astype(np.int64)
        mask = np.ones_like(ix, dtype=bool) if must_in_bound else (ix > -1) & (ix < w) & (iy > -1) & (iy < h)
        return _gather(image, iy, ix, mask).reshape(n, c, out_h, out_w)
    corners, _ = _corners(x, y, h, w, must_in_bound)
    (nw, nw_w), (ne, ne_w), (sw, sw_w), (se, se_w) = (
        (_gather(image, iy, ix, mask), weight[:, None, :]) for iy, ix, weight, mask in corners)
    out = fma(se, se_w, fma(sw, sw_w, fma(ne, ne_w, nw * nw_w)))
    return out.reshape(n, c, out_h, out_w)


def _scatter_add(grad_image, corners, width):
    """Adds each corner's values (N, C, P) at its (iy, ix) where its mask is on into grad_image
    (N, C, H*W) in ATen's order: chunk by chunk of the vector width, channel by channel, and
    within those corner by corner, each corner's lanes in order."""
    n, c, p = corners[0][3].shape
    lanes = 32 // grad_image.dtype.itemsize  # the backward kernel runs 256-bit vectors (AVX2)
    for start in range(0, p, lanes):
        stop = min(start + lanes, p)
        targets = []
        for iy, ix, mask, values in corners:
            batch, point = np.nonzero(mask[:, start:stop])
            point = point + start
            targets.append((batch, point, iy[batch, point] * width + ix[batch, point], values))
        for channel in range(c):
            for batch, point, target, values in targets:
                np.add.at(grad_image[:, channel], (batch, target), values[batch, channel, point])


def grid_sample_2d_backward(grad_output, image, grid, mode, padding_mode, align_corners, need_input):
    """(grad of image or None, grad of grid), ATen's grid_sampler_2d_backward."""
    n, c, h, w = image.shape
    gx, gy = grid[..., 0].reshape(n, -1), grid[..., 1].reshape(n, -1)
    x, mult_x = _location(gx, w, padding_mode, align_corners)
    y, mult_y = _location(gy, h, padding_mode, align_corners)
    grad_out = grad_output.reshape(n, c, -1)
    grad_image = np.zeros((n, c, h * w), dtype=image.dtype) if need_input else None
    must_in_bound = padding_mode != ZEROS
    if mode == NEAREST:
        if need_input:
            ix, iy = np.rint(x).astype(np.int64), np.rint(y).astype(np.int64)
            mask = np.ones_like(ix, dtype=bool) if must_in_bound else (ix > -1) & (ix < w) & (iy > -1) & (iy < h)
            _scatter_add(grad_image, [(iy, ix, mask, grad_out)], w)
        grad_grid = np.zeros_like(grid)
    else:
        corners, (ny, s, wx, e) = _corners(x, y, h, w, must_in_bound)
        if need_input:
            _scatter_add(grad_image, [(iy, ix, mask, weight[:, None, :] * grad_out) for iy, ix, weight, mask in corners],
                         w)
        nw, ne, sw, se = (_gather(image, iy, ix, mask) for iy, ix, _, mask in corners)
        t = image.dtype.type
        grad_x, grad_y = np.zeros_like(x), np.zeros_like(y)
        for channel in range(c):
            g = grad_out[:, channel]
            along_x = fma(se[:, channel] - sw[:, channel], ny, (ne[:, channel] - nw[:, channel]) * s)
            along_y = fma(se[:, channel] - ne[:, channel], wx, (sw[:, channel] - nw[:, channel]) * e)
            grad_x, grad_y = fma(along_x, g, grad_x), fma(along_y, g, grad_y)
        grad_grid = np.stack([grad_x * mult_x, grad_y * mult_y], axis=-1).reshape(grid.shape).astype(t)
    if need_input:
        grad_image = grad_image.reshape(n, c, h, w)
    return grad_image, grad_grid
