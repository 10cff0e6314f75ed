"""A script that reaches for a PyTorch name gradviz's engine lacks: tell the user it is
gradviz's gap, not their bug, and how to run the script anyway.

The engine refuses the name in PyTorch's words (``gradviz.torch._missing``); this reads
the error and, when the name is one of PyTorch 2.13's public names
(``gradviz.pytorch_names``, written by conformance/api_coverage.py), gives the hint line.
"""
import re
import sys
from typing import Optional

_IMPORT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")


def missing_name(exc: BaseException) -> Optional[str]:
    """'torch.nn.EmbeddingBag' when ``exc`` says the engine lacks that PyTorch name, else None."""
    where = name = None
    if isinstance(exc, ImportError):
        match = _IMPORT.search(str(exc))
        if match is not None:
            name, where = match.group(1), match.group(2)
    elif isinstance(exc, AttributeError):
        name, obj = getattr(exc, "name", None), getattr(exc, "obj", None)
        module_name = getattr(obj, "__name__", None) if type(obj).__name__ == "module" else None
        if module_name is not None:
            where = module_name
        elif _engine_tensor() in type(obj).__mro__:
            where = "torch.Tensor"
    if not name or not where:
        return None
    if where.startswith("gradviz.torch"):
        where = where[len("gradviz."):]
    if not where.startswith("torch"):
        return None
    from .pytorch_names import MISSING

    return f"{where}.{name}" if name in MISSING.get(where, ()) else None


def _engine_tensor():
    engine = sys.modules.get("gradviz.torch")  # loaded, when a script ran on the engine
    return getattr(engine, "Tensor", None)


def hint(exc: BaseException) -> str:
    """The line gradviz adds under such an error, or ''."""
    name = missing_name(exc)
    if name is None:
        return ""
    return f"gradviz's engine does not have `{name}` yet; `--engine torch` runs this script on your installed PyTorch"
