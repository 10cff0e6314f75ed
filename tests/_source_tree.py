"""gradviz's source read as data, for the structure tests (tests/test_structure_*.py): every
module's syntax tree, the imports it makes, and the import cycles among a set of modules.
An AST walk: nothing is imported. Imports inside functions count too: a cycle put off
until call time is still a cycle the next engineer has to know about."""
import ast
import functools
from dataclasses import dataclass
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "gradviz"


@dataclass(frozen=True)
class Module:
    name: str  # gradviz.inspect.walk
    rel: str  # inspect/walk.py, relative to gradviz/
    path: Path
    source: str
    tree: ast.Module

    @property
    def package(self) -> str:
        """The package a relative import starts from."""
        return self.name if self.path.name == "__init__.py" else self.name.rpartition(".")[0]


def _name(path: Path) -> str:
    parts = ["gradviz", *path.relative_to(PACKAGE_DIR).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.lru_cache(maxsize=None)
def modules() -> dict:
    """{module name: Module} of every module of gradviz."""
    out = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        out[_name(path)] = Module(_name(path), path.relative_to(PACKAGE_DIR).as_posix(), path, source,
                                  ast.parse(source, filename=str(path)))
    return out


def by_rel(rel: str) -> Module:
    return next(m for m in modules().values() if m.rel == rel)


def import_source(module: Module, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` in ``module`` reads from."""
    if not node.level:
        return node.module or ""
    base = module.package.split(".")
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(module: Module):
    """(imported module, [names], line) of every import in ``module``, at any depth, made
    absolute. ``from package import name`` imports the submodule ``package.name`` when
    there is one (with no names), and the package otherwise (with the name)."""
    known = modules()
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            source = import_source(module, node)
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                yield (sub, [], node.lineno) if sub in known else (source, [alias.name], node.lineno)


def import_graph(names) -> dict:
    """{module: the modules among ``names`` it imports}, for the modules in ``names``."""
    names = set(names)
    known = modules()
    return {name: {target for target, _, _ in imports(known[name]) if target in names and target != name}
            for name in sorted(names)}


def cycles(graph) -> list:
    """The import cycles of ``graph``: its strongly connected components of more than one
    module, each sorted (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph.get(root, ()))))]
        while work:
            node, successors = work[-1]
            nxt = next(successors, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out
