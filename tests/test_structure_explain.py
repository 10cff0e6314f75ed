"""The structure of gradviz/explain, read from the source (an AST walk, nothing imported):
no import cycle among its modules, no function over 100 lines, no file over 1,000 lines, and
rich / gradviz.commands imported only by explain's renderer.  Every import counts, the ones
inside functions too: a cycle put off until call time is still a cycle."""
import ast
from pathlib import Path

PACKAGE = "gradviz.explain"
ROOT = Path(__file__).resolve().parents[1] / "gradviz" / "explain"
MAX_FUNCTION_LINES = 100
MAX_FILE_LINES = 1000

# Functions allowed over MAX_FUNCTION_LINES, each with its reason: {"module:qualified.name": "why"}.
# test_long_function_exclusions_still_needed fails when an entry is no longer over the limit.
LONG_FUNCTIONS = {}

# The only module that may import rich (explain's renderer) or gradviz.commands (none does).
RENDERER = f"{PACKAGE}.render"


def _module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join([PACKAGE] + parts)


def _modules():
    mods = {}
    for path in sorted(ROOT.rglob("*.py")):
        src = path.read_text(encoding="utf-8")
        mods[_module_name(path)] = (path, src, ast.parse(src, filename=str(path)))
    return mods


MODULES = _modules()


def _package_of(name, path):
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _imported(name, path, tree):
    """Every module name ``tree`` imports (absolute), anywhere in the file."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package_of(name, path).split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            out.add(mod)
            for a in node.names:  # `from . import catalog`: the submodule itself
                out.add(f"{mod}.{a.name}")
    return out


def _graph():
    """{module: modules of gradviz.explain it imports}; `from . import x` counts as importing x when x is a
    module, and as importing the package (its __init__) otherwise."""
    graph = {}
    for name, (path, _, tree) in MODULES.items():
        deps = set()
        for mod in _imported(name, path, tree):
            if mod in MODULES:
                deps.add(mod)
        # `from . import catalog` added both the package and the submodule: keep the package only when a
        # name that is not a module was imported from it
        if PACKAGE in deps and name != PACKAGE:
            wants_package = False
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module is None \
                        and _package_of(name, path) == PACKAGE:
                    wants_package |= any(f"{PACKAGE}.{a.name}" not in MODULES for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == PACKAGE:
                    wants_package |= any(f"{PACKAGE}.{a.name}" not in MODULES for a in node.names)
                elif isinstance(node, ast.Import) and any(a.name == PACKAGE for a in node.names):
                    wants_package = True
            if not wants_package:
                deps.discard(PACKAGE)
        deps.discard(name)
        graph[name] = deps
    return graph


def _cycles(graph):
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _functions():
    """{"module:qualified.name": number of lines} of every function and method, nested ones too."""
    out = {}

    def walk(node, prefix, mod):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    out[f"{mod}:{qual}"] = child.end_lineno - child.lineno + 1
                walk(child, qual + ".", mod)
            else:
                walk(child, prefix, mod)

    for name, (_, _, tree) in MODULES.items():
        walk(tree, "", name)
    return out


def test_the_walk_sees_the_package():
    assert {f"{PACKAGE}.catalog", f"{PACKAGE}.catalog_ops", f"{PACKAGE}.diagnose", f"{PACKAGE}.lint",
            f"{PACKAGE}.facts", RENDERER} <= set(MODULES)
    graph = _graph()
    assert f"{PACKAGE}.catalog_ops" in graph[f"{PACKAGE}.catalog"]
    assert f"{PACKAGE}.facts" in graph[f"{PACKAGE}.lint"]
    assert f"{PACKAGE}.lint" in graph[f"{PACKAGE}.diagnose"]  # an import inside a function counts
    assert _functions()[f"{PACKAGE}.diagnose:diagnose_script"] > 10


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_explain():
    assert _cycles(_graph()) == []


def test_no_long_function_in_explain():
    long = {f: n for f, n in _functions().items() if n > MAX_FUNCTION_LINES and f not in LONG_FUNCTIONS}
    assert long == {}, f"functions over {MAX_FUNCTION_LINES} lines: split them (or list them, with a reason)"


def test_long_function_exclusions_still_needed():
    functions = _functions()
    unneeded = [q for q in sorted(LONG_FUNCTIONS) if functions.get(q, 0) <= MAX_FUNCTION_LINES]
    assert unneeded == [], f"no longer over {MAX_FUNCTION_LINES} lines: remove them from LONG_FUNCTIONS"


def test_no_long_file_in_explain():
    long = {name: src.count("\n") + 1 for name, (_, src, _) in MODULES.items()
            if src.count("\n") + 1 > MAX_FILE_LINES}
    assert long == {}


def test_rich_and_commands_only_in_the_renderer():
    offenders = {}
    for name, (path, _, tree) in MODULES.items():
        if name == RENDERER:
            continue
        bad = sorted(m for m in _imported(name, path, tree)
                     if m == "rich" or m.startswith("rich.") or m == "gradviz.commands"
                     or m.startswith("gradviz.commands."))
        if bad:
            offenders[name] = bad
    assert offenders == {}
