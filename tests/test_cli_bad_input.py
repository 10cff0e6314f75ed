"""The bad-input matrix (issue 8): every case gives a clear message on stderr and a
documented exit status, and none shows a gradviz traceback. Errors in the user's own
code show the user's traceback (and only that).

Exit status: 0 ok, 1 the script/expression raised (or --timeout, or explain does not
know the message), 2 usage error / refused input / output that cannot be written,
3 internal error, 130 interrupted.
"""
import os
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

import pytest

from _cli_helpers import SEED, invoke, write

GRADVIZ_DIR = os.path.join("gradviz", "")


@dataclass
class Case:
    id: str
    args: Callable  # tmp_path -> list of arguments
    code: int
    message: str  # a regex the stderr must match (re.search)
    one_line: bool = False  # stderr is exactly one line
    input: Optional[str] = None
    stdout: Optional[str] = None  # a regex stdout must match
    check: Optional[Callable] = None  # extra check: (tmp_path, result) -> None
    env: dict = field(default_factory=dict)
    no_pygraphviz: bool = False  # as on a machine where pygraphviz has no wheel


def script(text, name="script.py"):
    def make(tmp_path):
        return write(tmp_path, text, name)
    return make


def raw(data, name="script.py"):
    def make(tmp_path):
        p = tmp_path / name
        p.write_bytes(data)
        return str(p)
    return make


def files(*names):
    def check(tmp_path, r):
        assert sorted(p.name for p in tmp_path.iterdir() if p.suffix != ".py") == sorted(names)
    return check


TENSOR = "import torch\nx = torch.ones(3, requires_grad=True)\ny = (x * 2).sum()\n"

