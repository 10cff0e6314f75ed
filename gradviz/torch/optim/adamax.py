"""Adamax (Adam on the infinity norm): PyTorch's single-tensor update, op for op."""
import numpy as np

from .. import _errors_optim
from .._namespace import F as _F
from . import _aten
from .optimizer import Optimizer, bump, scalar


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _errors_optim.check_non_negative(lr=lr, eps=eps)
        _errors_optim.check_betas(betas)
        _errors_optim.check_non_negative(weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _state(self, p):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _F.tensor(0.0)  # the default dtype, PyTorch's _get_scalar_dtype()
            state["exp_avg"] = _F.zeros_like(p)
            state["exp_inf"] = _F.zeros_like(p)
        return state

    def _update_group(self, group, params):
        lr, (beta1, beta2), eps, weight_decay = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        for p in params:
            state = self._state(p)
            w = p._data
            g = -p.grad._data if group["maximize"] else p.grad._data
            step_t, exp_avg, exp_inf = state["step"], state["exp_avg"], state["exp_inf"]
            step_t._data += 1
            bump(step_t)
            if weight_decay != 0:
                g = _aten.add(g, w, weight_decay)
            _aten.lerp_(exp_avg, g, 1 - beta1)
            # torch.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf): two writes
            _aten.mul_(exp_inf, beta2)
            np.maximum(exp_inf._data, np.abs(g) + scalar(eps, w), out=exp_inf._data)
            bump(exp_inf)
            clr = lr / (1 - beta1 ** float(step_t._data))
            _aten.addcdiv_(p, exp_avg._data, exp_inf._data, -clr)
