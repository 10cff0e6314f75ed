"""gradviz's engine behind a PyTorch-compatible face: ``import gradviz.torch as torch``.

numpy and the standard library only; nothing here imports the inspection, rendering
or CLI layers.
"""
from ..float_noise import silence_in_engine as _silence_float_noise
from . import _dtypes
from . import _kernels as _kernels_module
from . import _errors as _errors_module
from ._dtypes import (bfloat16, bool, complex64, complex128, dtype, float16, float32, float64, int8, int16, int32,  # noqa: F401
                      int64, uint8)
from ._device import device  # noqa: F401
from ._tensor import Size, Tensor  # noqa: F401
from ._dtypes import promote_types  # noqa: F401
from ._type_info import finfo, iinfo  # noqa: F401
from ._format import get_printoptions, printoptions, set_printoptions  # noqa: F401
from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                                 is_inference_mode_enabled, no_grad, set_grad_enabled)
from . import autograd  # noqa: F401
from .autograd.grad_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled  # noqa: F401
from . import backends  # noqa: F401
from .backends import (are_deterministic_algorithms_enabled, get_float32_matmul_precision,  # noqa: F401
                       is_deterministic_algorithms_warn_only_enabled, set_float32_matmul_precision,
                       use_deterministic_algorithms)
from . import _functions
from ._namespace import F as _F

# The functions: torch.<name> for each name a family declares in TORCH (see _functions.py).
# build() also fills the F namespace and the Tensor's methods; nn, optim, linalg... below
# read F, so it runs before they are imported.
globals().update(_functions.build())

__version__ = "2.13.0+gradviz"
_builtin_float = float
float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16
cfloat = complex64
cdouble = complex128
strided = "torch.strided"
# math's constants, as torch re-exports them (torch.sin(torch.pi * x) in PINN tutorials)
pi, e, inf, nan = 3.141592653589793, 2.718281828459045, _builtin_float("inf"), _builtin_float("nan")
newaxis = None
contiguous_format = preserve_format = "torch.contiguous_format"


# For runners that give each script the fresh process PyTorch's once-per-process warnings assume.
_reset_warnings_once = _errors_module.reset_warnings_once


def set_default_dtype(d):
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtypes.DEFAULTS.float_dtype = d


def get_default_dtype():
    return _dtypes.DEFAULTS.float_dtype


def is_floating_point(t):
    return t.is_floating_point()


def is_complex(t):
    return t.is_complex()


def set_num_threads(n):
    """The intra-op threads PyTorch would use: kernels whose rounding depends on how ATen
    splits work across threads (softmax over a non-last dim) follow it. numpy's BLAS
    threads are set by the environment."""
    import builtins
    if builtins.type(n) is not builtins.int:
        raise RuntimeError(f"set_num_threads expects an int, but got {builtins.type(n).__name__}")
    if n < 1:
        raise RuntimeError("set_num_threads expects a positive integer")
    _kernels_module.INTRA_OP_THREADS[0] = n


def get_num_threads():
    return _kernels_module.intra_op_threads()


def is_inference(t):
    return t._inference


class _LegacyTensorType(type):
    """torch.FloatTensor and friends: constructors whose isinstance checks the dtype."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls._dtype

    def __call__(cls, *args, **kwargs):
        return _F.legacy_constructor(Tensor, args, kwargs, dtype=cls._dtype)


def _legacy(name, d):
    return _LegacyTensorType(name, (), {"_dtype": d, "__module__": "torch"})


FloatTensor = _legacy("FloatTensor", float32)
DoubleTensor = _legacy("DoubleTensor", float64)
HalfTensor = _legacy("HalfTensor", float16)
BFloat16Tensor = _legacy("BFloat16Tensor", bfloat16)
LongTensor = _legacy("LongTensor", int64)
IntTensor = _legacy("IntTensor", int32)
ShortTensor = _legacy("ShortTensor", int16)
CharTensor = _legacy("CharTensor", int8)
ByteTensor = _legacy("ByteTensor", uint8)
BoolTensor = _legacy("BoolTensor", bool)


class _Cuda:
    @staticmethod
    def is_available():
        return False

    @staticmethod
    def device_count():
        return 0

    @staticmethod
    def manual_seed(seed):
        return None

    manual_seed_all = manual_seed


cuda = _Cuda()


from . import linalg, nn, optim, special, utils  # noqa: E402,F401
from .nn.modules._rnn_impl import (gru, gru_cell, lstm, lstm_cell, rnn_relu, rnn_relu_cell, rnn_tanh,  # noqa: E402,F401
                                   rnn_tanh_cell)
from . import random  # noqa: E402,F401
from . import func  # noqa: E402,F401
from .func import vmap  # noqa: E402,F401
from . import distributions  # noqa: E402,F401
from . import serialization  # noqa: E402,F401
from .serialization import load, save  # noqa: E402,F401
from . import storage  # noqa: E402,F401
from .storage import TypedStorage, UntypedStorage  # noqa: E402,F401

_silence_float_noise()


from . import _missing as _missing_names  # noqa: E402

__getattr__ = _missing_names.module_getattr(__name__)  # a missing name, in PyTorch's words
