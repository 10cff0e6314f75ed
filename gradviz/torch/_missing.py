"""A name the engine lacks, refused in PyTorch's words: ``module 'torch.nn' has no
attribute 'EmbeddingBag'``, not gradviz's own module path. The error carries ``name``
and ``obj`` (Python's AttributeError fields), so the script runner can tell the user
that the name is PyTorch's and the gap gradviz's."""
import sys


def public_module_name(module_name: str) -> str:
    """'gradviz.torch.nn' -> 'torch.nn': the name the user imported."""
    return module_name[len("gradviz."):] if module_name.startswith("gradviz.torch") else module_name


def module_getattr(module_name: str):
    """The ``__getattr__`` of an engine namespace module (called only for missing names)."""
    public = public_module_name(module_name)

    def __getattr__(name):
        raise AttributeError(f"module '{public}' has no attribute '{name}'", name=name, obj=sys.modules[module_name])
    return __getattr__
