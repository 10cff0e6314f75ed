"""RAdam (Adam with the variance rectification term), with PyTorch's decoupled weight decay
option: its single-tensor update, op for op."""
import numpy as np

from .. import _errors_optim
from .._namespace import F as _F
from . import _aten
from .optimizer import Optimizer, bump, scalar


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _errors_optim.check_non_negative(lr=lr, eps=eps)
        _errors_optim.check_betas(betas)
        _errors_optim.check_non_negative(weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _state(self, p):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _F.tensor(0.0)
            state["exp_avg"] = _F.zeros_like(p)
            state["exp_avg_sq"] = _F.zeros_like(p)
        return state

    def _update_group(self, group, params):
        lr, (beta1, beta2), eps, weight_decay = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        for p in params:
            state = self._state(p)
            w = p._data
            g = -p.grad._data if group["maximize"] else p.grad._data
            step_t, exp_avg, exp_avg_sq = state["step"], state["exp_avg"], state["exp_avg_sq"]
            step_t._data += 1
            bump(step_t)
            step = float(step_t._data)
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    _aten.mul_(p, 1 - lr * weight_decay)
                else:
                    g = _aten.add(g, w, weight_decay)
            _aten.lerp_(exp_avg, g, 1 - beta1)
            _aten.mul_(exp_avg_sq, beta2)
            _aten.addcmul_(exp_avg_sq, g, g, 1 - beta2)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            corrected = exp_avg._data / scalar(bias_correction1, w)
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            update = corrected * scalar(lr, w)
            if rho_t > 5.0:
                # (bias_correction2 ** 0.5) / tensor is Tensor.__rtruediv__: reciprocal, then a product
                adaptive_lr = (scalar(1, w) / (np.sqrt(exp_avg_sq._data) + scalar(eps, w))) \
                    * scalar(bias_correction2 ** 0.5, w)
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                update = update * adaptive_lr * scalar(rect, w)
            _aten.add_(p, update, -1.0)
