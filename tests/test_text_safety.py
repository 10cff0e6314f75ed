"""Text never breaks a writer, and never reaches the terminal raw (issue 23).

What a script names, prints or raises, and the file names it comes from, may hold lone
surrogates (not encodable as UTF-8), bytes that are not UTF-8 (a Latin-1 file name),
NUL, terminal escapes or text Graphviz would read as entities. Every writer (.dot, .svg,
--html, the terminal) takes it; what is shown is the real text, escaped where needed.
"""
import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from _cli_helpers import ROOT, invoke, process_env, write

from gradviz.safe_text import clean, utf8, visible

RAW = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")  # a control byte other than newline and tab


def test_lone_surrogates_are_escaped_not_fatal():
    assert clean("mod\udce8le.py") == "mod\\xe8le.py"  # a file name's byte that is not UTF-8
    assert clean("x\ud800") == "x\\ud800"
    assert utf8("a\ud800b") == b"a\\ud800b" and utf8("ü") == "ü".encode()
    assert visible("y\x1b]0;T\x07\ud800\x00") == "y^[]0;T\\x07\\ud800\\x00"


SURROGATES = """\
import torch
x = torch.ones(2, requires_grad=True)
globals()["y\\ud800"] = (x * 2).sum()
print("out \\ud800")
globals()["y\\ud800"].backward()
raise ValueError("bad \\ud800")
"""


@pytest.mark.parametrize("name", ["surrogates.py", os.fsdecode(b"mod\xe8le.py")])
def test_every_writer_takes_text_that_is_not_utf8(tmp_path, name):
    path = write(tmp_path, SURROGATES if name == "surrogates.py" else SURROGATES.split("raise")[0], name)
    for option, out in (("--html", "r.html"), ("--graph", "g.dot"), ("--graph", "g.svg")):
        r = invoke("run", path, option, tmp_path / out, "--tree")
        assert r.exit_code == (1 if name == "surrogates.py" else 0), r.stderr  # 1: the script raised
        assert "internal error" not in r.stderr
        text = (tmp_path / out).read_text(encoding="utf-8")  # valid UTF-8
        text = text.replace("\\\\", "\\")  # DOT doubles a label's backslashes
        assert "y\\ud800" in text
        if name != "surrogates.py":
            assert "mod\\xe8le.py" in text


def _dot_of(tmp_path, names):
    lines = ["import torch", "x = torch.ones(2, requires_grad=True)"]
    lines += [f"globals()[{n!r}] = x * {k + 2}" for k, n in enumerate(names)]
    path = write(tmp_path, "\n".join(lines) + "\n", "names.py")
    out = tmp_path / "g.dot"
    roots = [a for n in names for a in ("--root", n)]
    r = invoke("run", path, *roots, "--graph", out)
    assert r.exit_code == 0, r.stderr
    return out.read_text(encoding="utf-8")


def test_nul_and_over_long_names_give_a_valid_dot_shortened_visibly(tmp_path):
    pygraphviz = pytest.importorskip("pygraphviz")
    source = _dot_of(tmp_path, ["a\x00b", "n" * 20_000])
    assert "\x00" not in source and "a\\\\x00b" in source
    assert "nnn… (19,500 more characters)" in source
    pygraphviz.AGraph(string=source)  # Graphviz reads it (it refused a NUL and strings over 16,384 bytes)


def test_entity_like_names_are_drawn_literally(tmp_path):
    pygraphviz = pytest.importorskip("pygraphviz")
    source = _dot_of(tmp_path, ["a&amp;b", "c&#x41;", "d&lt;script&gt;"])
    graph = pygraphviz.AGraph(string=source)
    graph.layout("dot")
    svg = graph.draw(format="svg").decode("utf-8")
    # SVG escapes '&' once: the text a viewer shows is exactly the name
    for name in ("a&amp;b", "c&#x41;", "d&lt;script&gt;"):
        assert name.replace("&", "&amp;") in svg, name
    assert "<script>" not in svg and "&lt;script&gt;" not in svg.replace("&amp;lt;script&amp;gt;", "")


def test_show_takes_a_surrogate_name():
    pytest.importorskip("pygraphviz")
    import gradviz
    import gradviz.torch as torch

    t = (torch.ones(2, requires_grad=True) * 2).sum()
    bundle = gradviz.show({"x\ud800": t})._repr_mimebundle_()
    assert "x\\ud800" in bundle["image/svg+xml"]


