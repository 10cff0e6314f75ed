"""The whitelist: which names, functions, tensor methods, attributes, constants and
string literals an expression may use. Everything not listed here is refused.

Functions are resolved *statically* from the spelling in the source (``tanh``,
``torch.tanh``, ``F.relu``, ``torch.nn.functional.relu``); no attribute lookup on a
module object ever happens at evaluation time.
"""
import builtins
import keyword
import math

from .. import torch as _torch
from ..torch import nn as _nn  # noqa: F401  (makes sure torch.nn.functional is loaded)
from ..torch.nn import functional as _F

__all__ = ["FUNCTIONS", "METHODS", "ATTRIBUTES", "CONSTANTS", "MODULES", "STRINGS", "Func",
           "resolve_dotted", "name_refusal", "TENSOR_TYPE", "is_return_type"]

TENSOR_TYPE = _torch.Tensor


class Func:
    """A whitelisted callable: ``fn`` is the engine function, ``key`` selects the size
    estimator in ``limits``, ``returns`` is the static kind of its result."""
    __slots__ = ("spelling", "fn", "key", "returns")

    def __init__(self, spelling, fn, key, returns="any"):
        self.spelling = spelling
        self.fn = fn
        self.key = key
        self.returns = returns

    def __repr__(self):
        return f"Func({self.spelling!r})"


# -- engine functions (bare name and torch.X) ------------------------------------------
_TORCH_FUNCTIONS = """
    abs absolute neg negative exp log sin cos tan tanh sigmoid relu sqrt rsqrt reciprocal sign sgn floor ceil
    trunc frac round square log1p expm1 log2 log10 erf asin acos atan arcsin arccos arctan sinh cosh
    nan_to_num logical_not isnan isinf isfinite clamp clip detach clone
    add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow maximum minimum
    atan2 arctan2 eq ne lt le gt ge greater greater_equal less less_equal not_equal rsub where lerp
    addcmul addcdiv masked_fill allclose isclose equal
    mm matmul bmm mv dot addmm outer
    sum mean prod max min amax amin argmax argmin norm var std logsumexp cumsum all any trace numel
    vector_norm
    reshape flatten squeeze unsqueeze transpose t permute movedim moveaxis narrow select flip roll tril triu
    cat concat concatenate stack split chunk tensor_split unbind index_select gather sort argsort topk
    tensor as_tensor scalar_tensor ones zeros full ones_like zeros_like full_like rand randn rand_like
    randn_like randint randperm arange linspace eye normal
""".split()

# torch.softmax / torch.log_softmax exist in PyTorch; gradviz keeps them in nn.functional.
_TORCH_FROM_F = ("softmax", "log_softmax")

_F_FUNCTIONS = """
    relu gelu leaky_relu elu silu softplus hardtanh relu6 sigmoid tanh softmax log_softmax softmin dropout
    linear layer_norm batch_norm mse_loss l1_loss smooth_l1_loss nll_loss cross_entropy binary_cross_entropy
    binary_cross_entropy_with_logits kl_div normalize cosine_similarity
    conv1d conv2d max_pool1d max_pool2d avg_pool2d
""".split()

# Estimator key per function (default: "broadcast", see limits.py).
_ESTIMATOR = {
    "ones": "create", "zeros": "create", "rand": "create", "randn": "create", "empty": "create",
    "new_zeros": "create", "new_ones": "create", "new_empty": "create",
    "full": "full", "new_full": "full", "randint": "randint", "normal": "normal", "arange": "arange",
    "linspace": "linspace", "eye": "eye", "randperm": "randperm",
    "tensor": "data", "as_tensor": "data", "scalar_tensor": "data", "new_tensor": "data",
    "mm": "matmul", "matmul": "matmul", "bmm": "matmul", "mv": "matmul", "dot": "matmul",
    "addmm": "addmm", "outer": "outer", "ger": "outer", "linear": "linear",
    "cat": "cat", "concat": "cat", "concatenate": "cat", "stack": "cat",
    "split": "split", "chunk": "chunk", "tensor_split": "tensor_split", "unbind": "unbind",
    "expand": "expand", "expand_as": "expand_as", "repeat": "repeat", "index_select": "index_select",
    "conv1d": "conv", "conv2d": "conv", "max_pool1d": "pool1d", "max_pool2d": "pool2d", "avg_pool2d": "pool2d",
}

