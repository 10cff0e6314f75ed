"""The schedulers that do not simply scale the current lr: CyclicLR, OneCycleLR,
CosineAnnealingWarmRestarts (closed forms each step, momentum cycled alongside) and
ReduceLROnPlateau (driven by a metric), with PyTorch 2.13's arithmetic order."""
import math
import types
import warnings

from .. import _errors_optim as E
from ._lr_base import (LRScheduler, check_momentum_support, group_values, per_group, set_group_value,
                       set_momentum)
from .optimizer import Optimizer


class CyclicLR(LRScheduler):
    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise E.not_an_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                set_group_value(group, "lr", lr)
        self.max_lrs = per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            check_momentum_support(optimizer)
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for top, bottom, group in zip(self.max_momentums, self.base_momentums, optimizer.param_groups):
                    set_momentum(optimizer, group, top)
                    group["max_momentum"] = top
                    group["base_momentum"] = bottom
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is not None:
            return
        if self.mode in ("triangular", "triangular2"):
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / 2.0 ** (x - 1)
        return self.gamma ** x

    def get_lr(self):
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * scale
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            momentums = [top - (top - bottom) * scale_factor * scale
                         for bottom, top in zip(self.base_momentums, self.max_momentums)]
            for group, momentum in zip(self.optimizer.param_groups, momentums):
                set_momentum(self.optimizer, group, momentum)
        return lrs

    def state_dict(self):
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            self._restart_at(epoch)
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._set_lrs(values)

    def _restart_at(self, epoch):
        if epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        if epoch < self.T_0:
            self.T_i = self.T_0
            self.T_cur = epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult ** n


class OneCycleLR(LRScheduler):
    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=False, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise E.not_an_optimizer(optimizer)
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        self._schedule_phases = _phases(pct_start, self.total_steps, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for peak, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = peak / div_factor
                group["max_lr"] = peak
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            check_momentum_support(optimizer)
            self.use_beta1 = "betas" in optimizer.defaults
            tops = per_group("max_momentum", optimizer, max_momentum)
            bottoms = per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for top, bottom, group in zip(tops, bottoms, optimizer.param_groups):
                    set_momentum(optimizer, group, top)
                    group["max_momentum"] = top
                    group["base_momentum"] = bottom
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        self._warn_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise E.stepped_past_total(step, self.total_steps)
        lrs = []
        for group in self.optimizer.param_groups:
            phase, pct = self._phase_at(step)
            lrs.append(self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct))
            if self.cycle_momentum:
                momentum = self._anneal_func(group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                set_momentum(self.optimizer, group, momentum)
        return lrs

    def _phase_at(self, step):
        start = 0.0
        last = len(self._schedule_phases) - 1
        for index, phase in enumerate(self._schedule_phases):
            end = phase["end_step"]
            if step <= end or index == last:
                return phase, (step - start) / (end - start)
            start = end
        raise AssertionError("unreachable: the last phase always matches")


def _total_steps(total_steps, epochs, steps_per_epoch):
    if total_steps is not None:
        if total_steps <= 0 or not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is not None and steps_per_epoch is not None:
        if not isinstance(epochs, int) or epochs <= 0:
            raise ValueError(f"Expected positive integer epochs, but got {epochs}")
        if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
            raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
        return epochs * steps_per_epoch
    raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")


def _phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
    return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr, "start_momentum": start_momentum,
            "end_momentum": end_momentum}


def _phases(pct_start, total_steps, three_phase):
    warmup_end = float(pct_start * total_steps) - 1
    if three_phase:
        return [_phase(warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(float(2 * pct_start * total_steps) - 2, "max_lr", "initial_lr", "base_momentum",
                       "max_momentum"),
                _phase(total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
    return [_phase(warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
            _phase(total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]


class ReduceLROnPlateau(LRScheduler):
    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise E.not_an_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = group_values(optimizer, "lr")
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(E.EPOCH_DEPRECATION, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = group_values(self.optimizer, "lr")

    def _reduce_lr(self, epoch):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` ({len(groups)}) differs from when "
                                   f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new "
                                   "param group being added to the optimizer. Please modify the `min_lrs` field to "
                                   "match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, floor in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, floor)
            if old_lr - new_lr > self.eps:
                set_group_value(group, "lr", new_lr)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min":
            return a < best * (1.0 - self.threshold) if self.threshold_mode == "rel" else a < best - self.threshold
        return a > best * (self.threshold + 1.0) if self.threshold_mode == "rel" else a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode)
