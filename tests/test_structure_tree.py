"""The shape of the whole of gradviz/, read from the source (issue 24): the thresholds the
next engineer can rely on, each failure naming the file and line to fix.

- no import cycle with a module outside ``gradviz/torch`` in it (the engine's own cycles
  are its own structure test's business);
- rich imported under ``gradviz/render/`` only (and by explain's panels renderer);
- no private name crosses packages: ``from gradviz.x import _name``, or ``x._name`` on a
  module imported from another package. A package is the first name under gradviz
  (``gradviz.inspect``, ``gradviz.render``); a top-level module (``cli.py``) is its own;
- no function over 120 lines, unless it mirrors a PyTorch function statement for statement
  and says so (MIRRORS_MARKER in a comment inside it or on the lines just above it);
- no file over 1,000 lines.

``import gradviz`` loading none of click, rich, graphviz or torch is checked by
test_structure_commands.py (test_import_gradviz_loads_nothing_heavy).
"""
import ast

from _source_tree import cycles, import_graph, import_source, imports, modules

MAX_FUNCTION_LINES = 120
MAX_FILE_LINES = 1000
ENGINE = "gradviz.torch"
#: Written in a comment inside a long function, or on the lines just above it, by one that
#: follows a PyTorch function statement for statement: splitting it would lose the
#: one-to-one reading against PyTorch's source.
MIRRORS_MARKER = "mirrors PyTorch's"
#: rich may be imported by these modules only (and everything under RENDER)
RENDER = "gradviz.render"
RICH_ALSO = {"gradviz.explain.render": "explain's panels renderer"}

def _in_engine(name: str) -> bool:
    return name == ENGINE or name.startswith(ENGINE + ".")


def _package(name: str) -> str:
    """'gradviz.inspect' for gradviz.inspect.walk, 'gradviz.cli' for gradviz.cli."""
    return ".".join(name.split(".")[:2])


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _where(module, line) -> str:
    return f"gradviz/{module.rel}:{line}"


# --------------------------------------------------------------------------- cycles


def test_no_import_cycle_outside_the_engine():
    graph = import_graph(modules())
    found = [c for c in cycles(graph) if not all(_in_engine(m) for m in c)]
    assert not found, "import cycles (break them): " + "; ".join(" <-> ".join(c) for c in found)


# --------------------------------------------------------------------------- rich


def test_rich_is_imported_under_render_only():
    found = [f"{_where(m, line)}: import {target}" for name, m in modules().items()
             if _package(name) != RENDER and name not in RICH_ALSO
             for target, _, line in imports(m) if target == "rich" or target.startswith("rich.")]
    assert not found, "rich imported outside gradviz/render:\n" + "\n".join(found)


def test_each_rich_exception_imports_rich():
    for name, why in RICH_ALSO.items():
        assert any(t == "rich" or t.startswith("rich.") for t, _, _ in imports(modules()[name])), \
            f"{name} no longer imports rich: drop it from RICH_ALSO ({why})"


# --------------------------------------------------------------------------- private names


def _private_imports(module):
    """'file:line: from X import _y' for each private name, or private submodule, ``module``
    imports from another package."""
    for target, names, line in imports(module):
        if not target.startswith("gradviz") or _package(target) == _package(module.name):
            continue
        inner = target.split(".")[2:]  # the modules inside the imported package
        bad = [n for n in names if _private(n)] + [p for p in inner if _private(p)]
        if bad:
            yield f"{_where(module, line)}: {target}: {', '.join(bad)}"


def _module_bindings(module) -> dict:
    """{local name: gradviz module} of the names ``module`` binds to gradviz modules:
    ``import gradviz.x as y``, ``from gradviz import x``, ``from . import x``."""
    known = modules()
    bound = {}
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in known:
                    bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            source = import_source(module, node)
            for alias in node.names:
                if f"{source}.{alias.name}" in known:
                    bound[alias.asname or alias.name] = f"{source}.{alias.name}"
    return bound


