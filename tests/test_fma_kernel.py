"""tanh_backward's 1 - y*y rounded once (ATen fuses it into one FMA) against exact rational
arithmetic. The engine rounds a float64 result to float32; these are the inputs where that
could go wrong: those whose float64 difference itself rounds (|y| < 1/8) and those whose
float64 result lies exactly halfway between two float32s. bench/fma_check.py checks every
float32."""
from fractions import Fraction

import numpy as np

from bench.fma_check import nearest_float32
from gradviz.torch import _kernels


def _random_float32s(rs, low_exponent, high_exponent, count):
    exponents = rs.randint(127 + low_exponent, 127 + high_exponent, size=count).astype(np.uint32)
    return ((exponents << np.uint32(23)) | rs.randint(0, 1 << 23, size=count).astype(np.uint32)).view(np.float32)


def _hard_inputs():
    rs = np.random.RandomState(0)
    small = _random_float32s(rs, -14, -3, 3000)  # the float64 difference rounds
    near_one = _random_float32s(rs, -1, 1, 200_000)
    wide = 1.0 - near_one.astype(np.float64) ** 2
    halfway = near_one[(wide.view(np.uint64) & np.uint64((1 << 29) - 1)) == np.uint64(1 << 28)]
    short = np.float32(2.0) ** -np.arange(1, 15, dtype=np.float32)  # short mantissas
    y = np.concatenate([small, halfway, near_one[:1000], short, short * np.float32(1.5), np.float32([0, 1, 3])])
    return np.concatenate([y, -y])


def test_one_minus_square_rounds_once():
    y = _hard_inputs()
    assert y.size > 8000
    ours = _kernels._one_minus_square(y)
    expected = np.array([nearest_float32(1 - Fraction(float(v)) ** 2) for v in y], dtype=np.float32)
    wrong = ours.view(np.uint32) != expected.view(np.uint32)
    assert not wrong.any(), f"{wrong.sum()} wrong, e.g. y={y[wrong][:3]}: {ours[wrong][:3]} != {expected[wrong][:3]}"


def test_tanh_backward_kernel_keeps_shape_and_dtype():
    y = np.full((2, 3), 0.5, np.float32)
    out = _kernels.tanh_backward_array(np.ones((2, 3), np.float32), y)
    assert out.dtype == np.float32 and out.shape == (2, 3) and (out == np.float32(0.75)).all()
    zero_d = _kernels.tanh_backward_array(np.float32(2), np.array(0.5, np.float32))
    assert zero_d == np.float32(1.5)
