"""torch.nn.Module: registration of parameters, buffers and submodules, traversal,
state_dict, modes, hooks and the printed module tree, all as PyTorch 2.13 has them."""
from collections import OrderedDict, namedtuple

from ... import _device, _dtypes, _errors
from ..._namespace import F as _F
from ..._tensor import Tensor, zero_grads
from ...autograd.grad_mode import no_grad
from ...autograd.node import RemovableHandle, add_hook
from ..parameter import Parameter
from ._backward_hooks import BackwardHook, hook_output_node


def torch_module_name(namespace, name):
    """Give the classes defined in ``namespace`` PyTorch's module path, so that
    ``type(m)`` prints as ``<class 'torch.nn.modules.linear.Linear'>``."""
    own = namespace["__name__"]
    for value in list(namespace.values()):
        if isinstance(value, type) and value.__module__ == own:
            value.__module__ = name


def typename(obj):
    """torch.typename: a tensor by its type(), a class or function by its own name, any
    other object by its class's (so nn.Sequential(int) names `int`, not `type`)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * " ") + line if line.strip() else "" for line in s]
    return first + "\n" + "\n".join(s)


# Hooks common to all modules (PyTorch's debugging and profiling hooks). They run before
# each module's own; empty dicts keep Module.__call__ on its short path.
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_with_kwargs = {}
_global_forward_hooks_always_called = {}


class _GlobalHandle(RemovableHandle):
    """A RemovableHandle that also forgets the hook's options (with_kwargs, always_call)."""
    __slots__ = ("extras",)

    def __init__(self, hooks, key, extras):
        super().__init__(hooks, key)
        self.extras = extras

    def remove(self):
        super().remove()
        for extra in self.extras:
            extra.pop(self.key, None)


