"""ASGD (averaged SGD): PyTorch's single-tensor update, op for op. The step size ``eta`` and
the averaging weight ``mu`` are tensors in the scalar dtype, so they round there."""
import numpy as np

from .. import _errors_optim
from .._namespace import F as _F
from . import _aten
from .optimizer import Optimizer, bump, scalar


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _errors_optim.check_non_negative(lr=lr, weight_decay=weight_decay)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _state(self, p, group):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _F.zeros(())
            state["eta"] = _F.tensor(float(group["lr"]))
            state["mu"] = _F.ones(())
            state["ax"] = _F.zeros_like(p)
        return state

    def _update_group(self, group, params):
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        for p in params:
            state = self._state(p, group)
            w = p._data
            g = -p.grad._data if group["maximize"] else p.grad._data
            step_t, eta, mu, ax = state["step"], state["eta"], state["mu"], state["ax"]
            step_t._data += 1
            bump(step_t)
            if group["weight_decay"] != 0:
                g = _aten.add(g, w, group["weight_decay"])
            eta_value = float(eta._data)
            _aten.mul_(p, 1 - lambd * eta_value)
            _aten.add_(p, g, -eta_value)
            mu_value = float(mu._data)
            if mu_value != 1:
                ax._data += (w - ax._data) * scalar(mu_value, w)
                bump(ax)
            else:
                ax._data[...] = w
                bump(ax)
            step = float(step_t._data)
            _set_scalar(eta, lr / ((1 + lambd * lr * step) ** alpha))
            _set_scalar(mu, 1 / max(1, step - t0))


def _set_scalar(t, value):
    """t.copy_(torch.as_tensor(value)): the value rounded to the default dtype, then to t's."""
    t._data[...] = np.asarray(_F.as_tensor(value)._data).astype(t._data.dtype)
    bump(t)