def test_an_ascii_terminal_gets_escapes_not_a_failure(tmp_path):
    path = write(tmp_path, "import torch\nx = torch.ones(2, requires_grad=True)\nünï = (x * 2).sum()\n"
                           "ünï.backward()\n", "uni.py")
    env = {**process_env(), "PYTHONIOENCODING": "ascii", "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "gradviz", "run", path, "--tree"], capture_output=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert b"\\xfcn\\xef" in r.stdout and b"internal error" not in r.stderr


def test_invalid_utf8_expression_says_decode():
    r = subprocess.run([sys.executable, "-m", "gradviz", "graph", "-"], input=b"ones(3)\xff", capture_output=True,
                       env={**process_env(), "PYTHONPATH": str(ROOT)}, timeout=60)
    assert r.returncode == 2
    assert b"cannot decode the expression on stdin: byte 0xff" in r.stderr and b"encode" not in r.stderr


# --------------------------------------------------------------------------- every message, driven


HOSTILE = "y\x1b]0;T\x07\ud800\x00"
MESSAGES = f"""\
import torch
x = torch.ones(2, requires_grad=True)
globals()[{HOSTILE!r}] = (x * float("nan")).sum()
globals()[{HOSTILE!r}].backward()
# %%
del globals()[{HOSTILE!r}]
"""


@pytest.mark.slow
def test_no_name_or_path_reaches_the_terminal_raw(tmp_path):
    """A script named with ESC, names with ESC, BEL, a lone surrogate and NUL, through every
    message: the non-finite warning, No longer named, Graph of, root chosen by --root,
    backward graph of, Second backward on, --tree sites, Graph/Report written to."""
    folder = tmp_path / "d\x1bc"
    folder.mkdir()
    script = write(folder, MESSAGES, "s\x1b[31m\x07.py")
    env = {**process_env(), "PYTHONPATH": str(ROOT)}
    runs = [["--cells", "--changed-only", "--tree", "--graph", str(folder / "g\x1b.svg")],
            ["--root", "x", "--backward-twice", "--graph", str(folder / "o\x1b.dot"), "--html", str(folder / "r.html")]]
    for extra in runs:
        r = subprocess.run([sys.executable, "-m", "gradviz", "run", script, *extra], capture_output=True, env=env,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        for stream in (r.stdout, r.stderr):
            assert not RAW.search(stream), RAW.search(stream)
        text = (r.stdout + r.stderr).decode("utf-8")
        for shown in ("Graph written to", "s^[[31m\\x07.py"):
            assert shown in text
    first = subprocess.run([sys.executable, "-m", "gradviz", "run", script, "--cells", "--changed-only"],
                           capture_output=True, env=env, timeout=120).stdout.decode()
    assert "No longer named: y^[]0;T\\x07\\ud800\\x00" in first


# --------------------------------------------------------------------------- every template, read


SINKS = {"print", "Text", "echo", "append", "assemble"}  # what reaches a terminal (Text.append too)
SHOWN = {"visible", "visible_line", "_v"}  # the visible-text function and its aliases
# Expressions that look like a name or a path but are not printed raw, each with why.
NOT_PRINTED = {
    ("commands/explain.py", "diagnosis.error['message']"): "a note of the picture: dot._label shows it",
    ("commands/explain.py", "diagnosis.title"): "a note of the picture",
    ("commands/explain.py", "', '.join(named)"): "a note of the picture",
    ("commands/explain.py", "node.name"): "a note of the picture",
    ("commands/explain.py", "site"): "a note of the picture",
    ("commands/explain.py", "e.strerror or e"): "the system's reason; the line is made visible as a whole",
    ("commands/run.py", "self.first.error_line"): "a note of the picture",
    ("commands/run.py", "name"): "the --backward-twice notes: Streams.note and dot._label show them",
    ("render/tree.py", "name"): "already _v(...) above",
    ("render/tree.py", "node.site[1]"): "a line number",
    ("jupyter.py", "who"): "already visible_line(...) above",
}
UNTRUSTED = re.compile(r"\b(name|names|path|script|who|how|root_names|message|site|label|label_name|error_line|"
                       r"nothing|title|gone|named|roots|html_path|e)\b")


def _terminal_modules():
    pkg = ROOT / "gradviz"
    yield from (p for p in sorted((pkg / "commands").glob("*.py")) if p.name != "report.py")  # report: HTML
    yield from (pkg / "render" / n for n in ("tree.py", "tables.py", "values.py"))
    yield pkg / "jupyter.py"


def test_every_message_template_shows_names_and_paths_through_visible():
    """An f-string given to print/Text that interpolates something named like a name or a
    path must pass it through the visible-text function (or be listed in NOT_PRINTED)."""
    def called(f):
        return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None

    raw = []
    for path in _terminal_modules():
        where = str(path.relative_to(ROOT / "gradviz"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and called(node.func) in SINKS):
                continue
            args = list(node.args) + [e for a in node.args if isinstance(a, ast.Tuple) for e in a.elts]
            for part in (v for a in args if isinstance(a, ast.JoinedStr) for v in a.values):
                if not isinstance(part, ast.FormattedValue):
                    continue
                expr = ast.unparse(part.value)
                if any(isinstance(n, ast.Call) and called(n.func) in SHOWN for n in ast.walk(part.value)):
                    continue
                if UNTRUSTED.search(expr) and (where, expr) not in NOT_PRINTED:
                    raw.append(f"{where}:{part.lineno}: {{{expr}}}")
    assert not raw, "printed without visible():\n" + "\n".join(raw)
