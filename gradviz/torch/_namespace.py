"""``F``: every engine function by name (``F.add``, ``F.sum``, ``F.scatter_into_zeros``...).

The core (the Tensor's methods, the op table's formulas, autograd, nn, optim, func) reads
functions from here at call time instead of importing the families that define them:
the families are written in terms of the core, so importing them back would tie the
whole engine into one import cycle. ``_functions.build()`` fills ``F`` once, from the
declarations of the families, while ``gradviz.torch`` is imported.

A module object rather than a plain instance: Python's attribute cache for module
attributes makes ``F.add`` as cheap as a global in the hot paths.
"""
import types

F = types.ModuleType("gradviz.torch.F", "The engine's functions, filled by gradviz.torch._functions.build().")
