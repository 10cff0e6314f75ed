"""Adam and AdamW: PyTorch's single-tensor update, step by step."""
import math

import numpy as np

from .. import _dtypes
from .._namespace import F as _F
from . import _aten
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
                    _aten.mul_(p, 1 - lr * weight_decay)
                else:
                    g = _aten.add(g, w, weight_decay)
            _aten.lerp_(exp_avg, g, 1 - beta1)
            _aten.mul_(exp_avg_sq, beta2)
            _aten.addcmul_(exp_avg_sq, g, g, 1 - beta2)
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
            _aten.addcdiv_(p, exp_avg._data, denom, -step_size)


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
