"""gradviz.scripting: cells, notebook semantics, snapshots, and that a run leaves no trace.

Where real PyTorch is importable it is the oracle: the same script run with
``engine="torch"`` (no aliasing) must give the same metadata and values.
"""
import importlib
import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz import scripting
from gradviz.render import jsonout


def write(tmp_path, text, name="script.py"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


def run(tmp_path, text, **kw):
    kw.setdefault("echo", False)
    return scripting.run_script(write(tmp_path, text), **kw)


def close(a, b):
    return np.allclose(np.array(a, dtype=float), np.array(b, dtype=float), rtol=1e-5, atol=1e-6)


def by_name(cell):
    return {t.name: t for t in cell.tensors}


# --------------------------------------------------------------------------- cells


def record_split_cells(src):
    """record.py's split_cells, verbatim: the reference."""
    cells, cur, start = [], [], 1
    for i, line in enumerate(src.splitlines(keepends=True), 1):
        if line.startswith("# %%"):
            if "".join(cur).strip():
                cells.append((start, "".join(cur)))
            cur, start = [], i + 1
        else:
            cur.append(line)
    if "".join(cur).strip():
        cells.append((start, "".join(cur)))
    return cells


def test_split_cells_examples():
    src = "import torch\n# %%\na = 1\n\n# %% second\n\n# %%\nb = 2\n"
    cells = scripting.split_cells(src)
    assert [(c.line, c.source) for c in cells] == [(1, "import torch\n"), (3, "a = 1\n\n"),
                                                    (8, "b = 2\n")]
    assert [c.index for c in cells] == [0, 1, 2]
    assert scripting.split_cells("x = 1\ny = 2") == [scripting.Cell(0, 1, "x = 1\ny = 2", 1)]
    assert scripting.split_cells("") == []
    # only a marker at the very start of a line counts
    assert len(scripting.split_cells("a = 1\n  # %%\nb = 2\n")) == 1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["# %%", "# %% title", "x = 1", "", "  ", " # %%", "#%%",
                                 "y = [\n", "\x0c", "z = 2\r"]), max_size=12))
def test_split_cells_matches_record_py(lines):
    src = "\n".join(lines)
    assert [(c.line, c.source) for c in scripting.split_cells(src)] == record_split_cells(src)


def test_code_line_counts_real_lines_after_form_feed(tmp_path):
    # str.splitlines() counts \x0c as a line break, Python does not: the JSON keeps
    # record.py's count, tracebacks the real one
    r = run(tmp_path, "a = 1\x0c\n# %%\nraise ValueError('x')\n")
    cell = r.cells[-1]
    assert cell.line == 4
    assert cell.error.line == 3
    assert 'line 3' in cell.error.traceback


# --------------------------------------------------------------------------- semantics


def test_notebook_semantics(tmp_path):
    r = run(tmp_path, """\
        import torch
        # %%
        x = torch.ones(2)
        print("name", __name__)
        # %%
        raise ValueError("boom")
        print("not reached")
        # %%
        y = x * 3
        y.sum()
        # %%
        None
        # %%
        x = 1 +
        # %%
        print("still", y.shape)
    """)
    assert [c.line for c in r.cells] == [1, 3, 6, 9, 12, 14, 16]
    assert r.cells[1].stdout == "name __main__\n"
    assert r.cells[2].error.type == "ValueError" and r.cells[2].error.message == "boom"
    assert r.cells[2].stdout == ""
    assert r.cells[3].error is None
    assert r.cells[3].stdout.startswith("tensor(6.")  # the trailing expression's repr
    assert r.cells[4].stdout == ""  # None is not printed
    assert r.cells[5].error.type == "SyntaxError"
    assert r.cells[6].stdout == "still torch.Size([2])\n"
    assert [c.number for c in r.errors] == [3, 6]
    assert not r.ok and r.total_cells == 7
    assert [t.name for t in r.tensors] == ["x", "y"]


