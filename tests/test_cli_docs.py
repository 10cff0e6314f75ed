"""The README and docs/ document what the CLI does: the commands, the exit codes, the pictures,
and example output that is the real output. Also: `gradviz --help` stays quick."""
import os
import re
import subprocess
import sys
import time

import pytest

from _cli_helpers import ROOT, all_docs, check_png, check_svg, doc, invoke

README = doc("README")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "conformance" / "README.md",
         ROOT / "bench" / "README.md"]


def code_block_after(marker, text=README):
    """The first ``` block after ``marker``, without its fences."""
    rest = text.split(marker, 1)[1]
    return rest.split("```", 2)[1].split("\n", 1)[1]


def test_docs_document_the_three_commands_and_the_exit_codes():
    for page, heading in (("run", "# `gradviz run`"), ("graph", "# `gradviz graph`"),
                          ("explain", "# `gradviz explain`"), ("cli", "# Commands and exit status")):
        assert doc(page).startswith(heading + "\n"), page
    docs = all_docs()
    for option in ("--graph", "--root", "--view", "--max-nodes", "--depth", "--tree", "--backward-twice", "--retain-graph",
                   "--lint", "--timeout", "--shape", "--var", "--seed", "--no-backward", "--json", "--list",
                   "--html", "--engine torch", "--precision", "--full-values", "--changed-only", "--cells",
                   "--by-module"):
        assert option in docs, option
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 130 |", "| 141 |"):
        assert code in doc("cli"), code


def test_the_readme_links_every_page_and_every_link_resolves():
    linked = set(re.findall(r"\]\((docs/[^)#]+\.md)\)", README))
    assert linked == {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" not in target:
                assert (page.parent / target).exists(), f"{page.relative_to(ROOT)}: {target}"


def test_the_readme_is_short():
    """A newcomer reads it in two minutes; the reference is in docs/."""
    assert len(README.splitlines()) <= 160


def test_every_picture_of_the_docs_is_committed():
    for page in PAGES:
        for picture in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text(encoding="utf-8")):
            path = page.parent / picture
            assert path.exists(), (page.name, picture)
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


def test_the_graph_example_is_the_real_output():
    rest = doc("graph").split('$ gradviz graph "(x*y).sum()" --backward-twice\n', 1)[1].split("```", 1)[0]
    p = _pipe_output("graph", "(x*y).sum()", "--backward-twice")
    assert p.returncode == 0
    real = "\n".join(line.rstrip() for line in p.stdout.splitlines())
    for line in rest.strip("\n").splitlines():
        assert line.rstrip() in real, line


def test_the_explain_example_is_the_real_output():
    rest = doc("explain").split('$ gradviz explain "grad can be implicitly created only for scalar outputs"\n', 1)[1]
    rest = rest.split("```", 1)[0]
    p = _pipe_output("explain", "grad can be implicitly created only for scalar outputs")
    assert p.returncode == 0
    assert p.stdout.strip() == rest.strip()


def test_the_refused_examples_are_the_real_output():
    for expr in ("().__class__.__bases__", "ones(10**12)"):
        shown = doc("graph").split(f'$ gradviz graph "{expr}"\n', 1)[1].split("\n$ ", 1)[0].split("```", 1)[0]
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


def test_the_notebook_example_is_the_real_output():
    shown = doc("run").split("$ gradviz run samples/autograd_basics.ipynb\n...\n", 1)[1].split("```", 1)[0]
    p = _pipe_output("run", "samples/autograd_basics.ipynb")
    assert p.returncode == 1
    assert p.stderr.strip() == shown.strip()


def test_the_docs_show_the_notebook_magic_show_and_report_workflows():
    for text in ("%load_ext gradviz", "%%gradviz", "gradviz.show(loss)"):
        assert text in README, text
    for page, text in (("run", "gradviz run samples/autograd_basics.ipynb"), ("jupyter", "%load_ext gradviz"),
                       ("jupyter", "%%gradviz --backward-twice"), ("jupyter", "gradviz.show(loss)"),
                       ("jupyter", "pip install -e '.[jupyter]'"), ("report", "--html report.html"),
                       ("report", "](report.png)")):
        assert text in doc(page), (page, text)
    check_png(ROOT / "docs" / "report.png")


README_EXAMPLES = re.findall(r"```\n\$ gradviz ([^\n]+)\n(.*?)```", README, re.S)


def test_the_readme_has_an_example_of_each_command():
    assert sorted({args.split()[0] for args, _ in README_EXAMPLES}) == ["explain", "graph", "run"]


@pytest.mark.parametrize("args, shown", README_EXAMPLES, ids=[a.split()[0] for a, _ in README_EXAMPLES])
def test_the_readme_examples_are_the_real_output_at_80_columns(args, shown, tmp_path):
    """Each line shown (but '...') is the real output's, in order; stdout only. Pictures
    go to a temporary folder, not into the checkout."""
    import shlex

    env = {k: v for k, v in os.environ.items() if k != "LINES"}
    env.update(COLUMNS="80", NO_COLOR="1", TERM="dumb")
    argv = shlex.split(args)
    argv = [str(tmp_path / a) if k and argv[k - 1] in ("--graph", "-o", "--html") else a for k, a in enumerate(argv)]
    p = subprocess.run([sys.executable, "-m", "gradviz", *argv], capture_output=True, text=True,
                       cwd=ROOT, timeout=120, env=env)
    real = [line.rstrip() for line in p.stdout.splitlines()]
    pos = 0
    for line in shown.splitlines():
        if line == "...":
            continue
        assert line.rstrip() in real[pos:], (args, line, p.stdout)
        pos = real.index(line.rstrip(), pos) + 1
