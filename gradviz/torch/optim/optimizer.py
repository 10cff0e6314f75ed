"""torch.optim.Optimizer: param groups, per-parameter state, zero_grad and state_dict.

Updates run in numpy on the parameters' own storage, mirroring PyTorch's single-tensor
(CPU) code op by op in the parameter's dtype; every PyTorch in-place op on a tensor
bumps that tensor's version counter here too (``bump``).
"""
import copy
import warnings
from collections import defaultdict
from itertools import chain

import numpy as np

from .. import _errors
from .._namespace import F as _F
from .._tensor import Tensor, zero_grads
from ..autograd.grad_mode import enable_grad, no_grad
from ..nn.modules.module import typename


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def bump(*tensors):
    """One in-place op's worth of version change, as PyTorch's in-place kernels record."""
    for t in tensors:
        t._vbox[0] += 1


def scalar(value, array):
    """A Python number as the array's dtype, the way PyTorch's kernels cast scalars."""
    return array.dtype.type(value)


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        self._step_calls = 0
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            "got " + typename(params))
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise _errors.optimize_nonleaf()
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self._step_calls += 1
        with no_grad():
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                if params:
                    self._update_group(group, params)
        return loss

    def _update_group(self, group, params):
        raise NotImplementedError

    # -- state_dict --------------------------------------------------------------------
    def state_dict(self):
        mapping = {}
        start = 0

        def pack_group(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            mapping.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in mapping})
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict):
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                             "group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = {key: _cast_state(param, key, value) for key, value in v.items()}
            else:
                state[k] = v
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            new_groups.append(saved)
        self.state = state
        self.param_groups = new_groups


def _cast_state(param, key, value):
    """State tensors follow the parameter's dtype, except 'step' (as in PyTorch)."""
    if not isinstance(value, Tensor):
        return copy.deepcopy(value)
    data = np.array(value._data, copy=True)
    if key != "step" and param.is_floating_point() and value.is_floating_point():
        data = data.astype(param._data.dtype)
    return _F.from_numpy(data)