def test_syntax_error_message_as_record_py_and_traceback_with_real_line(tmp_path):
    r = run(tmp_path, "a = 1\n# %%\nb = 2\nc = (\n")
    err = r.cells[1].error
    assert err.type == "SyntaxError"
    assert err.message == "'(' was never closed (<unknown>, line 2)"  # record.py's text
    assert err.line == 4
    assert "line 4" in err.traceback and "Traceback" not in err.traceback
    assert "ast.py" not in err.traceback


def test_compile_error_after_parse_matches_record_py(tmp_path):
    path = write(tmp_path, "x = 1\n# %%\nreturn 5\n")
    r = scripting.run_script(path, echo=False)
    assert r.cells[1].error.type == "SyntaxError"
    assert r.cells[1].error.message == "'return' outside function (script.py, line 1)"


def test_traceback_shows_user_frames_only(tmp_path):
    path = write(tmp_path, """\
        import torch
        # %%
        def f(t):
            return t.backward()
        x = torch.ones(3) * 2
        f(x)
    """)
    err = scripting.run_script(path, echo=False).cells[1].error
    assert err.type == "RuntimeError"
    assert err.line == 4
    assert err.traceback.startswith("Traceback (most recent call last):\n")
    assert f'File "{path}", line 6, in <module>' in err.traceback
    assert f'File "{path}", line 4, in f' in err.traceback
    assert "gradviz" not in err.traceback.replace(path, "")
    assert err.traceback.rstrip().endswith(f"RuntimeError: {err.message}")


def test_exception_chain_kept_for_user_exceptions(tmp_path):
    r = run(tmp_path, "raise ValueError('boom') from KeyError('k')\n")
    tb = r.cells[0].error.traceback
    assert "KeyError: 'k'" in tb and "direct cause" in tb and "ValueError: boom" in tb


def test_stdout_echo_and_capture(tmp_path, capsys):
    path = write(tmp_path, "print('hello')\n# %%\nprint('world')\n")
    r = scripting.run_script(path, echo=True)
    assert capsys.readouterr().out == "hello\nworld\n"
    assert [c.stdout for c in r.cells] == ["hello\n", "world\n"]
    r = scripting.run_script(path, echo=False)
    assert capsys.readouterr().out == ""
    assert [c.stdout for c in r.cells] == ["hello\n", "world\n"]


def test_warnings_are_ignored(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = run(tmp_path, """\
            import warnings, torch
            warnings.warn("from the script")
            x = torch.ones(2, requires_grad=True)
            y = x * 2
            y.sum().backward()
            y.grad
        """)
    assert r.ok and caught == []


def test_on_cell_called_after_each_cell(tmp_path):
    seen = []
    run(tmp_path, "a = 1\n# %%\nb = 2\n", on_cell=lambda c: seen.append((c.number, c.line)))
    assert seen == [(1, 1), (2, 3)]


def test_sys_exit(tmp_path):
    r = run(tmp_path, "print(1)\n# %%\nimport sys; sys.exit(0)\n# %%\nprint(3)\n")
    assert r.ok and len(r.cells) == 2 and r.total_cells == 3
    r = run(tmp_path, "import sys\nsys.exit(4)\n# %%\nprint(3)\n")
    assert [c.error.type for c in r.cells] == ["SystemExit"]
    assert r.cells[0].error.message == "4"


def test_argv_and_file(tmp_path):
    r = run(tmp_path, "import sys\nprint(sys.argv[1:], __file__.endswith('script.py'))\n",
            argv=["--lr", "3"])
    assert r.cells[0].stdout == "['--lr', '3'] True\n"


def test_unreadable_scripts_raise_script_error(tmp_path):
    with pytest.raises(scripting.ScriptError, match="no such file"):
        scripting.run_script(str(tmp_path / "missing.py"))
    with pytest.raises(scripting.ScriptError, match="directory"):
        scripting.run_script(str(tmp_path))
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"x = '\xff\xfe'\n")
    with pytest.raises(scripting.ScriptError, match="cannot decode"):
        scripting.run_script(str(bad))


# --------------------------------------------------------------------------- snapshot


