"""Conformance against real PyTorch, scored by the shared corpus's own ``compare.py``.

Two corpora are scored, both with ``python -m gradviz run SCRIPT --json`` as the command:

* ``tests/conformance/``: this project's own cases (issue 3's list: custom Functions,
  hooks, in-place ops and views, shapes and indexing, math and reductions, higher order,
  nn / F / optim, grad modes, checks). ``cases/`` holds the cell scripts and
  ``expected/`` what real PyTorch 2.13 did with them, recorded by the shared recorder::

      cd ../shared/conformance && python3 record.py /path/to/tests/conformance/cases/*.py \\
          --out /path/to/tests/conformance/expected

  Every check must pass.
* ``../shared/conformance/``: the public corpus (the seed documents); at least 99.9 %.

Scoring is never re-implemented here: ``compare.py`` is run as a subprocess and only its
report is read. The tests skip, saying why, when the shared directory is not there.
"""
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OWN = ROOT / "tests" / "conformance"
OWN_CASES, OWN_EXPECTED = OWN / "cases", OWN / "expected"
SHARED = ROOT.parent / "shared" / "conformance"
COMPARE = SHARED / "compare.py"

needs_shared = pytest.mark.skipif(
    not COMPARE.exists(),
    reason=f"the shared conformance corpus is not there ({COMPARE} is missing); "
           "it lives next to the project checkout as ../shared/conformance")

TOTAL = re.compile(r"^conformance: (\d+)/(\d+) checks", re.M)
CASE_LINE = re.compile(r"^(\S+\.py): (\d+)/(\d+)$")


def score(cases_dir, expected_dir, timeout=1800):
    """Run compare.py -v on a corpus; return (passed, total, {case: (ok, tot, [failures])}, report)."""
    cmd = f"{shlex.quote(sys.executable)} -m gradviz run {{script}} --json"
    p = subprocess.run([sys.executable, str(COMPARE), str(cases_dir), str(expected_dir), "--cmd", cmd, "-v"],
                       capture_output=True, text=True, cwd=ROOT, timeout=timeout)
    assert p.returncode == 0, f"compare.py failed ({p.returncode}):\n{p.stderr[-3000:]}"
    m = TOTAL.search(p.stdout)
    assert m, f"compare.py printed no total line:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    per_case, current = {}, None
    for line in p.stdout.splitlines():
        cm = CASE_LINE.match(line)
        if cm:
            current = cm.group(1)
            per_case[current] = (int(cm.group(2)), int(cm.group(3)), [])
        elif line.startswith("   ") and current is not None:
            per_case[current][2].append(line[3:])
    return int(m.group(1)), int(m.group(2)), per_case, p.stdout


def failure_report(per_case):
    """The exact failing checks, case by case (compare.py -v lists up to 40 per case)."""
    out = []
    for case, (ok, tot, fails) in sorted(per_case.items()):
        if ok != tot:
            out.append(f"{case}: {ok}/{tot}")
            out.extend("    " + f for f in fails)
    return "\n".join(out)


def cell_starts(source):
    """First line of every non-empty cell, as the recorder numbers them."""
    starts, cur, start = [], [], 1
    for i, line in enumerate(source.splitlines(keepends=True), 1):
        if line.startswith("# %%"):
            if "".join(cur).strip():
                starts.append(start)
            cur, start = [], i + 1
        else:
            cur.append(line)
    if "".join(cur).strip():
        starts.append(start)
    return starts


# --------------------------------------------------------------------------- own corpus


CASE_FILES = sorted(OWN_CASES.glob("*.py"))


def test_own_corpus_is_recorded_and_up_to_date():
    """Every case has a recording from real PyTorch 2.13 whose cells line up with the
    script as it is now (an edited case must be recorded again)."""
    assert len(CASE_FILES) >= 8, CASE_FILES
    recorded = sorted(p.stem for p in OWN_EXPECTED.glob("*.json"))
    assert recorded == [p.stem for p in CASE_FILES]
    for case in CASE_FILES:
        exp = json.loads((OWN_EXPECTED / f"{case.stem}.json").read_text())
        assert exp["script"] == case.name
        assert exp["torch_version"].startswith("2.13"), exp["torch_version"]
        lines = [c["line"] for c in exp["cells"]]
        assert lines == cell_starts(case.read_text(encoding="utf-8")), \
            f"{case.name} changed since it was recorded: run record.py again (see this module's docstring)"


def test_own_corpus_checks_values_not_only_metadata():
    """The cases are deterministic: almost every tensor's values are compared (record.py
    marks a tensor random when two seeds disagree; NaN statistics count as random too)."""
    tensors = random = 0
    for f in OWN_EXPECTED.glob("*.json"):
        for cell in json.loads(f.read_text())["cells"]:
            for t in cell["tensors"]:
                tensors += 1
                random += bool(t["data_random"] or t["grad_random"])
    assert tensors > 4000 and random / tensors < 0.02, (random, tensors)


@needs_shared
def test_own_corpus_conforms_fully():
    passed, total, per_case, report = score(OWN_CASES, OWN_EXPECTED)
    assert set(per_case) == {p.name for p in CASE_FILES}, report[-2000:]
    assert passed == total, (f"own conformance corpus: {passed}/{total} checks; failing checks:\n"
                             + failure_report(per_case))


# --------------------------------------------------------------------------- shared corpus


@needs_shared
def test_shared_corpus_stays_at_99_9_percent():
    passed, total, per_case, report = score(SHARED / "cases", SHARED / "expected")
    assert total > 0, report[-2000:]
    assert passed / total >= 0.999, (f"shared conformance corpus: {passed}/{total} checks "
                                     f"({100.0 * passed / total:.2f}%); failing checks:\n" + failure_report(per_case))
