"""RMSprop (PyTorch's single-tensor update, with momentum, centering and weight decay)."""
import numpy as np

from .. import _dtypes
from .._namespace import F as _F
from . import _aten
from .optimizer import Optimizer, bump, scalar


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _state(self, p, group):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _F.zeros((), dtype=_dtypes.float32)
            state["square_avg"] = _F.zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = _F.zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = _F.zeros_like(p)
        return state

    def _update_group(self, group, params):
        lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
        for p in params:
            state = self._state(p, group)
            w = p._data
            g = -p.grad._data if group["maximize"] else p.grad._data
            state["step"]._data += 1
            bump(state["step"])
            if group["weight_decay"] != 0:
                g = _aten.add(g, w, group["weight_decay"])
            square_avg = state["square_avg"]
            _aten.mul_(square_avg, alpha)
            _aten.addcmul_(square_avg, g, g, 1 - alpha)
            if group["centered"]:
                grad_avg = state["grad_avg"]
                _aten.lerp_(grad_avg, g, 1 - alpha)
                avg = np.sqrt(_aten.addcmul(square_avg._data, grad_avg._data, grad_avg._data, -1))
            else:
                avg = np.sqrt(square_avg._data)
            avg = avg + scalar(eps, w)
            if momentum > 0:
                buf = state["momentum_buffer"]
                _aten.mul_(buf, momentum)
                _aten.addcdiv_(buf, g, avg)
                _aten.add_(p, buf._data, -lr)
            else:
                _aten.addcdiv_(p, g, avg, -lr)