def test_snapshot_rules(tmp_path):
    r = run(tmp_path, """\
        import torch
        import torch.nn as nn
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        _hidden = torch.ones(2)
        pair = (a, a * 2)
        mixed = [a, 1]
        empty = []
        many = [torch.ones(1)] * 65
        big = torch.zeros(1001)
        n = torch.tensor([1, 2, 3])
        flags = torch.tensor([True, False])
        s = torch.tensor(2.5)
        lin = nn.Linear(2, 1)
        klass = nn.Linear
        b = (a * a).sum()
        b.backward()
    """)
    t = by_name(r.cells[0])
    assert list(t) == ["a", "pair[0]", "pair[1]", "big", "n", "flags", "s",
                       "lin.weight", "lin.bias", "b"]
    a = t["a"]
    assert (a.shape, a.dtype, a.requires_grad, a.is_leaf, a.retains_grad, a.grad_fn) == \
        ((3,), "float32", True, True, False, None)
    assert a.data == [1.0, 2.0, 3.0] and a.grad.data == [2.0, 4.0, 6.0]
    assert a.stats == scripting.Stats(1.0, 3.0, 2.0, pytest.approx(14 ** 0.5))
    assert t["pair[1]"].grad_fn == "MulBackward0" and not t["pair[1]"].is_leaf
    assert t["big"].data is None and t["big"].numel == 1001
    assert t["big"].stats == scripting.Stats(0.0, 0.0, 0.0, 0.0)
    assert (t["n"].dtype, t["n"].data) == ("int64", [1.0, 2.0, 3.0])
    assert (t["flags"].dtype, t["flags"].data) == ("bool", [1.0, 0.0])
    assert (t["s"].shape, t["s"].data) == ((), 2.5)
    assert t["lin.weight"].shape == (1, 2) and t["lin.bias"].shape == (1,)
    assert t["b"].grad_fn == "SumBackward0"
    for rec in t.values():  # plain float64 values
        for v in (rec.stats.min, rec.stats.max, rec.stats.mean, rec.stats.norm):
            assert type(v) is float


def test_snapshot_retains_grad_and_empty(tmp_path):
    r = run(tmp_path, """\
        import torch
        x = torch.ones(2, requires_grad=True)
        y = x * 3
        y.retain_grad()
        y.sum().backward()
        e = torch.zeros(0)
    """)
    t = by_name(r.cells[0])
    assert t["y"].retains_grad and t["y"].grad.data == [1.0, 1.0]
    assert t["e"].data == [] and t["e"].stats == scripting.Stats(None, None, None, 0.0)


def test_snapshot_is_copied_data(tmp_path):
    r = run(tmp_path, "import torch\nx = torch.ones(2)\n# %%\nx.add_(1)\n")
    assert r.cells[0].tensors[0].data == [1.0, 1.0]
    assert r.cells[1].tensors[0].data == [2.0, 2.0]


def test_module_buffers(tmp_path):
    r = run(tmp_path, """\
        import torch
        import torch.nn as nn
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 2)
                self.register_buffer("running", torch.zeros(2))
        m = M()
    """)
    assert [t.name for t in r.tensors] == ["m.fc.weight", "m.fc.bias", "m.running"]
    assert r.tensors[0].requires_grad and not r.tensors[2].requires_grad


# --------------------------------------------------------------------------- aliasing + isolation


def alias_keys():
    return {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}


def test_import_torch_resolves_to_the_engine(tmp_path):
    r = run(tmp_path, """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        import torch.autograd
        import torch.optim
        from torch import optim as o2
        print(torch.__name__, nn.__name__, F.__name__, torch.autograd.__name__, o2.__name__)
        import gradviz.torch
        print(torch is gradviz.torch)
        # %%
        import torch.does_not_exist
    """)
    assert r.cells[0].stdout == ("gradviz.torch gradviz.torch.nn gradviz.torch.nn.functional "
                                 "gradviz.torch.autograd gradviz.torch.optim\nTrue\n")
    err = r.cells[1].error
    assert (err.type, err.message) == ("ModuleNotFoundError", "No module named 'torch.does_not_exist'")


