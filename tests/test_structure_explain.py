"""The structure of gradviz/explain, read from the source (an AST walk, nothing imported):
no import cycle among its modules, no function over 100 lines, no file over 1,000 lines, and
rich / gradviz.commands imported only by explain's renderer.  Every import counts, the ones
inside functions too: a cycle put off until call time is still a cycle."""
import ast

from _source_tree import PACKAGE_DIR, cycles, import_graph, imports, modules

PACKAGE = "gradviz.explain"
MAX_FUNCTION_LINES = 100
MAX_FILE_LINES = 1000

# Functions allowed over MAX_FUNCTION_LINES, each with its reason: {"module:qualified.name": "why"}.
# test_long_function_exclusions_still_needed fails when an entry is no longer over the limit.
LONG_FUNCTIONS = {}

# The only module that may import rich (explain's renderer) or gradviz.commands (none does).
RENDERER = f"{PACKAGE}.render"

MODULES = {name: m for name, m in modules().items() if name == PACKAGE or name.startswith(PACKAGE + ".")}


def _graph():
    """{module: modules of gradviz.explain it imports}; `from . import x` counts as importing x when x is a
    module, and as importing the package (its __init__) otherwise."""
    return import_graph(MODULES)


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

    for name, module in MODULES.items():
        walk(module.tree, "", name)
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
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_explain():
    assert cycles(_graph()) == []


def test_no_long_function_in_explain():
    long = {f: n for f, n in _functions().items() if n > MAX_FUNCTION_LINES and f not in LONG_FUNCTIONS}
    assert long == {}, f"functions over {MAX_FUNCTION_LINES} lines: split them (or list them, with a reason)"


def test_long_function_exclusions_still_needed():
    functions = _functions()
    unneeded = [q for q in sorted(LONG_FUNCTIONS) if functions.get(q, 0) <= MAX_FUNCTION_LINES]
    assert unneeded == [], f"no longer over {MAX_FUNCTION_LINES} lines: remove them from LONG_FUNCTIONS"


def test_no_long_file_in_explain():
    long = {name: m.source.count("\n") + 1 for name, m in MODULES.items()
            if m.source.count("\n") + 1 > MAX_FILE_LINES}
    assert long == {}


def test_rich_and_commands_only_in_the_renderer():
    offenders = {}
    for name, module in MODULES.items():
        if name == RENDERER:
            continue
        bad = sorted(m for m, _, _ in imports(module)
                     if m == "rich" or m.startswith("rich.") or m == "gradviz.commands"
                     or m.startswith("gradviz.commands."))
        if bad:
            offenders[name] = bad
    assert offenders == {}