def register_module_forward_pre_hook(hook):
    """``hook(module, args) -> None or new args``, called before every module's forward,
    before the module's own pre-hooks."""
    handle = add_hook(_global_forward_pre_hooks, hook)
    return _GlobalHandle(handle.hooks, handle.key, ())


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """``hook(module, args, output)`` (``with_kwargs``: ``(module, args, kwargs, output)``)
    -> None or a new output, after every module's forward, before the module's own hooks;
    ``always_call``: also when the forward raised."""
    handle = add_hook(_global_forward_hooks, hook)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.key] = True
    if always_call:
        _global_forward_hooks_always_called[handle.key] = True
    return _GlobalHandle(handle.hooks, handle.key,
                         (_global_forward_hooks_with_kwargs, _global_forward_hooks_always_called))


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module:
    training = True
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were "
                            "given")
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", {})
        setattr_(self, "_forward_hooks_always_called", {})
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", {})
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_is_full_backward_hook", None)

    forward = _forward_unimplemented

    # -- registration ------------------------------------------------------------------
    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter", self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                             f"explicitly. To express '{name}' as a function of another Tensor, compute the value in "
                             "the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def _check_name(self, name, kind, table):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f"{kind} name can't contain \".\"")
        if name == "":
            raise KeyError(f"{kind} name can't be empty string \"\"")
        if hasattr(self, name) and name not in table:
            raise KeyError(f"attribute '{name}' already exists")

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name, value):
        def remove_from(*tables):
            for table in tables:
                if name in table:
                    if isinstance(table, dict):
                        del table[name]
                    else:
                        table.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                    "(torch.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                marked = isinstance(value, Tensor) and "_buffer_persistent" in value.__dict__
                if buffers is not None and (marked or name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                        "(torch.nn.Buffer, torch.Tensor or None expected)")
                    if marked:
                        remove_from(self.__dict__, self._parameters, self._modules)
                        self.register_buffer(name, value, value.__dict__.pop("_buffer_persistent"))
                    else:
                        buffers[name] = value
                else:
                    object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self)) + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    # -- traversal ---------------------------------------------------------------------
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    # -- state -------------------------------------------------------------------------
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """``hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` (the module first, ``with_module``), run before this module loads its
        part of a state_dict, which it may rewrite (parametrizations.weight_norm renames
        old checkpoints' keys so). The engine keeps no metadata: local_metadata is {}."""
        hooks = self.__dict__.setdefault("_load_state_dict_pre_hooks", OrderedDict())
        if with_module:
            module, plain = self, hook

            def hook(*args):
                return plain(module, *args)
        return add_hook(hooks, hook)

    def _load_from_state_dict(self, state_dict, prefix, strict, missing_keys, unexpected_keys, error_msgs, assign):
        for hook in self.__dict__.get("_load_state_dict_pre_hooks", {}).values():
            hook(state_dict, prefix, {}, strict, missing_keys, unexpected_keys, error_msgs)
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in list(self._parameters.items()) + list(persistent.items()) if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                                  f"object from checkpoint but received {type(input_param)}")
                continue
            if param.dim() == 0 and input_param.dim() == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]  # checkpoints from PyTorch 0.3 stored scalars as 1-element
            if tuple(input_param.shape) != tuple(param.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter) and not isinstance(input_param, Parameter):
                            input_param = Parameter(input_param, requires_grad=param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:  # noqa: BLE001 (PyTorch reports any failure this way)
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.size()} and whose dimensions in the checkpoint are {input_param.size()}, "
                                  f"an exception occurred : {ex.args}.")
        if strict:  # PyTorch's load_state_dict always passes strict=True here; it raises only if asked
            for key in state_dict:
                if key.startswith(prefix):
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not isinstance(state_dict, dict):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        state_dict = OrderedDict(state_dict)

        def load(module, local_state_dict, prefix=""):
            module._load_from_state_dict(local_state_dict, prefix, True, missing_keys, unexpected_keys, error_msgs,
                                         assign)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                         child_prefix)

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # -- modes and gradients -----------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        zero_grads(self.parameters(), set_to_none)

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, recurse=True):
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            # PyTorch keeps the Parameter object and swaps its data.
            param.data = applied
            if param._grad is not None:
                with no_grad():
                    param._grad.data = fn(param._grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        dtype, device = kwargs.get("dtype"), kwargs.get("device")
        for a in args:
            if isinstance(a, _dtypes.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            elif isinstance(a, (str, _device.device)):
                device = a
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")
        if dtype is None and device is None:
            return self

        def convert(t):
            try:
                return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None)
            except NotImplementedError as exc:  # out of meta: PyTorch's pointer to to_empty()
                if str(exc) == str(_errors.meta_no_data()):
                    raise _errors.meta_module_to(exc) from None
                raise
        return self._apply(convert)

    def to_empty(self, *, device, recurse=True):
        """Parameters and buffers moved to ``device`` with uninitialised storage (the way out
        of the meta device): empty_like of each."""
        return self._apply(lambda t: _F.empty_like(t, device=device), recurse=recurse)

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self):
        return self

    def cuda(self, device=None):
        raise AssertionError("Torch not compiled with CUDA enabled")

    def share_memory(self):
        return self

    # -- calling -----------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        handle = add_hook(self._forward_pre_hooks, hook)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.key] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.key, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        handle = add_hook(self._forward_hooks, hook)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.key] = True
        if always_call:
            self.__dict__.setdefault("_forward_hooks_always_called", {})[handle.key] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.key, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        handle = add_hook(self._backward_pre_hooks, hook)
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.key, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        if self._is_full_backward_hook is False:
            raise _errors.mixed_backward_hooks()
        self._is_full_backward_hook = True
        handle = add_hook(self._backward_hooks, hook)
        if prepend:
            self._backward_hooks.move_to_end(handle.key, last=False)
        return handle

    def register_backward_hook(self, hook):
        """Deprecated: the hook sees the gradients of the output's grad_fn, which are the
        module's only when the module is that one node (see _backward_hooks)."""
        if self._is_full_backward_hook is True:
            raise _errors.mixed_backward_hooks()
        self._is_full_backward_hook = False
        return add_hook(self._backward_hooks, hook)

    def __call__(self, *args, **kwargs):
        if not (_global_forward_pre_hooks or _global_forward_hooks
                or self.__dict__.get("_forward_hooks_always_called")):
            return self._call_hooked(args, kwargs, None)
        ran = set()  # the always_call hooks that ran: on an error, the others still run
        state = [args, kwargs, None]
        try:
            return self._call_hooked(args, kwargs, (ran, state))
        except Exception:
            self._always_called_hooks(ran, *state)
            raise

    def _call_hooked(self, args, kwargs, track):
        """PyTorch's ``_call_impl``: pre-hooks (global ones first), forward, forward hooks
        (global ones first), then the backward hooks' wrapping. ``track``: (ids of the
        always_call hooks run, [args, kwargs, result]) for ``_always_called_hooks``."""
        pre_hooks = self._forward_pre_hooks
        if _global_forward_pre_hooks:
            pre_hooks = {**_global_forward_pre_hooks, **pre_hooks}
        for key, hook in list(pre_hooks.items()):
            if key in self._forward_pre_hooks_with_kwargs:
                out = hook(self, args, kwargs)
                if out is not None:
                    args, kwargs = out
            else:
                out = hook(self, args)
                if out is not None:
                    args = out if isinstance(out, tuple) else (out,)
            if track is not None:
                track[1][:2] = args, kwargs
        full_hooks = list(self._backward_hooks.values()) if self._is_full_backward_hook else []
        backward_hook = None
        if full_hooks or self._backward_pre_hooks:
            backward_hook = BackwardHook(self, full_hooks, list(self._backward_pre_hooks.values()))
            args = backward_hook.setup_input_hook(args)
            if track is not None:
                track[1][0] = args
        result = self.forward(*args, **kwargs)
        if track is not None:
            track[1][2] = result
        hooks = self._forward_hooks
        if _global_forward_hooks:
            hooks = {**_global_forward_hooks, **hooks}
        always = self.__dict__.get("_forward_hooks_always_called") or ()
        for key, hook in list(hooks.items()):
            if track is not None and (key in always or key in _global_forward_hooks_always_called):
                track[0].add(key)
            if key in self._forward_hooks_with_kwargs or key in _global_forward_hooks_with_kwargs:
                out = hook(self, args, kwargs, result)
            else:
                out = hook(self, args, result)
            if out is not None:
                result = out
                if track is not None:
                    track[1][2] = result
        if backward_hook is not None:
            if not isinstance(result, (Tensor, tuple)):
                _errors.warn_at_user(_errors.module_output_not_tensor_warning(type(result)))
            result = backward_hook.setup_output_hook(result)
        if self._backward_hooks and self._is_full_backward_hook is False:
            hook_output_node(self, args, result, list(self._backward_hooks.values()))
        return result

    def _always_called_hooks(self, ran, args, kwargs, result):
        """After an error in the call: the always_call forward hooks that did not run yet,
        global ones first (called without kwargs, as PyTorch calls them); their own errors
        become warnings, the call's error is the one raised."""
        import warnings

        own = self.__dict__.get("_forward_hooks_always_called") or {}
        for key, hook in list(_global_forward_hooks.items()) + list(self._forward_hooks.items()):
            is_global = key in _global_forward_hooks_always_called
            if key in ran or not (is_global or key in own):
                continue
            try:
                if not is_global and key in self._forward_hooks_with_kwargs:
                    out = hook(self, args, kwargs, result)
                else:
                    out = hook(self, args, result)
                if out is not None:
                    result = out
            except Exception as e:  # noqa: BLE001 - PyTorch silences them in favour of the call's error
                which = "global module forward hook" if is_global else "module forward hook"
                warnings.warn(f"{which} with ``always_call=True`` raised an exception that was silenced as another "
                              f"error was raised in forward: {e}", stacklevel=2)

    _call_impl = __call__

    # -- printing ----------------------------------------------------------------------
    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        return ""

    def __repr__(self):
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"

    def __setstate__(self, state):
        self.__dict__.update(state)


torch_module_name(globals(), "torch.nn.modules.module")
