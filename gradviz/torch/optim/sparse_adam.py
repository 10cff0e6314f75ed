"""SparseAdam. It updates only from sparse gradients, and the engine has no sparse layout:
every gradient it makes is dense, so a step meets PyTorch's own refusal of dense gradients.
The constructor's checks, defaults and repr are PyTorch's."""
from .. import _errors_optim
from ..autograd.grad_mode import enable_grad
from .optimizer import Optimizer


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if not 0.0 < lr:
            raise _errors_optim.invalid_value("learning rate", lr)
        if not 0.0 < eps:
            raise _errors_optim.invalid_value("epsilon value", eps)
        _errors_optim.check_betas(betas)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)
        complex_params = [[index, d_index] for index, group in enumerate(self.param_groups)
                          for d_index, param in enumerate(group["params"]) if param.is_complex()]
        if complex_params:
            raise _errors_optim.sparse_adam_complex(complex_params)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        if any(p.grad is not None for group in self.param_groups for p in group["params"]):
            raise RuntimeError(_errors_optim.SPARSE_ADAM_DENSE_GRAD)
        return loss
