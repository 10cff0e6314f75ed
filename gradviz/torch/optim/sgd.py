"""SGD with momentum, dampening, weight decay, Nesterov and maximize: PyTorch's single-tensor
update, op for op (`_aten` rounds each op as ATen does)."""
import numpy as np

from .._namespace import F as _F
from . import _aten
from .optimizer import Optimizer


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
                 foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach, "differentiable": differentiable,
                    "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _update_group(self, group, params):
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        weight_decay, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
        for p in params:
            w = p._data
            g = p.grad._data
            if maximize:
                g = -g
            if weight_decay != 0:
                g = _aten.add(g, w, weight_decay)
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = _F.from_numpy(np.array(g, dtype=w.dtype, copy=True))  # grad.detach().clone()
                else:
                    _aten.mul_(buf, momentum)
                    _aten.add_(buf, g, 1 - dampening)
                state["momentum_buffer"] = buf
                g = _aten.add(g, buf._data, momentum) if nesterov else buf._data
            _aten.add_(p, g, -lr)
