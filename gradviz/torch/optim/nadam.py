"""NAdam (Adam with Nesterov momentum and a decaying momentum schedule), with PyTorch's
decoupled weight decay option: its single-tensor update, op for op."""
import numpy as np

from .. import _errors_optim
from .._namespace import F as _F
from . import _aten
from .optimizer import Optimizer, bump, scalar


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _errors_optim.check_non_negative(lr=lr, eps=eps)
        _errors_optim.check_betas(betas)
        _errors_optim.check_non_negative(weight_decay=weight_decay, momentum_decay=momentum_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _state(self, p):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _F.tensor(0.0)
            state["mu_product"] = _F.tensor(1.0)
            state["exp_avg"] = _F.zeros_like(p)
            state["exp_avg_sq"] = _F.zeros_like(p)
        return state

    def _update_group(self, group, params):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
        for p in params:
            state = self._state(p)
            w = p._data
            g = -p.grad._data if group["maximize"] else p.grad._data
            step_t, mu_product = state["step"], state["mu_product"]
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            step_t._data += 1
            bump(step_t)
            step = float(step_t._data)
            bias_correction2 = 1 - beta2 ** step
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    _aten.mul_(p, 1 - lr * weight_decay)
                else:
                    g = _aten.add(g, w, weight_decay)
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            _aten.mul_(mu_product, mu)  # a tensor in the scalar dtype: rounded there each step
            _aten.lerp_(exp_avg, g, 1 - beta1)
            _aten.mul_(exp_avg_sq, beta2)
            _aten.addcmul_(exp_avg_sq, g, g, 1 - beta2)
            denom = np.sqrt(exp_avg_sq._data / scalar(bias_correction2, w)) + scalar(eps, w)
            product = float(mu_product._data)
            mu_product_next = product * mu_next
            _aten.addcdiv_(p, g, denom, -lr * (1.0 - mu) / (1.0 - product))
            _aten.addcdiv_(p, exp_avg._data, denom, (-lr * mu_next) / (1.0 - mu_product_next))