def _dotted(node):
    """'gradviz.scripting' for the expression ``gradviz.scripting``; None if not names and dots."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _private_attribute_reads(module):
    """'file:line: x._name' for each private attribute read off a module of another package,
    the module named by an import binding (``y._name``) or spelled out (``gradviz.x._name``).
    Names are matched by spelling, not by scope: a local that shadows an import is taken
    for the module."""
    known = modules()
    bound = _module_bindings(module)
    for node in ast.walk(module.tree):
        if not isinstance(node, ast.Attribute) or not _private(node.attr):
            continue
        owner = _dotted(node.value)
        if owner is None:
            continue
        head, _, rest = owner.partition(".")
        target = bound.get(head, head)
        target = f"{target}.{rest}" if rest else target
        if target in known and _package(target) != _package(module.name):
            yield f"{_where(module, node.lineno)}: {owner}.{node.attr} ({target})"


def test_the_private_name_checks_see_what_they_look_for():
    probe = type("M", (), {})()
    probe.name, probe.rel, probe.package = "gradviz.jupyter", "jupyter.py", "gradviz"
    probe.tree = ast.parse("from gradviz import scripting\nimport gradviz.notebook as nb\nimport gradviz.cli\n"
                           "scripting._a\nnb._b\ngradviz.cli._c\nscripting.ok\nnb.__doc__\n")
    assert [f.split(": ", 1)[1] for f in _private_attribute_reads(probe)] == [
        "scripting._a (gradviz.scripting)", "nb._b (gradviz.notebook)", "gradviz.cli._c (gradviz.cli)"]
    assert _package("gradviz.inspect.walk") == "gradviz.inspect" and _package("gradviz.cli") == "gradviz.cli"


def test_no_private_name_crosses_packages():
    found = [f for m in modules().values() for f in [*_private_imports(m), *_private_attribute_reads(m)]]
    assert not found, "private names used across packages (give them a public name in their module):\n" + \
        "\n".join(found)


# --------------------------------------------------------------------------- sizes


def _functions():
    """(module, qualified name, first line, number of lines, carries MIRRORS_MARKER) of every
    function and method, nested ones too."""
    for module in modules().values():
        lines = module.source.split("\n")
        stack = [(module.tree, "")]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    qual = prefix + child.name
                    if not isinstance(child, ast.ClassDef):
                        first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                        text = "\n".join(lines[max(0, first - 4):child.end_lineno])  # 3 lines above it, and it
                        yield module, qual, child.lineno, child.end_lineno - child.lineno + 1, \
                            any(MIRRORS_MARKER in c for c in _comments(text))
                    stack.append((child, qual + "."))
                else:
                    stack.append((child, prefix))


def _comments(text: str):
    """The comments of ``text``, read as Python reads them (not '#' inside strings)."""
    import io
    import tokenize

    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                yield tok.string
    except (tokenize.TokenError, IndentationError, SyntaxError):  # a slice that ends mid-statement
        return


def _long_functions():
    return {f"{m.rel}:{qual}": f"{_where(m, line)}: {qual} has {n} lines"
            for m, qual, line, n, marked in _functions() if n > MAX_FUNCTION_LINES and not marked}


def test_the_function_walk_sees_functions_and_the_marker():
    found = {f"{m.rel}:{q}": (n, marked) for m, q, _, n, marked in _functions()}
    assert found["scripting.py:run_script"][0] > 30
    assert "cli.py:GradvizGroup.main" in found
    assert not found["scripting.py:run_script"][1]
    assert list(_comments("x = '# mirrors PyTorch's'\n# mirrors PyTorch's f\n")) == ["# mirrors PyTorch's f"]


def test_no_long_function():
    long = _long_functions()
    assert not long, (f"functions over {MAX_FUNCTION_LINES} lines (split them, or, for one that mirrors a "
                      f"PyTorch function statement for statement, say so with a '{MIRRORS_MARKER} ...' comment):\n"
                      + "\n".join(long.values()))


def test_no_long_file():
    long = [f"gradviz/{m.rel}:{n}: {n} lines" for m in modules().values()
            if (n := m.source.count("\n") + (not m.source.endswith("\n"))) > MAX_FILE_LINES]
    assert not long, f"files over {MAX_FILE_LINES} lines (split them):\n" + "\n".join(long)
