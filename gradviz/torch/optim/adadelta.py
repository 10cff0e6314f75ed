"""Adadelta: PyTorch's single-tensor update, op for op."""
import numpy as np

from .. import _errors_optim
from .._namespace import F as _F
from . import _aten
from .optimizer import Optimizer, bump, scalar


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _errors_optim.check_non_negative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise _errors_optim.invalid_value("rho value", rho)
        _errors_optim.check_non_negative(eps=eps, weight_decay=weight_decay)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _state(self, p):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _F.tensor(0.0)
            state["square_avg"] = _F.zeros_like(p)
            state["acc_delta"] = _F.zeros_like(p)
        return state

    def _update_group(self, group, params):
        lr, rho, eps, weight_decay = group["lr"], group["rho"], group["eps"], group["weight_decay"]
        for p in params:
            state = self._state(p)
            w = p._data
            state["step"]._data += 1
            bump(state["step"])
            g = -p.grad._data if group["maximize"] else p.grad._data
            if weight_decay != 0:
                g = _aten.add(g, w, weight_decay)
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            _aten.mul_(square_avg, rho)
            _aten.addcmul_(square_avg, g, g, 1 - rho)
            std = np.sqrt(square_avg._data + scalar(eps, w))
            delta = np.sqrt(acc_delta._data + scalar(eps, w))
            delta = (delta / std) * g
            _aten.mul_(acc_delta, rho)
            _aten.addcmul_(acc_delta, delta, delta, 1 - rho)
            _aten.add_(p, delta, -lr)
