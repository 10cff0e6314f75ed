"""The allocation guard of ``graph --engine torch``: real PyTorch held to the same limits as
gradviz's engine.

gradviz's own engine checks every array it makes (``gradviz.torch``'s allocation guards).
Real PyTorch has no such hook, and estimating sizes from gradviz's signatures misses the
argument forms PyTorch accepts and gradviz does not read the same way (``ones(size=...)``,
``randint(10, (5000, 4000))``, ``arange(end=...)``, ``cat(..., axis=0)``). So the guard is
a dispatch mode: every ATen op the evaluation runs, factories included, is first run on
the meta device, which applies PyTorch's own shape rules and allocates nothing; an output
over the limit is refused before the real op runs. An op that the meta device cannot run
is checked on its real outputs instead, before they are kept.

Imports torch only when a guard is made (``graph --engine torch``).
"""

_MODES = {}


def allocation_guard(limits):
    """Enter the guard; return the function that leaves it. ``limits`` has
    ``elements(count, what)`` and ``pieces(count, what)``, which raise to refuse."""
    import torch

    mode = _mode_class(torch)(limits)
    mode.__enter__()
    return lambda: mode.__exit__(None, None, None)


def _mode_class(torch):
    """The TorchDispatchMode subclass, made once PyTorch is imported."""
    if id(torch) in _MODES:
        return _MODES[id(torch)]
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten, tree_map

    meta = torch.device("meta")

    def on_meta(x):
        return x.to(meta) if isinstance(x, torch.Tensor) else x

    class _Guard(TorchDispatchMode):
        def __init__(self, limits):
            super().__init__()
            self.limits = limits

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            what = func.overloadpacket.__name__
            planned = self._on_meta(func, args, kwargs)
            if planned is not None:
                self._check(planned, what)
            out = func(*args, **kwargs)
            if planned is None:  # the meta device could not tell: check what was made, before it is kept
                self._check(out, what)
            return out

        def _on_meta(self, func, args, kwargs):
            """The op's outputs on the meta device (shapes, no memory), or None."""
            try:
                meta_kwargs = tree_map(on_meta, kwargs)
                if any(a.name == "device" for a in func._schema.arguments):
                    meta_kwargs["device"] = meta  # a factory: make it on meta
                return func(*tree_map(on_meta, args), **meta_kwargs)
            except Exception:  # noqa: BLE001 - no meta kernel, a data-dependent op: checked after
                return None

        def _check(self, out, what):
            if isinstance(out, (list, tuple)):
                self.limits.pieces(len(out), what)
            for t in tree_flatten(out)[0]:
                if isinstance(t, torch.Tensor):
                    self.limits.elements(t.numel(), what)

    _MODES[id(torch)] = _Guard
    return _Guard
