"""Every op's gradient against float64 central finite differences, with gradviz alone.

Uses the op table of ``oracle`` (float inputs promoted to float64) and never imports
real PyTorch, so it runs everywhere. First order: <grad_x, .> against the numerical
derivative of <f(x), v> for a random upstream v. Second order: the gradient of
<grad_x(<f(x), v>), w> (built with create_graph=True) against central differences of
the first-order gradient.
"""
import pytest

import oracle

FD = [c for c in oracle.OP_CASES if c.fd and c.group != "f32"]
FD2 = [c for c in FD if c.fd2]


@pytest.mark.parametrize("case", FD, ids=[c.name for c in FD])
def test_gradient_fd(case):
    oracle.fd_check(case)


@pytest.mark.parametrize("case", FD2, ids=[c.name for c in FD2])
def test_double_backward_fd(case):
    oracle.fd2_check(case)
