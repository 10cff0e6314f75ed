"""torch.func.functional_call and stack_module_state: run a module with other tensors in
place of its parameters and buffers, then put its own back (PyTorch 2.13's
nn.utils.stateless and NamedMemberAccessor, in behaviour)."""
from collections.abc import Sequence

from .. import _errors_func as E
from .._namespace import F
from .._tensor import Tensor

__all__ = ["functional_call", "stack_module_state"]

_MISSING = object()


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    if isinstance(parameter_and_buffer_dicts, dict):
        replacements = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise E.functional_call_not_all_dicts()
        counts = {}
        for d in parameter_and_buffer_dicts:
            for key in d:
                counts[key] = counts.get(key, 0) + 1
        repeated = [key for key, n in counts.items() if n > 1]
        if repeated:
            raise E.functional_call_repeated_keys(repeated)
        replacements = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise E.functional_call_dicts_type(parameter_and_buffer_dicts)
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _Reparametrized(module, replacements, tie_weights, strict):
        return module(*args, **kwargs)


def _named_tensors(module):
    yield from module.named_parameters(remove_duplicate=False)
    yield from module.named_buffers(remove_duplicate=False)


def _untied(module, replacements):
    """Give every name tied to a replaced tensor (the same tensor under several names) the
    replacement too."""
    names_of = {}
    for name, tensor in _named_tensors(module):
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {}
    for names in names_of.values():
        if len(names) > 1:
            for name in names:
                tied[name] = names
    given_tied = {name for name in replacements if name in tied}
    for name in given_tied:
        names = tied[name]
        if len(names & given_tied) > 1 and len({id(replacements[n]) for n in names}) != 1:
            raise E.functional_call_tied(sorted(names))
    out = dict(replacements)
    for name in given_tied:
        for other in tied[name]:
            out[other] = replacements[name]
    return out


class _Accessor:
    """Tensors of a module tree by dotted name."""

    def __init__(self, module):
        self.module = module
        self.memo = {}

    def submodule(self, name):
        from ..nn import Module
        if not name:
            return self.module
        if name in self.memo:
            return self.memo[name]
        prefix, dot, attr = name.rpartition(".")
        parent = self.submodule(prefix) if dot else self.module
        try:
            sub = getattr(parent, attr)
        except AttributeError:
            raise E.no_attribute(parent._get_name(), attr) from None
        if not isinstance(sub, Module):
            raise E.not_a_submodule(name, sub)
        self.memo[name] = sub
        return sub

    def swap(self, name, tensor):
        """Put ``tensor`` (or remove the attribute, for _MISSING) under ``name``; return what was there."""
        prefix, _, attr = name.rpartition(".")
        module = self.submodule(prefix)
        if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
            raise E.not_a_tensor(tensor)
        for table in (module._parameters, module._buffers):
            if attr in table:
                original = table[attr]
                if tensor is _MISSING:
                    del table[attr]
                else:
                    table[attr] = tensor
                return original
        original = getattr(module, attr) if hasattr(module, attr) else _MISSING
        if original is not _MISSING and original is not None and not isinstance(original, Tensor):
            raise E.attribute_not_tensor(attr, original)
        if tensor is not _MISSING:
            setattr(module, attr, tensor)
        elif hasattr(module, attr):
            delattr(module, attr)
        return original

    def swap_all(self, named):
        originals = {}
        try:
            for name, tensor in named.items():
                originals[name] = self.swap(name, tensor)
        except Exception:
            for name, original in originals.items():
                self.swap(name, original)
            raise
        return originals


class _Reparametrized:
    def __init__(self, module, replacements, tie_weights, strict):
        self.module = module
        self.replacements = replacements
        self.named = _untied(module, replacements) if tie_weights else replacements
        self.accessor = _Accessor(module)
        if strict:
            valid = {name for name, _ in _named_tensors(module)}
            keys = set(self.named)
            messages = []
            unexpected, missing = sorted(keys - valid), sorted(valid - keys)
            if unexpected:
                messages.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
            if missing:
                messages.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
            if messages:
                raise E.reparametrize_keys(module._get_name(), messages)
        self.originals = {}

    def __enter__(self):
        self.originals = self.accessor.swap_all(self.named)
        return self

    def __exit__(self, *exc):
        # What the module held at the end goes back to the caller's dict, as in PyTorch
        # (the same tensors unless the forward reassigned them).
        final = self.accessor.swap_all(self.originals)
        self.replacements.update({k: final[k] for k in self.replacements if k in final})
        return False


def stack_module_state(models):
    if len(models) == 0:
        raise E.stack_module_state_empty()
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise E.stack_module_state_modes()
    first_type = type(models[0])
    if not all(type(m) is first_type for m in models):
        raise E.stack_module_state_classes()
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors, name):
    requiring = [t.requires_grad for t in tensors]
    if any(requiring) and not all(requiring):
        raise E.stack_module_state_requires_grad(name)
    result = F.stack(tensors)
    if all(requiring):
        result = result.detach().requires_grad_()
    return result
