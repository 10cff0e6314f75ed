"""Functions of one tensor on integer and bool tensors, against real PyTorch: the result's
dtype (ATen's float ops compute integers as the default float dtype: sin, exp, sigmoid...),
its values, and the error where PyTorch's kernel refuses the dtype or the shape, in its
words. In-place variants too (a float result cannot be written into an integer tensor)."""
import warnings

import numpy as np
import pytest

import gradviz.torch as G

torch = pytest.importorskip("torch")

NAMES = (
    "abs abs_ absolute acos acos_ acosh acosh_ adjoint all amax amin angle any arccos arccos_ arccosh arccosh_ "
    "arcsin arcsin_ arcsinh arcsinh_ arctan arctan_ arctanh arctanh_ argmax argmin argsort asin asin_ asinh asinh_ "
    "atan atan_ atanh atanh_ bincount bitwise_not ceil ceil_ celu celu_ cholesky cholesky_inverse clamp clamp_ clip "
    "clip_ clone combinations conj corrcoef cos cos_ cosh cosh_ count_nonzero cov deg2rad deg2rad_ det detach diag "
    "diag_embed diagflat diagonal diff digamma erf erf_ erfc erfc_ erfinv exp exp2 exp2_ exp_ expm1 expm1_ fix fix_ "
    "flatten fliplr flipud floor floor_ frac frac_ frexp hardshrink i0 i0_ imag inverse isfinite isinf isnan "
    "isneginf isposinf isreal lgamma log log10 log10_ log1p log1p_ log2 log2_ log_ logdet logical_not logit logit_ "
    "lu matrix_exp max mean median min msort nan_to_num nan_to_num_ nanmean nanmedian nansum neg neg_ negative "
    "negative_ norm ones_like pinverse positive prod qr rad2deg rad2deg_ ravel real reciprocal reciprocal_ relu "
    "relu_ repeat_interleave resolve_conj resolve_neg rot90 round round_ rsqrt rsqrt_ selu selu_ sgn sigmoid "
    "sigmoid_ sign signbit sin sin_ sinc sinc_ sinh sinh_ slogdet sqrt sqrt_ square square_ squeeze std std_mean "
    "sum svd t tan tan_ tanh tanh_ trace tril triu trunc trunc_ vander var var_mean view_as_complex view_as_real "
    "zero_ zeros_like").split()
INPUTS = {"int64": [[3, -1, 0], [2, 5, -4]], "int32": [1, 2, 3], "uint8": [[0, 7], [250, 1]],
          "bool": [[True, False, True], [False, False, True]]}


def _call(module, name, values, dtype):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(module, name)(module.tensor(values, dtype=getattr(module, dtype)))
    except Exception as exc:  # noqa: BLE001 (the error is the result compared)
        return exc


def _flatten(result):
    """A result as a list of tensors (tuples and named tuples of them flattened)."""
    return list(result) if isinstance(result, tuple) else [result]


@pytest.mark.parametrize("dtype", INPUTS)
@pytest.mark.parametrize("name", NAMES)
def test_function_of_integer_tensor(name, dtype):
    theirs = _call(torch, name, INPUTS[dtype], dtype)
    ours = _call(G, name, INPUTS[dtype], dtype)
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"{name}({dtype}) gave {ours!r}; PyTorch raises {theirs!r}"
        assert type(ours).__name__ == type(theirs).__name__
        assert str(ours).split("\n")[0] == str(theirs).split("\n")[0]
        return
    assert not isinstance(ours, Exception), f"{name}({dtype}) raised {ours!r}; PyTorch gives {theirs!r}"
    theirs, ours = _flatten(theirs), _flatten(ours)
    assert len(ours) == len(theirs)
    for mine, real in zip(ours, theirs):
        assert str(mine.dtype) == str(real.dtype), f"{name}({dtype}): {mine.dtype} != {real.dtype}"
        assert tuple(mine.shape) == tuple(real.shape)
        expected = real.detach().resolve_conj().numpy()
        got = np.asarray(mine.detach().numpy())
        if expected.dtype.kind in "fc":
            np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-30, equal_nan=True)
        else:
            np.testing.assert_array_equal(got, expected)
