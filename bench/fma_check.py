"""Check, for every float32 y, that tanh's backward computes 1 - y*y rounded once, as the
fused multiply-add of ATen's AVX2 / AVX-512 kernels does (about 30 s on one core).

The engine computes it in float64 and rounds that to float32. The float64 square is exact;
the float64 difference may round (for |y| < 1/8), and rounding twice can differ from rounding
once only where the first result lies exactly halfway between two float32s. So every y whose
float64 result is such a halfway point is checked against exact rational arithmetic, and
every other y is right by that argument. The script also compares every result with the
float64 FMA helper (round-to-odd) as a second opinion.

    python3 bench/fma_check.py          # exits 1 and names the first wrong inputs, if any
"""
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gradviz.torch import _kernels, _libm  # noqa: E402  (this checkout's, not an installed one)

_BELOW_FLOAT32 = np.uint64((1 << 29) - 1)  # the float64 mantissa bits float32 drops
_HALFWAY = np.uint64(1 << 28)


def nearest_float32(exact):
    """An exact rational rounded to float32, to nearest, ties to even (within float32's range)."""
    guess = np.float32(float(exact))
    candidates = [guess, np.nextafter(guess, np.float32(-np.inf)), np.nextafter(guess, np.float32(np.inf))]
    candidates = [c for c in candidates if np.isfinite(c)]
    best = min(abs(Fraction(float(c)) - exact) for c in candidates)
    nearest = [c for c in candidates if abs(Fraction(float(c)) - exact) == best]
    if len(nearest) > 1:
        nearest = [c for c in nearest if not int(np.asarray(c).view(np.uint32)) & 1]
    return nearest[0]


def check(chunk=1 << 22):
    """(inputs checked, halfway cases checked exactly, [wrong y])."""
    wrong, halfway_cases, top = [], 0, 0x7F800000  # every non-negative float32 up to inf (the sign squares away)
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, top + 1, chunk):
            y = np.arange(start, min(start + chunk, top + 1), dtype=np.uint32).view(np.float32)
            ours = _kernels._one_minus_square(y)
            wide = 1.0 - y.astype(np.float64) ** 2
            halfway = (wide.view(np.uint64) & _BELOW_FLOAT32) == _HALFWAY
            halfway_cases += int(halfway.sum())
            for value, got in zip(y[halfway], ours[halfway]):
                if np.isfinite(got) and got != nearest_float32(1 - Fraction(float(value)) ** 2):
                    wrong.append(float(value))
            second = _libm.fused_multiply_add32(-y, y, np.float32(1))
            differs = ours.view(np.uint32) != second.view(np.uint32)
            wrong.extend(float(v) for v in y[differs][:10])
    return top + 1, halfway_cases, wrong


def main():
    started = time.perf_counter()
    total, halfway_cases, wrong = check()
    print(f"{total:,} float32 inputs, {halfway_cases:,} halfway cases checked exactly, "
          f"{len(wrong)} wrong, {time.perf_counter() - started:.0f} s")
    if wrong:
        print("wrong for y =", ", ".join(repr(v) for v in wrong[:10]))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
