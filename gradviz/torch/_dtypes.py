"""torch.dtype objects and the mapping to numpy dtypes, with PyTorch's type promotion."""
import ml_dtypes
import numpy as np

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


class dtype:
    """A torch dtype: prints as ``torch.float32``; compares by identity like PyTorch's."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "legacy_name")

    def __init__(self, name, np_dtype, legacy_name):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f" or self.np == BFLOAT16
        self.is_complex = self.np.kind == "c"
        self.is_signed = self.np.kind in "fic" or self.is_floating_point
        self.itemsize = self.np.itemsize
        # The name in messages such as "[torch.FloatTensor [3]]".
        self.legacy_name = legacy_name

    @property
    def scalar_type(self):
        """ATen's ScalarType name, as kernels' messages print it: Float, Long, Bool..."""
        return self.legacy_name[:-len("Tensor")]

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    def to_complex(self):
        return complex128 if self is float64 else complex64

    def to_real(self):
        return float64 if self is complex128 else float32


float32 = dtype("float32", np.float32, "FloatTensor")
float64 = dtype("float64", np.float64, "DoubleTensor")
float16 = dtype("float16", np.float16, "HalfTensor")
bfloat16 = dtype("bfloat16", BFLOAT16, "BFloat16Tensor")
int64 = dtype("int64", np.int64, "LongTensor")
int32 = dtype("int32", np.int32, "IntTensor")
int16 = dtype("int16", np.int16, "ShortTensor")
int8 = dtype("int8", np.int8, "CharTensor")
uint8 = dtype("uint8", np.uint8, "ByteTensor")
bool = dtype("bool", np.bool_, "BoolTensor")  # noqa: A001 - torch.bool is the public name
complex64 = dtype("complex64", np.complex64, "ComplexFloatTensor")
complex128 = dtype("complex128", np.complex128, "ComplexDoubleTensor")

ALL = (float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8, bool, complex64, complex128)
FROM_NUMPY = {d.np: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}
ALIASES = {"float": float32, "double": float64, "half": float16, "long": int64, "int": int32,
           "short": int16, "cfloat": complex64, "cdouble": complex128}


def _by_name(name):
    return _BY_NAME[name]


def of_array(array):
    """The torch dtype of a numpy array (raises TypeError for numpy dtypes torch lacks)."""
    try:
        return FROM_NUMPY[array.dtype]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{array.dtype.name}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool."
        ) from None


class _Defaults:
    """The process-wide default floating dtype (torch.set_default_dtype)."""
    float_dtype = float32


DEFAULTS = _Defaults()


def _category(d):
    if d is bool:
        return 0
    if d.is_complex:
        return 3
    return 2 if d.is_floating_point else 1


def scalar_dtype(value):
    """The dtype a Python number takes when it becomes a tensor."""
    if isinstance(value, (np.bool_, type(True))):
        return bool
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, complex):
        return DEFAULTS.float_dtype.to_complex()
    return DEFAULTS.float_dtype


def promote_types(a, b):
    """torch.promote_types: across categories the higher category's dtype wins as it is
    (float32 with int64 stays float32), except that a complex type widens to hold a float64;
    within a category numpy's rule (the wider type) agrees with PyTorch's."""
    if a is b:
        return a
    cat_a, cat_b = _category(a), _category(b)
    if cat_a == cat_b or (min(cat_a, cat_b) == 2 and max(cat_a, cat_b) == 3):
        if a is bfloat16 or b is bfloat16:  # numpy cannot promote it; neither half type holds the other
            other = b if a is bfloat16 else a
            return float32 if other is float16 else other
        return FROM_NUMPY[np.promote_types(a.np, b.np)]
    return a if cat_a > cat_b else b


def result_type(operands):
    """PyTorch's result_type: dimensioned tensors, 0-dim tensors and Python numbers are each
    promoted within their tier, then combined so that a lower tier only matters when it
    brings a higher category (bool < int < float < complex)."""
    tiers = [None, None, None]
    for op in operands:
        if op is None:  # an absent optional operand (clamp without max)
            continue
        if isinstance(op, np.ndarray):
            tier, d = (0 if op.ndim else 1), FROM_NUMPY[op.dtype]
        else:
            tier, d = 2, scalar_dtype(op)
        tiers[tier] = d if tiers[tier] is None else promote_types(tiers[tier], d)
    return _combine_categories(tiers[0], _combine_categories(tiers[1], tiers[2]))


def _combine_categories(higher, lower):
    """c10's combine_categories: ``higher`` (the higher tier) wins unless ``lower`` has a
    higher category; a complex lower tier keeps a floating higher tier's precision."""
    if higher is None:
        return lower
    if lower is None or higher.is_complex:
        return higher
    if lower.is_complex:
        return higher.to_complex() if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher
