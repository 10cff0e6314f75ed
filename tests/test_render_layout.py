"""gradviz.render.layout: pictures without system Graphviz, the system fallback, the time
limit and the pixel budget, whichever Graphviz draws."""
import os
import stat
import subprocess
import sys
import time

import pytest

from _cli_helpers import ROOT, SEED, check_png, check_svg
from gradviz.render import layout

SMALL = 'digraph { a -> b; b [label="hi", shape=box, style=filled, fillcolor=orange] }'


def big_graph(n=3000):
    return "digraph {\n" + "\n".join(f"n{i} -> n{(i * 7 + 3) % n}; n{i} -> n{(i * 13 + 5) % n};"
                                     for i in range(n)) + "\n}"


def test_a_fresh_machine_without_system_graphviz_draws_the_quick_start_picture(tmp_path):
    """The README's first quick-start command, with nothing of Graphviz's on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PATH"] = str(tmp_path / "empty-bin")  # no dot, no neato, not even python
    for out in ("seed_graph.svg", "seed_graph.png", "seed_graph.pdf"):
        p = subprocess.run([sys.executable, "-m", "gradviz", "run", SEED, "--graph", out], capture_output=True,
                           text=True, cwd=tmp_path, timeout=120, env=env)
        assert p.returncode == 0, p.stderr
        assert p.stderr == ""  # Graphviz's and fontconfig's chatter stays in the child
        assert f"Graph written to {out} (" in p.stdout
    check_svg(tmp_path / "seed_graph.svg")
    width, height = check_png(tmp_path / "seed_graph.png")
    assert width > 1000 and height > 500
    assert (tmp_path / "seed_graph.pdf").read_bytes().startswith(b"%PDF")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seed_graph.pdf", "seed_graph.png", "seed_graph.svg"]


def test_the_bundled_backend_is_used_when_pygraphviz_is_installed():
    assert layout.backend() == "bundled"


def test_each_format_is_drawn_and_measured():
    for fmt, magic in (("svg", b"<?xml"), ("png", b"\x89PNG"), ("pdf", b"%PDF")):
        data, width, height = layout.draw(SMALL, fmt)
        assert data.startswith(magic), fmt
        assert 40 < width < 200 and 80 < height < 300, (fmt, width, height)


def test_a_layout_over_the_time_limit_is_stopped(tmp_path):
    t0 = time.monotonic()
    with pytest.raises(layout.RenderError, match=r"^Graphviz did not lay out the graph within 0\.3 s; "
                                                 r"lower --max-nodes$"):
        layout.draw(big_graph(), "svg", timeout=0.3)
    assert time.monotonic() - t0 < 10


def test_a_picture_over_the_budget_is_refused_before_it_is_drawn(monkeypatch):
    calls = []
    real_run = layout._run
    monkeypatch.setattr(layout, "_run", lambda cmd, *a: calls.append(cmd[-2:]) or real_run(cmd, *a))
    with pytest.raises(layout.ImageTooLarge, match=r"refusing to render a 72 x 144 px picture \(over the "
                                                   r"budget of 1,000 px"):
        layout.draw(SMALL, "png", max_pixels=1000)
    assert [cmd[-1] for cmd in calls] == ["layout"]  # nothing was drawn


def test_a_graphviz_error_is_one_line_with_graphvizs_reason():
    with pytest.raises(layout.RenderError) as info:
        layout.draw("digraph { a -> }", "svg")
    assert str(info.value) == "Graphviz failed to lay out the graph: Error: syntax error in line 1 near '}'"


def test_the_child_refuses_what_it_does_not_know():
    p = subprocess.run([sys.executable, "-m", "gradviz.render.layout", "draw", "gif"], input=b"digraph {}",
                       capture_output=True, cwd=ROOT, timeout=60)
    assert p.returncode == 2 and b"usage: python -m gradviz.render.layout" in p.stderr


def _fake_graphviz(folder, name, step):
    """A `dot` / `neato` that behaves as Graphviz's own for the arguments gradviz passes."""
    path = folder / name
    boot = ("import sys, runpy; "
            f"sys.argv = ['layout'] + {step!r}.split() + [a[2:] for a in sys.argv[1:] if a.startswith('-T') "
            "and a != '-Tdot']; runpy.run_module('gradviz.render.layout', run_name='__main__')")
    path.write_text(f"#!/bin/sh\nexec {sys.executable} -c \"{boot}\" \"$@\"\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.skipif(sys.platform == "win32", reason="the stand-in programs are shell scripts")
def test_without_pygraphviz_the_system_programs_are_used(tmp_path, monkeypatch):
    """Where pygraphviz has no wheel, system Graphviz draws, with the same two steps."""
    calls = []
    real_run = layout._run
    monkeypatch.setattr(layout, "_run", lambda cmd, *a: calls.append(cmd) or real_run(cmd, *a))
    monkeypatch.setattr(layout, "_have_pygraphviz", lambda: False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    dot_program = _fake_graphviz(bin_dir, "dot", "layout")
    neato_program = _fake_graphviz(bin_dir, "neato", "draw")
    monkeypatch.setenv("PATH", str(bin_dir))
    assert layout.backend() == "system"
    data, width, height = layout.draw(SMALL, "png")
    assert data.startswith(b"\x89PNG")
    assert calls == [[str(dot_program), "-Tdot"], [str(neato_program), "-n2", "-Tpng"]]
    monkeypatch.undo()
    assert layout.draw(SMALL, "png")[1:] == (width, height)  # the same picture as the bundled backend's


def test_no_graphviz_anywhere_says_what_to_install(monkeypatch):
    monkeypatch.setattr(layout, "_have_pygraphviz", lambda: False)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert layout.backend() == ""
    with pytest.raises(layout.GraphvizNotFound, match=r"^cannot render: neither pygraphviz nor Graphviz's `dot` "
                                                      r"program is installed \(pip install pygraphviz"):
        layout.draw(SMALL, "svg")
