"""The inspection package keeps its shape (issue 24, point 2), read from the source.

- No import cycle among the modules of ``gradviz/inspect``: imports inside functions
  count too (a lazy import is still a tie the next engineer has to know about).
- No module outside ``gradviz/inspect`` imports a private (underscore) name from it:
  what other packages use has a public name.
- One graph walk: only ``walk.py`` defines one.
"""
import ast

from _source_tree import PACKAGE_DIR, cycles, import_graph, imports, modules

INSPECT = PACKAGE_DIR / "inspect"


def _inspect_graph():
    # the package's own __init__ re-exports; the modules' ties to each other are what counts
    names = [name for name, m in modules().items() if m.path.parent == INSPECT and name != "gradviz.inspect"]
    return import_graph(names)


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_cycle_among_the_inspect_modules():
    graph = _inspect_graph()
    assert "gradviz.inspect.snapshot" in graph and "gradviz.inspect.real_torch" in graph
    assert cycles(graph) == []


def test_no_private_name_of_inspect_is_imported_from_outside():
    found = []
    for module in modules().values():
        if INSPECT in module.path.parents:
            continue
        for target, names, _ in imports(module):
            if target != "gradviz.inspect" and not target.startswith("gradviz.inspect."):
                continue
            private = [n for n in names if n.startswith("_")]
            if private or any(part.startswith("_") for part in target.split(".")):
                found.append(f"{module.rel}: from {target} import {', '.join(private or names)}")
    assert not found, "\n".join(found)


def test_one_graph_walk():
    walkers = [f"{p.name}:{node.name}" for p in sorted(INSPECT.glob("*.py"))
               for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
               if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") == "walk"]
    assert walkers == ["walk.py:walk"]
