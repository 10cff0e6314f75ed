"""Complex numbers: torch.complex / polar, the real and imaginary parts (views, as in
PyTorch: real(z) is select(view_as_real(z), -1, 0)), conj and angle."""
from . import _errors, _kernels as K, _ops, _tensor
from ._common import _dtype_word
from ._namespace import F  # the other families' functions, read at call time
from .autograd.graph import apply

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "angle", "conj", "imag", "polar", "real", "view_as_complex", "view_as_real", "complex", "is_conj", "is_neg",
    "resolve_conj", "resolve_neg",
)
TORCH = (
    "angle", "conj", "imag", "polar", "real", "view_as_complex", "view_as_real", "complex", "is_conj", "is_neg",
    "resolve_conj", "resolve_neg",
)
METHODS = (
    "angle", "conj",
)



def _check_parts(a, b):
    for t in (a, b):
        if not t.dtype.is_floating_point:
            raise _errors.complex_parts_not_float(_dtype_word(a.dtype), _dtype_word(b.dtype))
    if a.dtype is not b.dtype:
        raise _errors.complex_parts_dtype(_dtype_word(a.dtype), _dtype_word(b.dtype))
    K.broadcast_shapes(a._data.shape, b._data.shape)


def complex(real, imag, *, out=None):  # noqa: A001 - torch.complex is the public name
    _check_parts(real, imag)
    return apply(_ops.complex_, (real, imag), {})


def polar(abs, angle, *, out=None):  # noqa: A002
    _check_parts(abs, angle)
    return apply(_ops.polar, (abs, angle), {})


def view_as_real(input):
    if not input.is_complex():
        raise _errors.view_as_real_not_complex()
    return apply(_ops.view_as_real, (input,), {})


def view_as_complex(input):
    if input.dtype.name not in ("float16", "float32", "float64"):
        raise _errors.view_as_complex_dtype(_dtype_word(input.dtype))
    if input.dim() == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if input.stride(-1) != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    return apply(_ops.view_as_complex, (input,), {})


def real(input):
    return F.select(view_as_real(input), -1, 0) if input.is_complex() else input


def imag(input):
    if not input.is_complex():
        raise _errors.imag_of_real()
    return F.select(view_as_real(input), -1, 1)


def conj(input):
    if not isinstance(input, _tensor.Tensor):  # a number a formula saved in place of a tensor
        return K.conj_array(input)
    return apply(_ops.conj, (input,), {}) if input.is_complex() else input


def angle(input):
    return apply(_ops.angle, (input,), {})


# conj() copies here, so no tensor carries a lazy conjugate or negative bit to resolve
def is_conj(input):
    return False


def is_neg(input):
    return False


def resolve_conj(input):
    return input


def resolve_neg(input):
    return input
