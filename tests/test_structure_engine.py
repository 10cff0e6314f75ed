"""The engine (gradviz/torch) keeps its shape (issue 24, point 1), read from the source.

- Its largest import cycle has at most 8 modules: the tie PyTorch has too, between the
  tensor / autograd core and the op table whose formulas are written in engine
  functions. Imports inside functions count (a lazy import is still a tie).
- The function families (``_fn_*.py``) are imported by the gatherer (``_functions.py``)
  alone; everything else reaches their functions through the ``F`` namespace.
- Each family declares what it offers (EXPORTS, TORCH, METHODS), and each name once.
"""
import ast

from _source_tree import PACKAGE_DIR, cycles, import_graph, imports, modules

ENGINE = PACKAGE_DIR / "torch"
MAX_CYCLE = 8
GATHERER = "gradviz.torch._functions"
DECLARATIONS = ("EXPORTS", "TORCH", "METHODS")


def _engine_modules():
    return {name: m for name, m in modules().items() if ENGINE in m.path.parents or m.path == ENGINE / "__init__.py"}


def _families():
    return {name: m for name, m in _engine_modules().items() if m.path.parent == ENGINE and m.path.name.startswith("_fn_")}


def _declarations(module):
    """{declaration name: the tuple of names} of a module's top-level assignments."""
    out = {}
    for node in module.tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in DECLARATIONS:
            value = node.value  # a tuple of names, or an earlier declaration (METHODS = EXPORTS)
            out[node.targets[0].id] = out[value.id] if isinstance(value, ast.Name) else ast.literal_eval(value)
    return out


def test_the_largest_engine_cycle_is_the_core_tie():
    found = cycles(import_graph(_engine_modules()))
    largest = max(found, key=len)
    assert "gradviz.torch._tensor" in largest and "gradviz.torch.autograd.graph" in largest
    assert len(largest) <= MAX_CYCLE, f"{len(largest)} modules: {largest}"


def test_only_the_gatherer_imports_the_families():
    families = set(_families())
    found = [f"{m.rel}: {target}" for name, m in _engine_modules().items() if name != GATHERER
             for target, _, _ in imports(m) if target in families]
    assert found == [], "\n".join(found)


def test_every_family_declares_its_exports():
    families = _families()
    assert len(families) >= 13
    seen = {}
    for name, module in sorted(families.items()):
        declared = _declarations(module)
        assert set(declared) == set(DECLARATIONS), f"{module.rel} declares {sorted(declared)}"
        exports = declared["EXPORTS"]
        assert len(set(exports)) == len(exports), f"{module.rel}: a name is declared twice"
        for kind in ("TORCH", "METHODS"):
            assert set(declared[kind]) <= set(exports), f"{module.rel}: {kind} names a function not in EXPORTS"
        for export in exports:
            assert export not in seen, f"{export} is declared by {seen.get(export)} and {name}"
            seen[export] = name


def test_the_gatherer_lists_every_family():
    gatherer = modules()[GATHERER]
    imported = {target for target, _, _ in imports(gatherer)}
    assert set(_families()) <= imported
