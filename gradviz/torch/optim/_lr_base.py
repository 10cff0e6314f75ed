"""The scheduler base, as PyTorch 2.13's LRScheduler behaves: the first step at
construction, chainable updates from each group's current lr (closed forms when step()
is given an epoch), get_last_lr(), state_dict(), and the warnings it gives."""
import functools
import warnings
import weakref

from .. import _errors_optim as E
from .._tensor import Tensor
from .optimizer import Optimizer


def per_group(name, optimizer, value):
    """A scalar or one value per param group, as a list of one value per group."""
    groups = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != groups:
            raise E.per_group_length(name, len(value), groups)
        values = list(value)
    else:
        values = [value] * groups
    return [v.clone() if isinstance(v, Tensor) else v for v in values]


def group_values(optimizer, key):
    return [g[key].clone() if isinstance(g[key], Tensor) else g[key] for g in optimizer.param_groups]


def set_group_value(group, key, value):
    if isinstance(group[key], Tensor):
        group[key].fill_(float(value))
    else:
        group[key] = value


def set_momentum(optimizer, group, momentum):
    """Cycled momentum goes to beta1 for Adam-like optimizers, else to 'momentum'."""
    if "betas" in optimizer.defaults:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


def check_momentum_support(optimizer):
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise E.no_momentum()


def _mark_optimizer_steps(scheduler):
    """Wrap the optimizer's step once so that a scheduler can tell whether it ran yet."""
    optimizer = scheduler.optimizer
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    owner = weakref.ref(optimizer)
    method = optimizer.step.__func__

    @functools.wraps(method)
    def step(*args, **kwargs):
        opt = owner()
        opt._opt_called = True
        return method.__get__(opt, type(opt))(*args, **kwargs)

    step._wrapped_by_lr_sched = True
    optimizer.step = step


class LRScheduler:
    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise E.not_an_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                lr = group["lr"]
                group.setdefault("initial_lr", lr.clone() if isinstance(lr, Tensor) else lr)
        else:
            for index, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise E.missing_initial_lr(index)
        self.base_lrs = group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _mark_optimizer_steps(self)
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def step(self, epoch=None):
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(E.OPTIMIZER_STEP_OVERRIDDEN, UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(E.SCHEDULER_BEFORE_OPTIMIZER, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(E.EPOCH_DEPRECATION, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._set_lrs(values)

    def _set_lrs(self, values):
        groups = self.optimizer.param_groups
        if len(values) != len(groups):
            raise ValueError(f"zip() argument 2 is {'shorter' if len(values) < len(groups) else 'longer'} than "
                             "argument 1")
        for group, lr in zip(groups, values):
            set_group_value(group, "lr", lr)
        self._last_lr = group_values(self.optimizer, "lr")

    def _warn_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn(E.GET_LR_OUTSIDE_STEP, UserWarning, stacklevel=3)


_LRScheduler = LRScheduler