_RETURNS = {
    "numel": "number", "allclose": "bool", "equal": "bool", "item": "number", "dim": "number",
    "ndimension": "number", "nelement": "number", "size": "any", "element_size": "number", "stride": "any",
    "is_contiguous": "bool", "is_floating_point": "bool", "is_complex": "bool", "retain_grad": "none",
    "split": "seq", "chunk": "seq", "tensor_split": "seq", "unbind": "seq",
}
_TENSOR_RESULT = {"tensor", "as_tensor", "scalar_tensor", "ones", "zeros", "full", "ones_like", "zeros_like",
                  "full_like", "rand", "randn", "rand_like", "randn_like", "randint", "randperm", "arange",
                  "linspace", "eye"}


def _kind(name):
    if name in _RETURNS:
        return _RETURNS[name]
    return "tensor" if name in _TENSOR_RESULT else "any"


FUNCTIONS = {}
for _name in _TORCH_FUNCTIONS:
    _fn = getattr(_torch, _name, None)
    if _fn is None or not callable(_fn):
        continue
    for _spelling in (_name, "torch." + _name):
        FUNCTIONS[_spelling] = Func(_spelling, _fn, _ESTIMATOR.get(_name, "broadcast"), _kind(_name))
if hasattr(_torch, "vector_norm"):
    FUNCTIONS["torch.linalg.vector_norm"] = Func("torch.linalg.vector_norm", _torch.vector_norm, "broadcast")
for _name in _TORCH_FROM_F:
    _fn = getattr(_torch, _name, None) or getattr(_F, _name, None)
    if _fn is not None:
        for _spelling in (_name, "torch." + _name):
            FUNCTIONS[_spelling] = Func(_spelling, _fn, "broadcast")
for _name in _F_FUNCTIONS:
    _fn = getattr(_F, _name, None)
    if _fn is None or not callable(_fn):
        continue
    for _prefix in ("F.", "torch.nn.functional.", "nn.functional."):
        FUNCTIONS[_prefix + _name] = Func(_prefix + _name, _fn, _ESTIMATOR.get(_name, "broadcast"), _kind(_name))

# -- tensor methods (x.name(...)) ------------------------------------------------------
_METHOD_NAMES = """
    abs absolute acos add addcdiv addcmul addmm all allclose amax amin any arccos arcsin arctan arctan2 argmax
    argmin argsort asin atan atan2 bitwise_not bmm bool ceil chunk clamp clip clone contiguous cos cosh cpu
    cumsum detach dim div divide dot double eq equal erf exp expand expand_as expm1 fix flatten flip float floor
    floor_divide fmod frac gather ge ger greater greater_equal gt half index_select int is_complex
    is_contiguous is_floating_point isclose isfinite isinf isnan item le lerp less less_equal log log10 log1p
    log2 logical_not logsumexp long lt masked_fill matmul max maximum mean min minimum mm moveaxis movedim mul
    multiply mv nan_to_num narrow ndimension ne neg negative nelement new_full new_ones new_zeros new_tensor
    norm not_equal numel outer permute pow prod reciprocal relu remainder repeat requires_grad_ reshape
    reshape_as retain_grad roll round rsqrt select sgn sigmoid sign sin sinh size sort split sqrt square
    squeeze std sub subtract sum sum_to_size swapaxes swapdims t tan tanh tensor_split to topk trace transpose
    tril triu true_divide trunc type_as unbind unsqueeze var view view_as where element_size stride
    add_ sub_ mul_ div_ clamp_ zero_ fill_ copy_ exp_ relu_ sigmoid_ tanh_ neg_ pow_ sqrt_ detach_
""".split()

METHODS = {}
for _name in _METHOD_NAMES:
    if callable(getattr(TENSOR_TYPE, _name, None)) and not _name.startswith("_"):
        METHODS[_name] = Func("Tensor." + _name, getattr(TENSOR_TYPE, _name), _ESTIMATOR.get(_name, "broadcast"),
                              _kind(_name))

