"""Adagrad (PyTorch's single-tensor update)."""
import numpy as np

from .._namespace import F as _F
from . import _aten
from .optimizer import Optimizer, bump, scalar


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        # PyTorch creates the state eagerly, at construction.
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _F.tensor(0.0)
                state["sum"] = _F.full_like(p, initial_accumulator_value)

    def _update_group(self, group, params):
        for p in params:
            state = self.state[p]
            w = p._data
            g = -p.grad._data if group["maximize"] else p.grad._data
            state["step"]._data += 1
            bump(state["step"])
            step = float(state["step"]._data)
            if group["weight_decay"] != 0:
                g = _aten.add(g, w, group["weight_decay"])
            clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
            _aten.addcmul_(state["sum"], g, g)
            std = np.sqrt(state["sum"]._data) + scalar(group["eps"], w)
            _aten.addcdiv_(p, g, std, -clr)
