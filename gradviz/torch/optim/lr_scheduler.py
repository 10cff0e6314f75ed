"""torch.optim.lr_scheduler: PyTorch 2.13's schedulers with their chainable update rules (each
step scales the group's current lr, so the Python floats round as PyTorch's do), their
closed forms for step(epoch), and their state_dict()s. The cyclic ones and
ReduceLROnPlateau are in _lr_cyclic.py; the base in _lr_base.py. Every name is bound by a
plain import, so none can be left out when another fails."""
import math
import types
from bisect import bisect_right
from collections import Counter

from .. import _errors_optim as E
from ._lr_base import LRScheduler, _LRScheduler, group_values, set_group_value
from ._lr_cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR, ReduceLROnPlateau
from .optimizer import Optimizer

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
           "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
           "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler"]
_ = (_LRScheduler, Optimizer)  # public here as in PyTorch


class _LambdaScheduler(LRScheduler):
    """What LambdaLR and MultiplicativeLR share: one function per group, and a state_dict
    that keeps callable objects' attributes but not plain functions."""

    def _set_lambdas(self, optimizer, lr_lambda):
        groups = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != groups:
                raise E.lr_lambdas_count(groups, len(lr_lambda))
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * groups

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lambdas
        for fn, saved in zip(self.lr_lambdas, lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        return [group["lr"] * fn(self.last_epoch) for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


def _scaled(optimizer, factor):
    return [group["lr"] * factor for group in optimizer.param_groups]


class StepLR(LRScheduler):
    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return group_values(self.optimizer, "lr")
        return _scaled(self.optimizer, self.gamma)

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return group_values(self.optimizer, "lr")
        return _scaled(self.optimizer, self.gamma ** self.milestones[self.last_epoch])

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base_lr * self.gamma ** passed for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return _scaled(self.optimizer, self.factor)
        if self.last_epoch != self.total_iters:
            return group_values(self.optimizer, "lr")
        return _scaled(self.optimizer, 1.0 / self.factor)

    def _get_closed_form_lr(self):
        done = self.last_epoch >= self.total_iters
        return [base_lr * (self.factor + done * (1 - self.factor)) for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return _scaled(self.optimizer, self.start_factor)
        if self._is_initial or self.last_epoch > self.total_iters:
            return group_values(self.optimizer, "lr")
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span)
        return _scaled(self.optimizer, ratio)

    def _get_closed_form_lr(self):
        progress = (self.end_factor - self.start_factor) * min(self.total_iters, self.last_epoch) / self.total_iters
        return [base_lr * (self.start_factor + progress) for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        return _scaled(self.optimizer, self.gamma)

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return group_values(self.optimizer, "lr")
        now = 1.0 - self.last_epoch / self.total_iters
        before = 1.0 - (self.last_epoch - 1) / self.total_iters
        return _scaled(self.optimizer, (now / before) ** self.power)

    def _get_closed_form_lr(self):
        remaining = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base_lr * remaining ** self.power for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            return self._get_closed_form_lr_at(self.last_epoch * math.pi / self.T_max)
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            rise = 1 - math.cos(math.pi / self.T_max)
            return [group["lr"] + (base_lr - self.eta_min) * rise / 2 for base_lr, group in zip(self.base_lrs, groups)]
        ratio = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) \
            / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
        return [ratio * (group["lr"] - self.eta_min) + self.eta_min for group in groups]

    def _get_closed_form_lr_at(self, angle):
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(angle)) / 2 for base_lr in self.base_lrs]

    def _get_closed_form_lr(self):
        return self._get_closed_form_lr_at(math.pi * self.last_epoch / self.T_max)


def _check_children(kind, schedulers, optimizer, chained):
    if len(schedulers) < 1:
        raise E.no_schedulers(kind, chained)
    optimizer = optimizer or schedulers[0].optimizer
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise E.scheduler_without_optimizer(kind, index)
        if isinstance(scheduler, ReduceLROnPlateau):
            raise E.plateau_in_sequence(kind, index)
        if optimizer != scheduler.optimizer:
            raise E.other_optimizer(kind, scheduler, index, scheduler.optimizer, optimizer)
    return optimizer


class _Composite(LRScheduler):
    """SequentialLR's and ChainedScheduler's state_dict: their children's, nested."""

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        children = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = children
        for scheduler, saved in zip(self._schedulers, children):
            scheduler.load_state_dict(saved)


class SequentialLR(_Composite):
    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_children(type(self).__name__, schedulers, optimizer, chained=False)
        if len(milestones) != len(schedulers) - 1:
            raise E.milestones_count(len(schedulers), len(milestones))
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # The children each took a first step when made: undo those, then start the first.
        for group in optimizer.param_groups:
            set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched=None):
        stack = [self if sched is None else sched]
        while stack:
            node = stack.pop()
            if hasattr(node, "_schedulers"):
                stack.extend(reversed(node._schedulers))
            elif hasattr(node, "last_epoch"):
                node.last_epoch -= 1

    def step(self):
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite):
    def __init__(self, schedulers, optimizer=None):
        optimizer = _check_children(type(self).__name__, schedulers, optimizer, chained=True)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = group_values(self._schedulers[-1].optimizer, "lr")

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = group_values(self._schedulers[-1].optimizer, "lr")


from .. import _missing as _missing_names  # noqa: E402

__getattr__ = _missing_names.module_getattr(__name__)  # a missing name, in PyTorch's words
