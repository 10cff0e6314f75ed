"""The structure of the commands and their presentation, read from the source (issue 24,
point 4), so that it cannot drift back:

- rich is imported under ``gradviz/render/`` only (explain's panels, still in
  ``gradviz/explain/render.py``, are the one exception, named below);
- ``gradviz`` and ``gradviz.cli`` form no import cycle (both read ``gradviz/_version.py``),
  and ``import gradviz`` loads none of click, rich, graphviz or torch;
- the default box budget (300) and the graph formats are spelled in one place:
  ``gradviz/render/options.py``.
"""
import ast
import os
import re
import subprocess
import sys

import pytest

from _source_tree import PACKAGE_DIR, by_rel, imports, modules

ROOT = str(PACKAGE_DIR)
OPTIONS = "render/options.py"

#: modules outside gradviz/render that may still import rich, and why
RICH_EXCEPTIONS = {
    "explain/render.py": "explain's panels: to move into render/ with the rest of explain (issue 24, point 3)",
}
#: the literal 300 where it is not the box budget
OTHER_300 = {
    ("commands/run.py", "_cut"): "the length at which a list of names in a message is cut",
}
FORMAT_NAMES = ("dot", "gv", "svg", "png", "pdf")


SOURCES = {m.rel: m.tree for m in modules().values()}
MODULES = {name: m.rel for name, m in modules().items()}


def _imports(rel: str):
    """(imported module, line) for every import of the module at ``rel``, at any depth."""
    return [(target, line) for target, _, line in imports(by_rel(rel))]


def _parents(tree):
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def _enclosing_function(node, parents):
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node.name
    return None


def _docstrings(tree) -> set:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(first.value)
    return found


def test_the_sources_were_found():
    assert "cli.py" in SOURCES and OPTIONS in SOURCES and "commands/run.py" in SOURCES


# --------------------------------------------------------------------------- rich


def test_rich_is_imported_under_render_only():
    outside = sorted(f"{rel}:{line}" for rel, tree in SOURCES.items()
                     if not rel.startswith("render/") and rel not in RICH_EXCEPTIONS
                     for module, line in _imports(rel) if module == "rich" or module.startswith("rich."))
    assert not outside, f"rich imported outside gradviz/render: {outside}"


def test_each_rich_exception_is_still_needed():
    for rel, why in RICH_EXCEPTIONS.items():
        assert any(m == "rich" or m.startswith("rich.") for m, _ in _imports(rel)), \
            f"{rel} no longer imports rich: drop it from RICH_EXCEPTIONS ({why})"


# --------------------------------------------------------------------------- gradviz <-> cli


def _reachable(start: str) -> set:
    """The gradviz modules ``start`` imports, directly or not, eagerly or lazily."""
    seen, todo = set(), [start]
    while todo:
        module = todo.pop()
        if module in seen or module not in MODULES:
            continue
        seen.add(module)
        todo.extend(m for m, _ in _imports(MODULES[module]))
    return seen


def test_no_import_cycle_between_the_package_and_the_cli():
    # the package reaches the CLI (show() -> jupyter -> the %%gradviz options), so the CLI,
    # and all it imports, must read nothing from the package's __init__
    assert "gradviz.cli" in _reachable("gradviz")
    assert "gradviz" not in _reachable("gradviz.cli") - {"gradviz.cli"}
    assert "gradviz" not in {m for m, _ in _imports("cli.py")}


def test_the_package_imports_only_its_version_up_front():
    top = [node for node in SOURCES["__init__.py"].body if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert [(n.module, [a.name for a in n.names]) for n in top] == [("gradviz._version", ["__version__"])]


def test_import_gradviz_loads_nothing_heavy():
    code = ("import sys, gradviz; assert gradviz.__version__; "
            "print(sorted(m for m in ('click', 'rich', 'graphviz', 'torch', 'gradviz.torch', 'gradviz.cli') "
            "if m in sys.modules))")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- one place


def test_the_box_budget_is_written_once():
    found = []
    for rel, tree in SOURCES.items():
        parents = _parents(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and type(node.value) is int and node.value == 300:
                if (rel, _enclosing_function(node, parents)) not in OTHER_300:
                    found.append(f"{rel}:{node.lineno}")
    assert found == [f"{OPTIONS}:{_line_of(OPTIONS, 'DEFAULT_MAX_NODES = 300')}"], found


def test_each_other_300_is_still_there():
    for (rel, func), why in OTHER_300.items():
        tree = SOURCES[rel]
        parents = _parents(tree)
        assert any(isinstance(n, ast.Constant) and n.value == 300 and _enclosing_function(n, parents) == func
                   for n in ast.walk(tree)), f"{rel}: {func} has no 300 any more: drop it from OTHER_300 ({why})"


def _line_of(rel: str, text: str) -> int:
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if line.startswith(text):
                return i
    raise AssertionError(f"{text!r} is not in {rel}")


# an extension in a text: '.svg', '(.dot', '.dot/.gv'; not a CSS class ('.gv-cell') or a word ('a.dot.b')
_EXT = re.compile(r"(?<![\w-])\.(" + "|".join(FORMAT_NAMES) + r")(?![\w-])")


def test_the_formats_are_listed_once():
    """A collection of two or more format names, or a text naming two or more extensions
    ('.svg, .png, .pdf or .dot/.gv'), is written in render/options.py only; the others
    build theirs from it. (Docstrings may name formats.)"""
    found = []
    for rel, tree in SOURCES.items():
        if rel == OPTIONS:
            continue
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                items = node.keys if isinstance(node, ast.Dict) else node.elts
                names = {i.value for i in items if isinstance(i, ast.Constant) and i.value in FORMAT_NAMES}
                if len(names) >= 2:
                    found.append(f"{rel}:{node.lineno}: {sorted(names)}")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node not in docs:
                names = set(_EXT.findall(node.value))
                if len(names) >= 2:
                    found.append(f"{rel}:{node.lineno}: {node.value!r}")
    assert not found, "graph formats spelled outside gradviz/render/options.py:\n" + "\n".join(found)


@pytest.mark.parametrize("rel", ["cli.py", "jupyter.py", "commands/common.py", "commands/graph.py",
                                 "render/dot.py", "render/layout.py"])
def test_the_readers_of_the_formats_import_them(rel):
    assert any(m == "gradviz.render.options" for m, _ in _imports(rel)), rel
