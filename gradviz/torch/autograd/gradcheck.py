"""gradcheck / gradgradcheck: analytical Jacobians (one backward per output element)
against central finite differences, with PyTorch's tolerances and failure message."""
import warnings

import numpy as np

from .._namespace import F
from . import entry


class GradcheckError(RuntimeError):
    __module__ = "torch.autograd.gradcheck"


def _tensors(xs):
    """The inputs as a tuple; non-tensor inputs (ints, options) pass through untouched."""
    from .._tensor import Tensor
    if isinstance(xs, Tensor):
        return (xs,)
    return tuple(xs)


def _requiring_grad(inputs):
    from .._tensor import Tensor
    wrt = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")
    return wrt


def _outputs(fn, inputs):
    from .._tensor import Tensor
    out = fn(*inputs)
    if isinstance(out, Tensor):
        return (out,)
    return tuple(o for o in out if isinstance(o, Tensor))


def _numerical(fn, inputs, wrt, eps):
    """Jacobian blocks J[out][in] of shape (in.numel, out.numel), by central differences."""
    # Evaluated with grad mode on: for gradgradcheck the function itself calls autograd.grad.
    outs = _outputs(fn, inputs)
    jac = [[np.zeros((inputs[i]._data.size, o._data.size)) for i in wrt] for o in outs]
    for col, i in enumerate(wrt):
        flat = inputs[i]._data.reshape(-1)
        for k in range(flat.size):
            orig = flat[k]
            flat[k] = orig + eps
            plus = [o._data.astype(np.float64).reshape(-1).copy() for o in _outputs(fn, inputs)]
            flat[k] = orig - eps
            minus = [o._data.astype(np.float64).reshape(-1).copy() for o in _outputs(fn, inputs)]
            flat[k] = orig
            for r, (p, m) in enumerate(zip(plus, minus)):
                jac[r][col][k] = (p - m) / (2 * eps)
    return jac


def _analytical(fn, inputs, wrt):
    outs = _outputs(fn, inputs)
    jac = [[np.zeros((inputs[i]._data.size, o._data.size)) for i in wrt] for o in outs]
    for r, out in enumerate(outs):
        if not out.requires_grad:
            continue
        for j in range(out._data.size):
            seed = np.zeros(out._data.size, dtype=out._data.dtype)
            seed[j] = 1
            grads = entry.grad(out, [inputs[i] for i in wrt], F.from_numpy(seed.reshape(out._data.shape)),
                                  retain_graph=True, allow_unused=True)
            for col, g in enumerate(grads):
                if g is not None:
                    jac[r][col][:, j] = g._data.astype(np.float64).reshape(-1)
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    inputs = _tensors(inputs)
    wrt = _requiring_grad(inputs)
    for i in wrt:
        if inputs[i]._data.dtype != np.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating point "
                          "or complex. ", UserWarning, stacklevel=2)
    numerical = _numerical(func, inputs, wrt, eps)
    analytical = _analytical(func, inputs, wrt)
    for r, (num_row, ana_row) in enumerate(zip(numerical, analytical)):
        for col, (n, a) in enumerate(zip(num_row, ana_row)):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {r} with respect to input {wrt[col]},\n"
                    f"numerical:{_fmt(n)}\nanalytical:{_fmt(a)}\n")
    return True


def _fmt(matrix):
    return repr(F.from_numpy(matrix))


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    inputs = _tensors(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = tuple(F.randn(*o.shape, dtype=o.dtype, requires_grad=True) for o in outs)
    else:
        grad_outputs = _tensors(grad_outputs)
    n_in = len(inputs)
    _requiring_grad(inputs)

    def first_derivatives(*args):
        xs, gs = args[:n_in], args[n_in:]
        out = _outputs(func, xs)
        grads = entry.grad(out, [x for x in xs if getattr(x, "requires_grad", False)], gs, create_graph=True,
                              allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
