"""torch.finfo and torch.iinfo: the limits of a dtype, shown as PyTorch shows them."""
import numpy as np

from . import _dtypes

# bfloat16 is float32's exponent with an 8-bit significand; numpy has no such type to ask
_BFLOAT16 = dict(bits=16, eps=0.0078125, max=3.3895313892515355e+38, tiny=1.1754943508222875e-38, resolution=0.01)


def _g(value):
    """A number as PyTorch's repr prints it (C's %g, six significant digits)."""
    return "%g" % value


class finfo:
    __module__ = "torch"

    def __init__(self, type=None):
        if type is None:
            type = _dtypes.DEFAULTS.float_dtype
        if not isinstance(type, _dtypes.dtype):
            raise TypeError(f"finfo(): argument 'type' (position 1) must be torch.dtype, not {builtins_name(type)}")
        if type.is_complex:
            type = type.to_real()
        if not type.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        if type.name == "bfloat16":
            facts = _BFLOAT16
        else:
            info = np.finfo(type.np)
            facts = dict(bits=info.bits, eps=float(info.eps), max=float(info.max), tiny=float(info.tiny),
                         resolution=10.0 ** -info.precision)
        self.bits = facts["bits"]
        self.eps = facts["eps"]
        self.max = facts["max"]
        self.min = -facts["max"]
        self.tiny = self.smallest_normal = facts["tiny"]
        self.resolution = facts["resolution"]
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, max={_g(self.max)}, "
                f"eps={_g(self.eps)}, smallest_normal={_g(self.smallest_normal)}, tiny={_g(self.tiny)}, "
                f"dtype={self.dtype})")


class iinfo:
    __module__ = "torch"

    def __init__(self, type):
        if not isinstance(type, _dtypes.dtype):
            raise TypeError(f"iinfo(): argument 'type' (position 1) must be torch.dtype, not {builtins_name(type)}")
        if type.name == "bool":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point or type.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits, self.max, self.min, self.dtype = info.bits, int(info.max), int(info.min), type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"


def builtins_name(value):
    return type(value).__name__
