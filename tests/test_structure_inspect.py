"""The inspection package keeps its shape (issue 24, point 2), read from the source.

- No import cycle among the modules of ``gradviz/inspect``: imports inside functions
  count too (a lazy import is still a tie the next engineer has to know about).
- No module outside ``gradviz/inspect`` imports a private (underscore) name from it:
  what other packages use has a public name.
- One graph walk: only ``walk.py`` defines one.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gradviz"
INSPECT = PACKAGE / "inspect"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path):
    """(imported module, [names], implied) of every import in a file, at any depth, made
    absolute; ``implied``: the module a ``from package import name`` may load."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], False
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names = [alias.name for alias in node.names]
            yield module, names, False
            for name in names:  # ``from . import expr`` imports the module gradviz.inspect.expr
                yield f"{module}.{name}", [], True


def _inspect_graph():
    modules = {_module_name(p): p for p in INSPECT.glob("*.py")}
    graph = {}
    for name, path in modules.items():
        graph[name] = {m for m, _, _ in _imports(path) if m in modules and m != name and m != "gradviz.inspect"}
    return graph


def _cycle(graph):
    """One import cycle of ``graph`` as a list of modules, or None (iterative DFS)."""
    state = {}  # module -> 1 while on the path, 2 when done
    for start in sorted(graph):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycle_among_the_inspect_modules():
    graph = _inspect_graph()
    assert "gradviz.inspect.snapshot" in graph and "gradviz.inspect.real_torch" in graph
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))


def test_no_private_name_of_inspect_is_imported_from_outside():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if INSPECT in path.parents:
            continue
        for module, names, implied in _imports(path):
            if implied or module != "gradviz.inspect" and not module.startswith("gradviz.inspect."):
                continue
            private = [n for n in names if n.startswith("_")]
            if private or any(part.startswith("_") for part in module.split(".")):
                found.append(f"{path.relative_to(ROOT)}: from {module} import {', '.join(private or names)}")
    assert not found, "\n".join(found)


def test_one_graph_walk():
    walkers = [f"{p.name}:{node.name}" for p in sorted(INSPECT.glob("*.py"))
               for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
               if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") == "walk"]
    assert walkers == ["walk.py:walk"]
