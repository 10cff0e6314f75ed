"""The README documents what the CLI does: the commands, the exit codes, the pictures,
and example output that is the real output. Also: `gradviz --help` stays quick."""
import os
import re
import subprocess
import sys
import time

from _cli_helpers import ROOT, check_png, check_svg, invoke

README = (ROOT / "README.md").read_text(encoding="utf-8")


def code_block_after(marker):
    """The first ``` block after ``marker`` in the README, without its fences."""
    rest = README.split(marker, 1)[1]
    return rest.split("```", 2)[1].split("\n", 1)[1]


def test_readme_documents_the_three_commands_and_the_exit_codes():
    for heading in ("## `gradviz run`", "## `gradviz graph`", "## `gradviz explain`", "## Commands and exit status"):
        assert heading in README, heading
    for option in ("--graph", "--root", "--view", "--max-nodes", "--tree", "--backward-twice", "--retain-graph",
                   "--lint", "--timeout", "--shape", "--var", "--seed", "--no-backward", "--json", "--list"):
        assert option in README, option
    table = README.split("## Commands and exit status", 1)[1].split("\n## ", 1)[0]
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 130 |"):
        assert code in table, code


def test_readme_shows_the_committed_pictures():
    for picture in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README):
        path = ROOT / picture
        assert path.exists(), picture
        if path.suffix == ".png":
            check_png(path)
    assert "docs/seed_graph.png" in README
    check_svg(ROOT / "docs" / "seed_graph.svg")


def test_the_quick_start_renders_the_graph():
    first = code_block_after("## Quick start").strip().splitlines()[0]
    assert first.endswith("gradviz run samples/seed_graph.py --graph seed_graph.svg")


def test_the_quick_start_command_works(tmp_path):
    p = subprocess.run([sys.executable, "-m", "gradviz", "run", str(ROOT / "samples" / "seed_graph.py"),
                        "--graph", "seed_graph.svg"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    check_svg(tmp_path / "seed_graph.svg")


def _pipe_output(*args):
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(NO_COLOR="1", TERM="dumb")
    p = subprocess.run([sys.executable, "-m", "gradviz", *args], capture_output=True, text=True, cwd=ROOT,
                       timeout=120, env=env)
    return p


def test_readme_graph_example_is_the_real_output():
    rest = README.split('$ gradviz graph "(x*y).sum()" --backward-twice\n', 1)[1].split("```", 1)[0]
    p = _pipe_output("graph", "(x*y).sum()", "--backward-twice")
    assert p.returncode == 0
    real = "\n".join(line.rstrip() for line in p.stdout.splitlines())
    for line in rest.strip("\n").splitlines():
        assert line.rstrip() in real, line


def test_readme_explain_example_is_the_real_output():
    rest = README.split('$ gradviz explain "grad can be implicitly created only for scalar outputs"\n', 1)[1]
    rest = rest.split("```", 1)[0]
    p = _pipe_output("explain", "grad can be implicitly created only for scalar outputs")
    assert p.returncode == 0
    assert p.stdout.strip() == rest.strip()


def test_readme_refused_examples_are_the_real_output():
    for expr in ("().__class__.__bases__", "ones(10**12)"):
        shown = README.split(f'$ gradviz graph "{expr}"\n', 1)[1].split("\n$ ", 1)[0].split("```", 1)[0]
        p = _pipe_output("graph", expr)
        assert p.returncode == 2
        assert p.stderr.strip() == shown.strip()


def test_help_is_quick_and_loads_nothing_heavy():
    code = ("import sys, time; t = time.perf_counter(); import gradviz.cli; "
            "print([m for m in ('rich', 'numpy', 'graphviz', 'gradviz.torch', 'gradviz.scripting', "
            "'gradviz.commands.run') if m in sys.modules])")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.stdout.strip() == "[]", p.stderr
    p = subprocess.run([sys.executable, "-c", "import sys, gradviz; print(sorted(m for m in ('click', 'rich', "
                        "'graphviz', 'numpy') if m in sys.modules))"], capture_output=True, text=True, cwd=ROOT)
    assert p.stdout.strip() == "[]", p.stderr
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "gradviz", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0 and "explain" in p.stdout and "graph" in p.stdout
    assert time.monotonic() - start < 5


def test_every_command_has_help_with_examples():
    for command in ("run", "graph", "explain"):
        r = invoke(command, "--help")
        assert r.exit_code == 0, command
        assert "Examples:" in r.stdout and "Exit status" in r.stdout, command
    r = invoke("--help")
    for command in ("run", "graph", "explain"):
        assert re.search(rf"^\s+{command}\s", r.stdout, re.M), command


def test_readme_notebook_example_is_the_real_output():
    shown = README.split("$ gradviz run samples/autograd_basics.ipynb\n...\n", 1)[1].split("```", 1)[0]
    p = _pipe_output("run", "samples/autograd_basics.ipynb")
    assert p.returncode == 1
    assert p.stderr.strip() == shown.strip()


def test_readme_shows_the_notebook_magic_show_and_report_workflows():
    for text in ("gradviz run samples/autograd_basics.ipynb", "%load_ext gradviz", "%%gradviz --backward-twice",
                 "gradviz.show(loss)", "--html report.html", "docs/report.png", "[jupyter]"):
        assert text in README, text
    check_png(ROOT / "docs" / "report.png")
