"""How the real-PyTorch recorder (``real_torch.TorchRecorder``) sees a run: the
``TorchFunctionMode`` that shows it every torch-level call and backward call, the patch
that shows it custom ``autograd.Function`` calls (which no mode sees), and what it reads
of a call: its name, its tensor operands, the user's line and its source text.

PyTorch is imported by the caller; nothing here imports it.
"""
import os

from .calls import op_name as _op_name_of

_MODES = {}


def watch_function_apply(torch, recorder):
    """Tell ``recorder`` of every custom ``autograd.Function`` call (its ``apply`` is plain
    Python, which a TorchFunctionMode does not see); returns the undo."""
    Function = torch.autograd.Function
    original = Function.__dict__.get("apply")  # a classmethod; a C one (classmethod_descriptor) since 2.15
    if not hasattr(original, "__get__"):
        return None

    def apply(cls, *args, **kwargs):
        out = original.__get__(None, cls)(*args, **kwargs)
        recorder.on_function(cls, args, kwargs, out)
        return out

    patched = classmethod(apply)
    Function.apply = patched

    def undo():
        if Function.__dict__.get("apply") is patched:
            Function.apply = original
    return undo


def mode_class(torch):
    """The TorchFunctionMode subclass, made once PyTorch is imported."""
    cls = _MODES.get(id(torch))
    if cls is not None:
        return cls
    from torch.overrides import TorchFunctionMode

    backward_kinds = {torch.Tensor.backward: "tensor.backward", torch.autograd.backward: "backward",
                      torch.autograd.grad: "autograd.grad"}

    class _Mode(TorchFunctionMode):
        def __init__(self, recorder):
            super().__init__()
            self.recorder = recorder

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            kind = backward_kinds.get(func) or _backward_kind(func)
            if kind is not None:
                return self.recorder.run_backward(kind, func, args, kwargs)
            out = func(*args, **kwargs)
            self.recorder.on_call(func, args, kwargs, out)
            return out

    _MODES[id(torch)] = _Mode
    return _Mode


def _backward_kind(func):
    """``backward`` / ``grad`` patched by --retain-graph are still backward calls."""
    name, module = getattr(func, "__name__", ""), getattr(func, "__module__", "") or ""
    if module.startswith("torch.autograd") or module.startswith("gradviz"):
        if name == "backward":
            return "backward"
        if name == "grad":
            return "autograd.grad"
    return None


def scaffolding(torch):
    """PyTorch's Python-level code that calls torch functions as a user's code does: a
    call made through it is not the expression on the user's line."""
    root = os.path.dirname(os.path.abspath(torch.__file__))
    return tuple(os.path.join(root, *part.split("/")) for part in
                 ("nn/modules/", "utils/", "optim/", "autograd/function.py", "nn/parallel/"))


def internal_dirs(torch):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return (os.path.dirname(os.path.abspath(torch.__file__)) + os.sep, here + os.sep)


_ARITHMETIC = {"add", "sub", "mul", "div", "pow", "rsub", "matmul", "true_divide", "multiply", "subtract",
               "divide", "remainder", "fmod", "floor_divide", "maximum", "minimum", "atan2"}


def flat_inputs(func, args, kwargs, Tensor):
    """The call's operands: its tensors (those in a list too: cat, stack), and the Python
    numbers of arithmetic (``x * 2``), not options such as ``dim=1``."""
    arithmetic = op_name_of_call(func, False).rstrip("_") in _ARITHMETIC
    out = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor) or (arithmetic and isinstance(a, (int, float, complex)) and not isinstance(a, bool)):
            out.append(a)
        elif isinstance(a, (list, tuple)) and a and all(isinstance(x, Tensor) for x in a):
            out.extend(a)
    return out


def op_name_of_call(func, inplace):
    """'mul' for Tensor.__mul__, 'add_' for __iadd__, 'linear' for F.linear, 'T' for ``x.T``."""
    name = getattr(func, "__name__", None) or str(func)
    if name == "__get__":  # a property read (x.T, x.mT): the descriptor's name
        name = getattr(getattr(func, "__self__", None), "__name__", None) or name
    return _op_name_of(name, inplace)