CASES = [
    # ------------------------------------------------------------------ files (run)
    Case("run-missing-file", lambda t: ["run", t / "nope.py"], 2,
         r"^gradviz run: error: no such file: '.*nope\.py' \(see 'gradviz run --help'\)$", one_line=True),
    Case("run-directory", lambda t: ["run", t], 2, r"^gradviz run: error: '.*' is a directory, not a script",
         one_line=True),
    Case("run-binary-file", lambda t: ["run", raw(b"\x7fELF\x02\x01\x01\x00\x00\x00")(t)], 2,
         r"^gradviz run: error: '.*script\.py' is a binary file, not a Python script", one_line=True),
    Case("run-non-utf8", lambda t: ["run", raw(b"x = 'caf\xe9'\n")(t)], 2,
         r"^gradviz run: error: cannot decode '.*': it is not UTF-8 text \(byte 0xe9 at offset 8\)",
         one_line=True),
    Case("run-utf16", lambda t: ["run", raw("x = 1\n".encode("utf-16"))(t)], 2,
         r"^gradviz run: error: cannot decode '.*': it is UTF-16 text; save it as UTF-8", one_line=True),
    Case("run-syntax-error", lambda t: ["run", script("x = 1\nif x\n    y = 2\n")(t)], 1,
         r'File ".*script\.py", line 2\n    if x\n        \^\nSyntaxError: expected \':\''),
    Case("run-bad-coding-cookie", lambda t: ["run", script("# -*- coding: klingon -*-\nx = 1\n")(t)], 2,
         r"^gradviz run: error: cannot decode '.*': unknown encoding", one_line=True),
    # ------------------------------------------------------------------ how the script ends
    Case("run-sys-exit-3", lambda t: ["run", script("import sys\nsys.exit(3)\n")(t)], 1,
         r"SystemExit: 3"),
    Case("run-sys-exit-0", lambda t: ["run", script("import sys\nprint('bye')\nsys.exit(0)\n")(t)], 0, r"^$",
         stdout=r"^bye\n"),
    Case("run-keyboard-interrupt", lambda t: ["run", script(TENSOR + "raise KeyboardInterrupt\n")(t)], 130,
         r"gradviz: interrupted; the table shows what the script had computed", stdout=r"\ny +\(\)"),
    Case("run-endless-loop-timeout", lambda t: ["run", script(TENSOR + "while True:\n    pass\n")(t),
                                                "--timeout", "1"], 1,
         r"TimeoutError: the script ran longer than 1 s and was stopped \(--timeout\)", stdout=r"\ny +\(\)"),
    Case("run-memory-error", lambda t: ["run", script("import torch\nx = torch.ones(10**12)\n")(t)], 1,
         r"RuntimeError: \[enforce fail at alloc_cpu.cpp:127\] err == 0. DefaultCPUAllocator: can.t allocate memory: "
         r"you tried to allocate 4000000000000 bytes"),
    Case("run-user-exception", lambda t: ["run", script("def f():\n    raise ValueError('mine')\nf()\n")(t)], 1,
         r'Traceback \(most recent call last\):\n  File ".*script\.py", line 3, in <module>\n    f\(\)\n'
         r'  File ".*script\.py", line 2, in f\n    raise ValueError\(\'mine\'\)\nValueError: mine'),
    # ------------------------------------------------------------------ values and names
    Case("run-nan-inf", lambda t: ["run", script("import torch\nx = torch.tensor([1.0, 0.0], requires_grad=True)\n"
                                                 "y = (x.log() * x).sum()\ny.backward()\n"
                                                 "z = torch.tensor([1.0]) / 0\n")(t)], 0,
         r"gradviz: warning: x\.grad has nan values\ngradviz: warning: y has nan values\n"
         r"gradviz: warning: z has inf values", stdout=r"\nz +\(1,\) .* \[inf\]"),
    Case("run-unicode-names", lambda t: ["run", script("import torch\nπ = torch.ones(2, requires_grad=True)\n"
                                                       "größe = (π * 2).sum()\ngröße.backward()\n")(t),
                                         "--graph", "-"], 0, r"\nπ +\(2,\)", stdout=r'label="größe'),
    Case("run-empty-script", lambda t: ["run", script("")(t)], 0, r"^$", stdout=r"no named tensors"),
    Case("run-no-tensors", lambda t: ["run", script("print('hello')\n")(t)], 0, r"^$",
         stdout=r"^hello\n\n.*: no named tensors"),
    # ------------------------------------------------------------------ output
    Case("run-unwritable-path", lambda t: ["run", SEED, "--graph", "/sys/gradviz-test.dot"], 2,
         r"gradviz run: error: cannot write '/sys/gradviz-test\.dot': (Permission denied|permission denied|"
         r"Operation not permitted|Read-only file system|No such file)"),
    Case("run-missing-folder", lambda t: ["run", SEED, "--graph", t / "no" / "g.svg"], 2,
         r"^gradviz run: error: cannot write '.*g\.svg': the folder '.*no' does not exist$", one_line=True,
         check=files()),
    Case("run-unknown-extension", lambda t: ["run", SEED, "--graph", t / "g.jpeg"], 2,
         r"^gradviz run: error: cannot write '.*g\.jpeg': unknown graph format '\.jpeg' "
         r"\(use \.dot, \.gv, \.svg, \.png or \.pdf\)$", one_line=True, check=files()),
    Case("run-no-extension", lambda t: ["run", SEED, "--graph", t / "graph"], 2,
         r"^gradviz run: error: cannot write '.*graph': add an extension", one_line=True),
    Case("run-output-is-a-directory", lambda t: ["run", SEED, "--graph", t / "d.svg"], 2,
         r"^gradviz run: error: cannot write '.*d\.svg': it is a directory$", one_line=True),
    Case("run-no-system-graphviz", lambda t: ["run", SEED, "--graph", t / "g.svg"], 0, r"^$",
         stdout=r"Graph written to .*g\.svg \(SVG, ", check=files("g.svg"), env={"PATH": "/nonexistent"}),
    Case("run-no-graphviz-at-all", lambda t: ["run", SEED, "--graph", t / "g.svg"], 2,
         r"^gradviz run: error: cannot render: neither pygraphviz nor Graphviz's `dot` program is installed "
         r"\(pip install pygraphviz, or install Graphviz, e\.g\. `apt-get install graphviz`\); the DOT source "
         r"was written to .*g\.dot$", check=files("g.dot"), env={"PATH": "/nonexistent"}, no_pygraphviz=True),
    Case("run-unknown-root", lambda t: ["run", SEED, "--graph", t / "g.dot", "--root", "nope"], 2,
         r"^gradviz run: error: --root nope: the script has no tensor named 'nope' after the run \(named "
         r"tensors: a, w1, w2, w3, w4, b, c, d, L\)$", check=files()),
    Case("run-nothing-to-draw", lambda t: ["run", script("x = 1\n")(t), "--graph", t / "g.dot"], 2,
         r"^gradviz run: error: nothing to draw: the script made no backward call", check=files()),
    Case("run-json-and-dot-on-stdout", lambda t: ["run", SEED, "--json", "--graph", "-"], 2,
         r"^gradviz run: error: --json and --graph - both want stdout", one_line=True),
    Case("run-negative-max-nodes", lambda t: ["run", SEED, "--graph", "-", "--max-nodes", "-1"], 2,
         r"^gradviz run: error: Invalid value for '--max-nodes'", one_line=True),
    Case("run-zero-timeout", lambda t: ["run", SEED, "--timeout", "0"], 2,
         r"^gradviz run: error: Invalid value for '--timeout'", one_line=True),
    Case("run-bad-view", lambda t: ["run", SEED, "--view", "sideways"], 2,
         r"^gradviz run: error: Invalid value for '--view'", one_line=True),
    Case("run-unknown-option", lambda t: ["run", SEED, "--colour"], 2,
         r"^gradviz run: error: No such option:? '?--colour", one_line=True),
    # ------------------------------------------------------------------ graph
    Case("graph-empty", lambda t: ["graph", ""], 2, r"^gradviz graph: error: the expression is empty",
         one_line=True),
    Case("graph-empty-stdin", lambda t: ["graph", "-"], 2, r"^gradviz graph: error: the expression is empty",
         input="  \n", one_line=True),
    Case("graph-syntax-error", lambda t: ["graph", "(x*y).sum("], 2,
         r"^gradviz graph: error: syntax error: .*\n  \(x\*y\)\.sum\(\n +\^"),
    Case("graph-refused-import", lambda t: ["graph", "__import__('os').system('touch pwned')", "-o",
                                            t / "g.svg"], 2,
         r"^gradviz graph: error: calling '__import__' is not allowed.*\n  __import__\('os'\).*\n  \^+$",
         check=files()),
    Case("graph-huge-allocation", lambda t: ["graph", "ones(10**12)"], 2,
         r"^gradviz graph: error: ones\(\) would create a tensor of 1,000,000,000,000 elements; the limit is "
         r"10,000,000 elements per tensor\n  ones\(10\*\*12\)\n  \^{12}$"),
    Case("graph-nul-character", lambda t: ["graph", "x\x00.sum()"], 2, r"^gradviz graph: error: "),
    Case("graph-bad-var", lambda t: ["graph", "x.sum()", "--var", "x"], 2,
         r"^gradviz graph: error: --var expects NAME=SHAPE or NAME=VALUE", one_line=True),
    Case("graph-var-not-a-leaf", lambda t: ["graph", "x.sum()", "--var", "y=3"], 2,
         r"^gradviz graph: error: --var y: 'y' does not appear in the expression as a free name \(its free "
         r"names: x\)$", one_line=True),
    Case("graph-bad-var-value", lambda t: ["graph", "x.sum()", "--var", "x=open('f')"], 2,
         r"^gradviz graph: error: --var x: "),
    Case("graph-bad-shape", lambda t: ["graph", "x.sum()", "--shape", "three"], 2,
         r"^gradviz graph: error: shape 'three' is not a shape; write it as 3,3 or 3x3$", one_line=True),
    Case("graph-runtime-error", lambda t: ["graph", "x @ y", "--var", "x=2x3", "--var", "y=2x3"], 1,
         r"^gradviz graph: the expression raised RuntimeError: mat1 and mat2 shapes cannot be multiplied "
         r"\(2x3 and 2x3\)\n  x @ y\n  \^{5}\n", stdout=r"Tensors computed before the error"),
    Case("graph-unknown-extension", lambda t: ["graph", "x.sum()", "-o", t / "g.bmp"], 2,
         r"^gradviz graph: error: cannot write '.*g\.bmp': unknown graph format '\.bmp'", one_line=True),
    Case("graph-no-backward-and-twice", lambda t: ["graph", "x.sum()", "--no-backward", "--backward-twice"], 2,
         r"^gradviz graph: error: --backward-twice needs a backward pass: drop --no-backward", one_line=True),
    Case("graph-no-system-graphviz", lambda t: ["graph", "x.sum()", "-o", t / "g.png"], 0, r"^$",
         stdout=r"Graph written to .*g\.png \(PNG, ", check=files("g.png"), env={"PATH": "/nonexistent"}),
    Case("graph-no-graphviz-at-all", lambda t: ["graph", "x.sum()", "-o", t / "g.png"], 2,
         r"gradviz graph: error: cannot render: neither pygraphviz nor Graphviz's `dot` program is installed .* "
         r"the DOT source was written to .*g\.dot$", check=files("g.dot"), env={"PATH": "/nonexistent"},
         no_pygraphviz=True),
    Case("graph-missing-argument", lambda t: ["graph"], 2,
         r"^gradviz graph: error: Missing argument 'EXPRESSION'\.", one_line=True),
    # ------------------------------------------------------------------ explain
    Case("explain-nothing", lambda t: ["explain"], 2, r"^gradviz explain: error: nothing to explain",
         one_line=True),
    Case("explain-empty-message", lambda t: ["explain", "  "], 2,
         r"^gradviz explain: error: nothing to explain: the message is empty", one_line=True),
    Case("explain-empty-stdin", lambda t: ["explain", "-"], 2,
         r"^gradviz explain: error: nothing to explain: stdin was empty", input="", one_line=True),
    Case("explain-missing-script", lambda t: ["explain", t / "nope.py"], 2,
         r"^gradviz explain: error: no such file: '.*nope\.py'", one_line=True),
    Case("explain-directory", lambda t: ["explain", t], 2, r"^gradviz explain: error: '.*' is a directory",
         one_line=True),
    Case("explain-binary-script", lambda t: ["explain", raw(b"\x00\x01\x02")(t)], 2,
         r"^gradviz explain: error: '.*' is a binary file, not a Python script", one_line=True),
    Case("explain-binary-log", lambda t: ["explain", raw(b"\x00\x01\x02", "log.bin")(t)], 2,
         r"^gradviz explain: error: '.*log\.bin' is a binary file, not an error message", one_line=True),
    Case("explain-unknown-message", lambda t: ["explain", "the flux capacitor is out of plutonium"], 1, r"^$",
         stdout=r"Unknown message"),
    Case("explain-list-with-message", lambda t: ["explain", "--list", "boom"], 2,
         r"^gradviz explain: error: --list takes no message or script", one_line=True),
    Case("explain-graph-for-a-message", lambda t: ["explain", "boom", "--graph", t / "g.svg"], 2,
         r"^gradviz explain: error: --graph needs a script", one_line=True, check=files()),
    Case("explain-endless-script", lambda t: ["explain", script("while True:\n    pass\n")(t), "--timeout", "1"],
         1, r"^gradviz explain: error: the script did not reach an error within 1 s", one_line=True),
    Case("explain-graph-unknown-extension", lambda t: ["explain", SEED, "--graph", t / "g.txt"], 2,
         r"^gradviz explain: error: cannot write '.*g\.txt': unknown graph format", one_line=True),
    # ------------------------------------------------------------------ seeds manual_seed refuses (issue 23)
    # an option error (exit 2, one line), not the expression's failure with an explain panel
    Case("graph-seed-above-uint64", lambda t: ["graph", "x.sum()", "--seed", str(2 ** 64)], 2,
         r"^gradviz graph: error: Invalid value for '--seed': 18446744073709551616 is not a seed manual_seed "
         r"takes: give an integer from -9223372036854775808 to 18446744073709551615", one_line=True),
    Case("graph-seed-below-int64", lambda t: ["graph", "x.sum()", f"--seed={-2 ** 63 - 1}", "--engine", "torch"],
         2, r"^gradviz graph: error: Invalid value for '--seed': -9223372036854775809 is not a seed", one_line=True),
    Case("graph-seed-expression", lambda t: ["graph", "x.sum()", "--seed", "2**64"], 2,
         r"^gradviz graph: error: Invalid value for '--seed': '2\*\*64' is not a valid integer", one_line=True),
    Case("graph-seed-edges-accepted", lambda t: ["graph", "x.sum()", "--seed", str(2 ** 64 - 1)], 0, r"^$"),
    Case("graph-seed-negative-accepted", lambda t: ["graph", "x.sum()", f"--seed={-2 ** 63}"], 0, r"^$"),
    # ------------------------------------------------------------------ the group
    Case("unknown-command", lambda t: ["plot"], 2, r"^gradviz: error: No such command 'plot'", one_line=True),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.svg").mkdir()
    args = case.args(tmp_path)
    if case.env:
        for k, v in case.env.items():
            monkeypatch.setenv(k, v)
    if case.no_pygraphviz:
        from gradviz.render import layout

        monkeypatch.setattr(layout, "_have_pygraphviz", lambda: False)
    r = invoke(*args, input=case.input)
    assert r.exit_code == case.code, (r.exit_code, r.stdout[-2000:], r.stderr[-2000:])
    assert re.search(case.message, r.stderr, re.M if case.message.startswith("^") and "\\n" not in case.message
                     else 0), r.stderr
    if case.one_line:
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    if case.stdout is not None:
        assert re.search(case.stdout, r.stdout), r.stdout
    # never gradviz's own traceback: tracebacks show the user's frames only
    for line in r.stderr.splitlines():
        if line.startswith('  File "'):
            assert GRADVIZ_DIR not in line or "site-packages" in line, line
    assert "internal error" not in r.stderr
    (tmp_path / "d.svg").rmdir()
    if case.check is not None:
        case.check(tmp_path, r)


def test_the_matrix_is_big_enough():
    assert len(CASES) >= 25
    assert {c.code for c in CASES} == {0, 1, 2, 130}


def test_internal_errors_are_one_line_exit_3(monkeypatch):
    from gradviz.commands import common

    def broken(*a, **k):
        raise RuntimeError("renderer exploded")

    monkeypatch.setattr(common, "write_graph", broken)
    r = invoke("graph", "x.sum()", "-o", "-")
    assert r.exit_code == 3
    assert r.stderr.strip() == ("gradviz: internal error: RuntimeError: renderer exploded "
                                "(set GRADVIZ_DEBUG=1 for the traceback)")


def test_an_oversized_picture_is_refused(tmp_path, monkeypatch):
    from gradviz.render import layout

    monkeypatch.setattr(layout, "_size", lambda laid_out: (100_000, 100_000))
    out = tmp_path / "g.png"
    r = invoke("run", SEED, "--graph", out)
    assert r.exit_code == 2
    assert "gradviz run: error: refusing to render a 100,000 x 100,000 px picture" in r.stderr
    assert not out.exists() and (tmp_path / "g.dot").exists()


def test_a_failed_render_leaves_no_partial_file(tmp_path, monkeypatch):
    from gradviz.render import dot

    out = tmp_path / "g.svg"
    out.write_text("<svg>old</svg>")

    def fail(*a, **k):
        raise dot.RenderError("Graphviz failed to lay out the graph: boom")

    monkeypatch.setattr(dot, "draw", fail)
    r = invoke("graph", "x.sum()", "-o", out)
    assert r.exit_code == 2
    assert out.read_text() == "<svg>old</svg>"  # the old file is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.dot", "g.svg"]  # no temporary files


@pytest.mark.parametrize("option, name, start", [("--graph", "g.dot", "digraph"), ("--html", "r.html", "<!DOCTYPE")])
def test_read_only_folder(tmp_path, option, name, start):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        r = invoke("run", SEED, option, folder / name)
        if os.geteuid() == 0:  # root writes anyway; the file must then be whole
            assert r.exit_code == 0 and (folder / name).read_text().startswith(start)
        else:
            assert r.exit_code == 2 and "permission denied" in r.stderr
    finally:
        folder.chmod(0o700)
    assert [p.name for p in folder.iterdir()] in ([], [name])  # no temporary file left


def test_output_under_a_file(tmp_path):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    r = invoke("run", SEED, "--graph", blocker / "g.dot")
    assert r.exit_code == 2 and "is not a folder" in r.stderr
