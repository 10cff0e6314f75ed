"""The gatherer: the torch-facing functions, one family module each, gathered into the
``F`` namespace (``_namespace.F``), the ``gradviz.torch`` package and the Tensor's methods.

    _fn_creation   tensor(), factories, ranges, conversions (to, float(), clone, detach), device
    _fn_pointwise  arithmetic, unary and special functions, clamp, where, lerp
    _fn_linalg     mm, mv, dot, bmm, addmm, matmul, outer, trace
    _fn_linalg_solve    torch.linalg's solvers and factorisations: solve, inv, det, lu, cholesky, lstsq
    _fn_linalg_spectral torch.linalg's eigh / eig, svd, qr, pinv, matrix_rank, matrix_exp, cond
    _fn_reduce     sum, mean, max / min, norms, var / std, prod, cumulative ops, median, softmax
    _fn_compare    comparisons, logical ops, isclose / isnan..., sort and topk
    _fn_shape      views and shapes: view / reshape, permute, squeeze, expand, split...
    _fn_index      t[index], t[index] = v, gather / scatter, index_select, masked ops
    _fn_join       cat, stack, hstack / vstack..., meshgrid
    _fn_inplace    the in-place ops (add_, clamp_, fill_, copy_, resize_...)
    _fn_complex    complex numbers
    _fn_random     seeding, random factories and in-place fills
    _fn_random_counts poisson, binomial, _standard_gamma, _sample_dirichlet: ATen's samplers draw by draw
    _fn_distance   cdist
    _fn_einsum     einsum and baddbmm
    _fn_activation selu, celu, rrelu, threshold, hardshrink, prelu (and nn.functional's other activations)
    _fn_stats      std_mean / var_mean, aminmax, cummax, kthvalue, nanmedian, diff, cov, histc, kron, tensordot
    _fn_rearrange  fliplr / rot90, hsplit..., take / put, repeat_interleave, combinations, vander, adjoint
    _fn_tensor_info result_type / can_cast, get_device, dim_order, Tensor.new, apply_ / map_
    _fn_numeric    inverse hyperbolics, copysign / nextafter / ldexp / frexp, fmax / fmin, gcd / lcm, bitwise ops
    _fn_special    torch.special's functions and their torch.* twins (erfc, i0, sinc, mvlgamma...)
    _fn_sampling   im2col / col2im, affine_grid_generator, grid_sampler (F.unfold / fold / affine_grid / grid_sample)
    _fn_search     unique / unique_consecutive, searchsorted / bucketize, quantile / nanquantile
    _fn_storage    data_ptr, untyped_storage, storage (torch.storage's classes)
    _fn_ctc        ctc_loss (nn.functional.ctc_loss's torch.* core)

Each family declares what it offers: ``EXPORTS`` (every function the engine reaches as
``F.<name>``), ``TORCH`` (those public as ``torch.<name>``) and ``METHODS`` (those that are
Tensor methods, the tensor first). The families share helpers through ``_common`` and
reach each other through ``F`` at call time; only this module imports them.

``build()`` is called once, by ``gradviz.torch``'s ``__init__``, before anything that
reads ``F`` at import time (nn, optim, linalg, special...).
"""
import builtins
import functools

from . import (_fn_activation, _fn_complex, _fn_compare, _fn_creation, _fn_ctc, _fn_distance, _fn_einsum, _fn_index,
               _fn_inplace, _fn_join, _fn_linalg, _fn_linalg_solve, _fn_linalg_spectral, _fn_numeric,
               _fn_pointwise, _fn_random, _fn_random_counts, _fn_rearrange, _fn_reduce, _fn_sampling, _fn_search,
               _fn_shape, _fn_special, _fn_stats, _fn_storage, _fn_tensor_info)
from ._namespace import F
from ._tensor import Tensor

FAMILIES = (_fn_creation, _fn_pointwise, _fn_linalg, _fn_reduce, _fn_compare, _fn_shape, _fn_index, _fn_join,
            _fn_inplace, _fn_complex, _fn_random, _fn_distance, _fn_einsum, _fn_activation, _fn_numeric, _fn_stats,
            _fn_rearrange, _fn_tensor_info, _fn_linalg_solve, _fn_linalg_spectral, _fn_special, _fn_search,
            _fn_sampling, _fn_storage, _fn_random_counts, _fn_ctc)


def build():
    """Fills F and the Tensor's methods from the families' declarations; returns the
    ``torch.<name>`` functions, for ``gradviz.torch`` to make its own."""
    public = {}
    for family in FAMILIES:
        for name in family.EXPORTS:
            if hasattr(F, name):
                raise RuntimeError(f"{family.__name__} declares {name}, which another family declared first")
            function = getattr(family, name)
            if name in family.TORCH or name in family.METHODS:
                function = _accepting_numpy_names(function)
            setattr(F, name, function)
        public.update((name, getattr(F, name)) for name in family.TORCH)
        for name in family.METHODS:
            setattr(Tensor, name, getattr(F, name))
    _install_special_methods()
    return public


def _install_special_methods():
    """The methods that are not simply a function with the tensor first."""
    Tensor.where = F.tensor_where  # x.where(condition, y): the condition comes second
    Tensor.real = property(F.real)
    Tensor.imag = property(F.imag)
    Tensor.H = property(F.conj_transpose)
    Tensor.mH = property(F.matrix_conj_transpose)
    Tensor.resolve_conj, Tensor.resolve_neg = F.resolve_conj, F.resolve_neg  # conj() copies: nothing to resolve
    Tensor.is_conj, Tensor.is_neg = F.is_conj, F.is_neg
    # The commutative operators are the functions themselves: one call less on the hottest path.
    Tensor.__add__ = Tensor.__radd__ = F.add
    Tensor.__mul__ = Tensor.__rmul__ = F.mul


# ----- numpy's argument names ---------------------------------------------------------
# PyTorch's argument parser also accepts numpy's names: axis for dim, keepdims for keepdim.
_NUMPY_NAMES = (("axis", "dim"), ("keepdims", "keepdim"))


def _accepting_numpy_names(fn):
    """``fn`` itself when it takes no dim, else ``fn`` renaming numpy's keywords first."""
    code = getattr(fn, "__code__", None)
    if code is None or not builtins.any(
            n in ("dim", "keepdim") for n in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]):
        return fn

    def with_numpy_names(*args, **kwargs):
        if kwargs:
            for numpy_name, name in _NUMPY_NAMES:
                if numpy_name in kwargs:
                    kwargs[name] = kwargs.pop(numpy_name)
        return fn(*args, **kwargs)
    functools.update_wrapper(with_numpy_names, fn)
    return with_numpy_names