def test_run_leaves_no_trace(tmp_path):
    eng = importlib.import_module("gradviz.torch")
    helper = tmp_path / "helper_mod_xyz.py"
    helper.write_text("import torch\nVALUE = 42\n")
    before = dict(
        aliases=alias_keys(), argv=list(sys.argv), path=list(sys.path), cwd=os.getcwd(),
        main=sys.modules.get("__main__"), meta=list(sys.meta_path),
        dtype=eng.get_default_dtype(), grad=eng.is_grad_enabled(),
        specs={k: m.__spec__ for k, m in sys.modules.items()
               if k.startswith("gradviz.torch") and m is not None},
    )
    r = run(tmp_path, f"""\
        import os, sys, torch
        import helper_mod_xyz
        print(sys.path[0] == {str(tmp_path)!r}, helper_mod_xyz.VALUE)
        torch.set_default_dtype(torch.float64)
        torch.set_grad_enabled(False)
        os.chdir({str(tmp_path)!r})
        sys.argv.append("changed")
        sys.path.append("/nowhere")
        # %%
        print(torch.get_default_dtype(), torch.is_grad_enabled())
        raise RuntimeError("the script failed")
    """)
    assert r.cells[0].stdout == "True 42\n"
    assert r.cells[1].stdout == "torch.float64 False\n"  # kept across cells, as in a notebook
    assert r.cells[1].error.message == "the script failed"
    assert alias_keys() == before["aliases"]
    assert sys.argv == before["argv"] and sys.path == before["path"]
    assert os.getcwd() == before["cwd"]
    assert sys.modules.get("__main__") is before["main"]
    assert sys.meta_path == before["meta"]
    assert "helper_mod_xyz" not in sys.modules
    assert eng.get_default_dtype() == before["dtype"] and eng.is_grad_enabled() == before["grad"]
    for k, spec in before["specs"].items():
        if k in sys.modules:
            assert sys.modules[k].__spec__ is spec, k


def test_state_restored_when_interrupted(tmp_path):
    before = (alias_keys(), list(sys.argv), list(sys.path), list(sys.meta_path))
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, "import torch\nraise KeyboardInterrupt\n")
    assert (alias_keys(), list(sys.argv), list(sys.path), list(sys.meta_path)) == before


def test_real_torch_is_hidden_during_the_run_and_back_after(tmp_path):
    real = pytest.importorskip("torch")
    import torch.nn  # noqa: F401 - a submodule of the real thing, loaded too

    r = run(tmp_path, "import torch, torch.nn\nprint(torch.__name__, torch.nn.__name__)\n")
    assert r.cells[0].stdout == "gradviz.torch gradviz.torch.nn\n"
    assert sys.modules["torch"] is real
    assert sys.modules["torch.nn"] is real.nn


