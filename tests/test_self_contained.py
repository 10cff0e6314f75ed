"""The repository stands on its own: a user has the clone and nothing beside it.

No code, test, doc or script reads or points at a folder outside the checkout (the
team's ``shared`` folder next to it in particular), and every install line of the docs
works from a clone (the distribution is not on the package index).
"""
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE = "shared"  # the sibling folder of the team's checkouts
# Ways a path can climb out of the checkout to it: "../" and its name, ".." and its name
# joined, ROOT.parent / its name, parents[2] / its name, an absolute /work/ and its name.
# (The examples below spell the name through OUTSIDE, so that this file names no such path.)
LEAKS = [
    re.compile(r"\.\./+" + OUTSIDE + r"\b"),
    re.compile(r"""["']\.\.["']\s*,\s*["']""" + OUTSIDE + r"""["']"""),
    re.compile(r"""(?:\.parent|parents\[\d+\])\s*/\s*["']""" + OUTSIDE + r"""["']"""),
    re.compile(r"/work/" + OUTSIDE + r"\b"),
    re.compile(r"(?<![\w/.])" + OUTSIDE + r"/(?:errors|conformance|seeds|bench|notes|hooks)\b"),
]
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".json", ".ipynb", ".sh", ".yaml", ".yml", ".html", ""}


def project_files():
    try:
        listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.splitlines()
        files = [ROOT / name for name in listed]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout (an unpacked archive)
        files = [p for p in ROOT.rglob("*") if ".venv" not in p.parts and ".git" not in p.parts]
    return [p for p in files if p.is_file() and p.suffix in TEXT_SUFFIXES]


def test_nothing_points_outside_the_repository():
    files = project_files()
    assert len(files) > 100 and any(p.name == ".ci" or ".ci" in p.parts for p in files)
    leaks = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if any(p.search(line) for p in LEAKS):
                leaks.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert not leaks, "references outside the repository:\n" + "\n".join(leaks)


@pytest.mark.parametrize("line", [
    f"see ../{OUTSIDE}/conformance/README.md",
    f'SEEDS = os.path.join(ROOT, "..", "{OUTSIDE}", "seeds")',
    f'CASES = ROOT.parent / "{OUTSIDE}" / "conformance"',
    f'Path(__file__).resolve().parents[2] / "{OUTSIDE}" / "errors"',
    f'path = "/work/{OUTSIDE}/conformance"',
    f"one entry per id of ``{OUTSIDE}/errors/catalog.json``",
])
def test_the_scan_catches_every_way_out(line):
    assert any(p.search(line) for p in LEAKS)


def test_the_scan_leaves_our_own_words_alone():
    for line in ("(shared, shown above)", "tests/_explain_shared.py", 'shared = a.grad_fn._sig',
                 "tests/errors/catalog.json"):
        assert not any(p.search(line) for p in LEAKS)


def docs_text():
    return [(p, p.read_text(encoding="utf-8")) for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]]


def test_every_install_line_works_from_a_clone():
    """gradviz is installed from the checkout (``pip install -e .``): a name from the
    package index would install nothing, or somebody else's project."""
    for path, text in docs_text():
        for line in text.splitlines():
            for m in re.finditer(r"pip install ([^`\n&|;]+)", line):
                targets = [w for w in m.group(1).split("#", 1)[0].split() if not w.startswith("-")]
                ours = [w for w in targets if "gradviz" in w]
                assert not ours, f"{path.name}: {line.strip()}"
                assert all(w.strip("'\"").startswith(".") or re.match(r"^[\w.-]+(==[\w.+]+)?$", w.strip("'\""))
                           for w in targets), f"{path.name}: {line.strip()}"


def test_ci_runs_the_suite_in_a_users_environment(tmp_path):
    """.ci/run starts again through .ci/user-env, which keeps HOME, PATH and LANG alone:
    a green CI must not depend on a variable of our machines (PYTHONUNBUFFERED, ...)."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.index("exec .ci/user-env") < ci.index("pytest")
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1",
           "PYTHONDONTWRITEBYTECODE": "1", "CI": "true", "COLUMNS": "80"}
    done = subprocess.run([str(ROOT / ".ci" / "user-env"), "env"], env=env, capture_output=True, text=True,
                          check=True)
    assert sorted(done.stdout.splitlines()) == [f"HOME={tmp_path}", "LANG=C.UTF-8", "PATH=/usr/bin:/bin"]
    # the hardware's OpenBLAS settings are the machine's, not the user's: kept
    env["OPENBLAS_CORETYPE"] = "Haswell"
    done = subprocess.run([str(ROOT / ".ci" / "user-env"), "env"], env=env, capture_output=True, text=True,
                          check=True)
    assert "OPENBLAS_CORETYPE=Haswell" in done.stdout.splitlines() and "PYTHONUNBUFFERED=1" not in done.stdout


@pytest.mark.slow
def test_the_fast_subset_leaves_no_test_file_out():
    """``pytest -m "not slow"`` (the contributors' quick check) runs tests of every test file,
    so it touches every part of gradviz; only the slow ones are left to the full suite."""
    import sys

    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "not slow", "-p",
                           "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    fast_files = {line.split("::")[0] for line in done.stdout.splitlines() if "::" in line}
    all_files = {f"tests/{p.name}" for p in (ROOT / "tests").glob("test_*.py")}
    assert fast_files == all_files, sorted(all_files - fast_files)
    assert "deselected" in done.stdout  # and the slow ones are left out
