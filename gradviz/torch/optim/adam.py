"""Adam and AdamW: PyTorch's single-tensor update, step by step."""
import math

import numpy as np

from .. import _dtypes
from .._namespace import F as _F
from .optimizer import Optimizer, bump, scalar


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _state(self, p, amsgrad):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _F.tensor(0.0, dtype=_dtypes.float32)
            state["exp_avg"] = _F.zeros_like(p)
            state["exp_avg_sq"] = _F.zeros_like(p)
            if amsgrad:
                state["max_exp_avg_sq"] = _F.zeros_like(p)
        return state

    def _update_group(self, group, params):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, amsgrad, maximize = group["weight_decay"], group["amsgrad"], group["maximize"]
        decoupled = group.get("decoupled_weight_decay", False)
        for p in params:
            state = self._state(p, amsgrad)
            w = p._data
            g = p.grad._data
            if maximize:
                g = -g
            step_t, exp_avg, exp_avg_sq = state["step"], state["exp_avg"], state["exp_avg_sq"]
            step_t._data += 1
            bump(step_t)
            if weight_decay != 0:
                if decoupled:
                    w *= scalar(1 - lr * weight_decay, w)
                    bump(p)
                else:
                    g = g + scalar(weight_decay, w) * w  # grad.add(param, alpha=weight_decay)
            _lerp_(exp_avg, g, 1 - beta1)
            exp_avg_sq._data *= scalar(beta2, w)
            exp_avg_sq._data += scalar(1 - beta2, w) * (g * g)
            bump(exp_avg_sq, exp_avg_sq)
            step = float(step_t._data)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = math.sqrt(bias_correction2)
            if amsgrad:
                peak = state["max_exp_avg_sq"]
                np.maximum(peak._data, exp_avg_sq._data, out=peak._data)
                bump(peak)
                denom = np.sqrt(peak._data) / scalar(bias_correction2_sqrt, w) + scalar(eps, w)
            else:
                denom = np.sqrt(exp_avg_sq._data) / scalar(bias_correction2_sqrt, w) + scalar(eps, w)
            w += scalar(-step_size, w) * (exp_avg._data / denom)  # param.addcdiv_(exp_avg, denom, value=-step_size)
            bump(p)


def _lerp_(t, end, weight):
    """PyTorch's CPU lerp: two formulas, picked by weight, for accuracy at both ends."""
    a = t._data
    wgt = scalar(weight, a)
    if weight < 0.5:
        a += wgt * (end - a)
    else:
        a[...] = end - (end - a) * scalar(1 - weight, a)
    bump(t)


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