def test_import_gradviz_loads_no_cli_libraries():
    code = ("import sys, gradviz, gradviz.scripting, gradviz.render.jsonout; "
            "bad = [m for m in ('click', 'rich', 'graphviz', 'torch', 'gradviz.torch') "
            "if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


# --------------------------------------------------------------------------- JSON + oracle


def test_json_schema_keys(tmp_path):
    r = run(tmp_path, """\
        import torch
        x = torch.ones(2, requires_grad=True)
        (x * 2).sum().backward()
        # %%
        x.foo()
    """)
    doc = json.loads(jsonout.dumps(r))
    assert list(doc) == ["script", "cells"]
    c0, c1 = doc["cells"]
    assert list(c0) == ["line", "stdout", "error", "tensors", "warnings"]  # the schema, plus each cell's warnings
    assert list(c0["tensors"][0]) == ["name", "shape", "dtype", "requires_grad", "is_leaf",
                                      "retains_grad", "grad_fn", "data", "stats", "grad", "grad_reason"]
    assert list(c0["tensors"][0]["stats"]) == ["min", "max", "mean", "norm"]
    assert c0["tensors"][0]["grad"] == {"data": [2.0, 2.0],
                                        "stats": {"min": 2.0, "max": 2.0, "mean": 2.0,
                                                  "norm": pytest.approx(8 ** 0.5)}}
    assert list(c1["error"]) == ["type", "message"] and c1["error"]["type"] == "AttributeError"


ORACLE_SCRIPT = """\
import torch
import torch.nn as nn
# %%
a = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
w1 = torch.tensor([[1.0, 2.0, -1.0], [0.5, 0.5, 3.0]], requires_grad=True)
w2 = torch.tensor([[-2.0, 1.0, 0.0], [1.0, -1.0, 2.0]], requires_grad=True)
b = w1 * a
c = w2 * a
d = w1 * b + w2 * c
L = (10 - d).sum()
L.grad_fn.name()
# %%
L.backward()
print(a.grad)
# %%
L.backward()
# %%
lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.1, 0.0, 0.5]]))
    lin.bias.fill_(0.5)
out = lin(a).relu().mean()
out.backward()
lin.weight.grad
"""


def test_engine_matches_real_pytorch_through_the_runner(tmp_path):
    pytest.importorskip("torch")
    path = write(tmp_path, ORACLE_SCRIPT)
    ours = json.loads(jsonout.dumps(scripting.run_script(path, echo=False)))
    real = json.loads(jsonout.dumps(scripting.run_script(path, echo=False, engine="torch")))
    assert len(ours["cells"]) == len(real["cells"])
    for co, cr in zip(ours["cells"], real["cells"]):
        assert co["line"] == cr["line"]
        assert co["stdout"] == cr["stdout"]
        assert co["error"] == cr["error"]
        assert [t["name"] for t in co["tensors"]] == [t["name"] for t in cr["tensors"]]
        for to, tr in zip(co["tensors"], cr["tensors"]):
            for k in ("shape", "dtype", "requires_grad", "is_leaf", "retains_grad", "grad_fn"):
                assert to[k] == tr[k], (to["name"], k)
            assert close(to["data"], tr["data"]), to["name"]
            assert (to["grad"] is None) == (tr["grad"] is None), to["name"]
            if tr["grad"] is not None:
                assert close(to["grad"]["data"], tr["grad"]["data"]), to["name"]


FAKE_ENGINE = {
    "__init__.py": """\
        _dtype, _grad = "float32", True
        float32 = "float32"
        class Tensor: pass
        def get_default_dtype(): return _dtype
        def set_default_dtype(d):
            global _dtype; _dtype = d
        def is_grad_enabled(): return _grad
        def set_grad_enabled(m):
            global _grad; _grad = m
        def manual_seed(s): pass
    """,
    "nn/__init__.py": "class Module: pass\n",
    "lazy.py": "WHO = __name__\n",
    "broken.py": "import a_module_that_does_not_exist_xyz\n",
}


def test_aliasing_of_submodules_imported_during_the_run(tmp_path, monkeypatch):
    """A throwaway engine shows the finder at work on submodules nobody imported yet."""
    pkg = tmp_path / "lib" / "fake_engine_xyz"
    for name, text in FAKE_ENGINE.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    before = alias_keys()
    r = run(tmp_path, """\
        import torch.lazy
        from torch import lazy as again
        print(torch.__name__, torch.lazy.WHO, again is torch.lazy)
        # %%
        import torch.missing
        # %%
        import torch.broken
    """, engine="fake_engine_xyz")
    assert r.cells[0].stdout == "fake_engine_xyz fake_engine_xyz.lazy True\n"
    assert (r.cells[1].error.type, r.cells[1].error.message) == (
        "ModuleNotFoundError", "No module named 'torch.missing'")
    assert r.cells[2].error.message == "No module named 'a_module_that_does_not_exist_xyz'"
    lazy = sys.modules["fake_engine_xyz.lazy"]
    assert lazy.__spec__.name == "fake_engine_xyz.lazy"  # its own spec, not the alias's
    assert alias_keys() == before


def test_tracebacks_survive_a_change_of_directory(tmp_path):
    path = write(tmp_path, "import os\nos.chdir('/')\nraise ValueError('far away')\n")
    rel = os.path.relpath(path)
    err = scripting.run_script(rel, echo=False).cells[0].error
    assert f'File "{rel}", line 3, in <module>' in err.traceback
    assert "    raise ValueError('far away')" in err.traceback
