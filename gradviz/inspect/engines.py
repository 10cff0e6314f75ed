"""Which engine an object comes from: gradviz's own, or the installed PyTorch.

Plain predicates, importing nothing of gradviz: ``snapshot()`` asks ``uses_real_torch``
(the one place that picks the engine for a snapshot), and the modules that read each
engine's objects use the rest.
"""
import sys


def is_gradviz_alias(module) -> bool:
    """A module gradviz put in ``sys.modules`` under a torch name (its stand-in engine)."""
    return module is not None and getattr(module, "__name__", "").startswith("gradviz.")


def real_torch_module():
    """The real torch module, if the process has imported it."""
    mod = sys.modules.get("torch")
    return mod if mod is not None and not is_gradviz_alias(mod) else None


def grad_of(t):
    """A tensor's ``.grad``, on either engine, read without the warning PyTorch gives for a
    non-leaf's (gradviz's engine keeps it in ``_grad``)."""
    if hasattr(t, "_grad_fn"):
        return getattr(t, "_grad", None)
    try:
        return t.grad
    except Exception:  # noqa: BLE001 - nothing to show
        return None


# --------------------------------------------------------------------------- gradviz's engine


def is_engine_tensor(x) -> bool:
    return hasattr(x, "_grad_fn") and hasattr(x, "_data")


def is_engine_node(x) -> bool:
    return hasattr(x, "next_functions") and hasattr(x, "saved_items")


def is_engine_edge(x) -> bool:
    return isinstance(x, tuple) and len(x) == 2 and (x[0] is None or is_engine_node(x[0])) and isinstance(x[1], int)


def is_engine_root(x) -> bool:
    """One root of gradviz's engine: a tensor, a grad_fn node or a (node, output_nr) edge."""
    return is_engine_tensor(x) or is_engine_node(x) or is_engine_edge(x)


# --------------------------------------------------------------------------- real PyTorch


def is_real_node(x) -> bool:
    return hasattr(x, "next_functions") and hasattr(x, "metadata") and not hasattr(x, "saved_items")


def is_torch_object(x) -> bool:
    """A real torch tensor, grad_fn node, GradientEdge, or a (node, nr) pair of them."""
    real = real_torch_module()
    if real is None:
        return False
    if isinstance(x, (list, tuple)) and not (len(x) == 2 and isinstance(x[1], int)):
        return bool(x) and all(is_torch_object(r) for r in x)
    if isinstance(x, real.Tensor):
        return True
    if isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], int):
        return x[0] is not None and is_real_node(x[0])
    return is_real_node(x) or (hasattr(x, "node") and hasattr(x, "output_nr") and is_real_node(x.node))


def uses_real_torch(roots, recorder) -> bool:
    """Whether a snapshot of ``roots`` reads real PyTorch: a ``TorchRecorder`` watched the
    run, or, with no recorder, the roots are real torch objects."""
    if getattr(recorder, "torch", None) is not None:
        return True
    return recorder is None and not is_engine_root(roots) and is_torch_object(roots)
