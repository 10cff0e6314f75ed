"""Rprop (resilient backpropagation): PyTorch's single-tensor update, op for op."""
import numpy as np

from .. import _errors_optim
from .._namespace import F as _F
from . import _aten
from .optimizer import Optimizer, bump, scalar


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False,
                 foreach=None, maximize=False, differentiable=False):
        _errors_optim.check_non_negative(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise _errors_optim.invalid_eta_values(etas)
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _state(self, p, group):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _F.zeros(())
            state["prev"] = _F.zeros_like(p)
            state["step_size"] = _F.full_like(p.grad, float(group["lr"]))
        return state

    def _update_group(self, group, params):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for p in params:
            state = self._state(p, group)
            w = p._data
            g = -p.grad._data if group["maximize"] else p.grad._data
            prev, step_size = state["prev"], state["step_size"]
            state["step"]._data += 1
            bump(state["step"])
            sign = np.sign(g * prev._data)
            factors = np.where(sign > 0, scalar(etaplus, w), np.where(sign < 0, scalar(etaminus, w), scalar(1, w)))
            sizes = step_size._data
            sizes *= factors
            np.clip(sizes, scalar(step_size_min, w), scalar(step_size_max, w), out=sizes)
            bump(step_size, step_size)  # mul_ then clamp_
            # where the sign flipped, the gradient counts as zero: no step, and no flip next time
            g = np.where(factors == scalar(etaminus, w), scalar(0, w), g)
            _aten.addcmul_(p, np.sign(g), sizes, -1)
            prev._data[...] = g
            bump(prev)