# -- attributes (x.name, no call) and their static kinds --------------------------------
ATTRIBUTES = {
    "T": "tensor", "mT": "tensor", "data": "tensor", "grad": "any", "shape": "size", "dtype": "dtype",
    "ndim": "number", "is_leaf": "bool", "requires_grad": "bool", "retains_grad": "bool", "grad_fn": "node",
    "is_cuda": "bool",
    # fields of the (values, indices) pairs returned by max/min/sort/topk with a dim
    "values": "any", "indices": "any",
}
RETURN_TYPE_ATTRIBUTES = ("values", "indices")
ATTRIBUTES = {k: v for k, v in ATTRIBUTES.items() if k in RETURN_TYPE_ATTRIBUTES or hasattr(TENSOR_TYPE, k)}


def is_return_type(value):
    """The torch.return_types pairs (values, indices) that max(dim=...) and friends give."""
    return isinstance(value, tuple) and type(value).__module__ == "torch.return_types"


# -- constants -------------------------------------------------------------------------
CONSTANTS = {}
for _name in ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool", "float", "double",
              "half", "long", "int", "short"):
    _value = getattr(_torch, _name, None)
    if isinstance(_value, _torch.dtype):
        CONSTANTS["torch." + _name] = ("dtype", _value)
for _name, _value in (("pi", math.pi), ("e", math.e), ("inf", math.inf), ("nan", math.nan)):
    CONSTANTS["torch." + _name] = ("number", _value)
for _name, _value in (("pi", math.pi), ("e", math.e), ("inf", math.inf), ("nan", math.nan), ("tau", math.tau)):
    CONSTANTS["math." + _name] = ("number", _value)

# Module spellings: valid only as the prefix of a whitelisted function or constant.
MODULES = {"torch", "torch.nn", "torch.nn.functional", "torch.linalg", "F", "nn", "nn.functional", "math"}

# String literals are accepted only as call arguments and only these values: the
# options torch functions take (reduction=, approximate=, padding=, p=, device=).
STRINGS = frozenset({"mean", "sum", "none", "batchmean", "tanh", "same", "valid", "cpu", "fro", "nuc"})

# Keyword arguments that are never accepted (they write into or configure objects
# the expression cannot otherwise reach).
REFUSED_KEYWORDS = frozenset({"out", "generator", "layout", "memory_format", "pin_memory"})

# Names that cannot be leaves: Python builtins (open, eval, getattr, type, ...) and
# module names people try to reach (os, sys, numpy, ...).
_MODULE_LIKE = {"os", "sys", "subprocess", "builtins", "importlib", "np", "numpy", "scipy", "gradviz", "ctypes",
                "pickle", "shutil", "pathlib", "io", "socket", "signal", "inspect", "gc", "code", "pty", "posix",
                "nt", "marshal", "types", "functools", "operator", "itertools", "random", "time", "threading",
                "multiprocessing", "asyncio", "tempfile", "glob", "json", "codecs", "runpy", "site", "platform",
                "requests", "urllib", "http", "webbrowser", "pdb", "tkinter", "resource"}
# A builtin name that is also a common variable name in torch documentation.
_ALLOWED_BUILTIN_NAMES = {"input"}
_BUILTIN_NAMES = set(dir(builtins)) - _ALLOWED_BUILTIN_NAMES


def resolve_dotted(dotted):
    """``("function", Func)``, ``("constant", (kind, value))``, ``("module", None)`` or None."""
    if dotted in FUNCTIONS:
        return ("function", FUNCTIONS[dotted])
    if dotted in CONSTANTS:
        return ("constant", CONSTANTS[dotted])
    if dotted in MODULES:
        return ("module", None)
    return None


def name_refusal(name):
    """Why ``name`` may not be a leaf, or None when it may."""
    if name.startswith("_"):
        return f"name '{name}' is not allowed: names starting with '_' are never accessible"
    if keyword.iskeyword(name) or keyword.issoftkeyword(name) and name in ("match", "case", "type"):
        return f"name '{name}' is not allowed"
    if name in _BUILTIN_NAMES:
        return (f"name '{name}' is a Python builtin and is not available in expressions; "
                "only torch functions and tensor methods can be used")
    if name in _MODULE_LIKE:
        return f"module '{name}' is not available in expressions; use torch functions (e.g. torch.exp)"
    return None


def is_module_head(name):
    return name in {"torch", "F", "nn", "math"}
