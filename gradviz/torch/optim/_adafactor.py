"""Adafactor (PyTorch 2.5+'s torch.optim.Adafactor): a factored second moment for matrices,
relative step sizes and update clipping; its single-tensor update, op for op. The norms and
means are the engine's reductions, which sum as PyTorch's CPU kernels sum."""
import numpy as np

from .. import _errors_optim
from .._namespace import F as _F
from . import _aten
from .optimizer import Optimizer, bump, scalar


class Adafactor(Optimizer):
    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        checks = (("Learning rate", 0, lr, True), ("beta2_decay", 0, beta2_decay, False),
                  ("epsilon1", 0, 0 if eps[0] is None else eps[0], True), ("epsilon2", 0, eps[1], True),
                  ("Clipping threshold d", 1, d, True), ("weight_decay", 0, weight_decay, True))
        for what, bound, value, above in checks:
            if not (bound <= value if above else value <= bound):
                raise _errors_optim.adafactor_not_below(what, bound, value, above)
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def _state(self, p):
        if p.is_complex():
            raise _errors_optim.adafactor_complex()
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _F.tensor(0.0)
            if p.grad.dim() > 1:
                state["row_var"] = p.grad.new_zeros(list(p.grad.shape[:-1]) + [1])
                state["col_var"] = p.grad.new_zeros(list(p.grad.shape[:-2]) + [1, p.grad.shape[-1]])
            else:
                state["variance"] = _F.zeros_like(p.grad)
        return state

    def _update_group(self, group, params):
        states = [self._state(p) for p in params]  # PyTorch checks every parameter before updating any
        lr, beta2_decay, (eps1, eps2), d = group["lr"], group["beta2_decay"], group["eps"], group["d"]
        for p, state in zip(params, states):
            w = p._data
            grad = -p.grad if group["maximize"] else p.grad
            g = grad._data
            if eps1 is None:
                eps1 = float(np.finfo(w.dtype).eps)  # the first parameter's dtype, then kept
            step_t = state["step"]
            step_t._data += 1
            bump(step_t)
            step = float(step_t._data)
            one_minus_beta2_t = step ** beta2_decay
            rho_t = min(lr, 1 / (step ** 0.5))
            alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho_t
            if group["weight_decay"] != 0:
                _aten.mul_(p, 1 - lr * group["weight_decay"])
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                _aten.lerp_(row_var, _mean_square(grad, -1), one_minus_beta2_t)
                _aten.lerp_(col_var, _mean_square(grad, -2), one_minus_beta2_t)
                row_mean = np.maximum(row_var.mean(dim=-2, keepdim=True)._data, scalar(eps1, w))
                estimate = np.matmul(row_var._data, col_var._data) / row_mean
            else:
                _aten.lerp_(state["variance"], g * g, one_minus_beta2_t)
                estimate = state["variance"]._data.copy()
            # rsqrt on the CPU: a correctly rounded sqrt, then a division
            update = (scalar(1, w) / np.sqrt(np.maximum(estimate, scalar(eps1 * eps1, w)))) * g
            update_norm = _F.from_numpy(update).norm(2).item()
            denom = max(1.0, update_norm / ((update.size ** 0.5) * d))
            _aten.add_(p, update, -alpha / denom)


def _mean_square(grad, dim):
    """torch.norm(grad, dim=dim, keepdim=True).square_().div_(grad.size(dim)), as arrays."""
    norm = grad.norm(dim=dim, keepdim=True)._data
    return (norm * norm) / scalar(grad.shape[dim], norm)
