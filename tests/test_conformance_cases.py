"""The conformance corpus in ``conformance/``: gradviz against what real PyTorch 2.13 did.

The corpus has two parts, both scored by the project's own ``conformance/score.py`` (the
README's command) and recorded by ``conformance/record.py``:

* ``s*`` cases: the seed documents' code, cell for cell (``conformance/sources/``);
* ``c*`` cases: this project's own (custom Functions, hooks, in-place ops and views,
  shapes and indexing, math and reductions, higher order, nn / F / optim, grad modes,
  checks, graph introspection, aliasing).

Every own check must pass; the seed cases stay at 99.9 % at least (the known miss is a
matmul's last bit, printed); the whole corpus at 99.5 % at least.
"""
import functools
import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "conformance"
CASES, EXPECTED, SOURCES = CORPUS / "cases", CORPUS / "expected", CORPUS / "sources"
CASE_FILES = sorted(CASES.glob("*.py"))


def _load(name):
    spec = importlib.util.spec_from_file_location(f"conformance_{name}", CORPUS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


score = _load("score")


def recording(case):
    return json.loads((EXPECTED / f"{Path(case).stem}.json").read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def scored():
    """The whole corpus scored once: {case: CaseScore}."""
    return score.score_corpus()


def failure_report(scores):
    return "\n".join(f"{s.name}: {s.passed}/{s.total}\n    " + "\n    ".join(s.failures)
                     for s in scores if s.passed != s.total)


# --------------------------------------------------------------------------- the corpus itself


def test_every_case_is_recorded_by_pytorch_2_13_as_it_is_now():
    """Every case has a recording whose cells line up with the script as it is now (an
    edited case must be recorded again: ``python conformance/record.py CASE``)."""
    assert {p.stem[0] for p in CASE_FILES} == {"c", "s", "t"} and len(CASE_FILES) >= 20
    assert sorted(p.stem for p in EXPECTED.glob("*.json")) == [p.stem for p in CASE_FILES]
    record = _load("record")
    for case in CASE_FILES:
        exp = recording(case)
        assert exp["script"] == case.name
        assert exp["torch_version"].startswith("2.13"), exp["torch_version"]
        lines = [first for first, _ in record.split_cells(case.read_text(encoding="utf-8"))]
        assert [c["line"] for c in exp["cells"]] == lines, f"{case.name} changed since it was recorded"


def test_every_seed_case_has_its_source_document():
    seeds = [p.stem for p in CASE_FILES if p.stem.startswith("s")]
    assert seeds and sorted(p.stem for p in SOURCES.glob("*.txt")) == seeds


def test_the_corpus_checks_values_not_only_metadata():
    """Almost every tensor's values in our own cases are compared (record.py marks a tensor
    random only when two runs with different seeds disagree; the seed documents draw
    random numbers freely)."""
    tensors = random = 0
    for case in (p for p in CASE_FILES if p.stem.startswith("c")):
        for cell in recording(case)["cells"]:
            for t in cell["tensors"]:
                tensors += 1
                random += bool(t["data_random"] or t["grad_random"])
    assert tensors > 4000 and random / tensors < 0.02, (random, tensors)


# --------------------------------------------------------------------------- the score


@pytest.mark.slow
def test_the_readme_command_prints_the_score():
    """``python conformance/score.py`` (here on two cases) prints each case's score, the
    split by kind and, last, the total that the in-process scoring finds."""
    done = subprocess.run([sys.executable, str(CORPUS / "score.py"), "s003", "c15", "-v"], capture_output=True,
                          text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    scores = score.score_corpus(only=("s003", "c15"))
    passed, total = sum(s.passed for s in scores), sum(s.total for s in scores)
    lines = done.stdout.splitlines()
    assert lines[-1] == f"conformance: {passed}/{total} checks ({100.0 * passed / total:.1f}%)"
    assert lines[-2].startswith("by kind: error ")
    assert [s.name for s in scores] == ["c15_edge_gradients.py", "s003_graph_tutorial.py"]
    assert [line for line in lines if not line.startswith(("by kind", "conformance", " "))] == \
        [f"{s.name}: {s.passed}/{s.total}" for s in scores]


@pytest.mark.slow
def test_own_cases_conform_fully():
    own = [s for s in scored() if s.name.startswith("c")]
    assert len(own) >= 16
    assert all(s.passed == s.total for s in own), failure_report(own)


@pytest.mark.slow
def test_tutorial_cases_stay_at_99_8_percent():
    """The tutorial tier (t*), written like the held-out corpora: whole lessons, whose few
    misses are the documented last bits (docs/limits.md: matmul, float32 transcendentals),
    which Adam steps and long prints can make visible."""
    lessons = [s for s in scored() if s.name.startswith("t")]
    passed, total = sum(s.passed for s in lessons), sum(s.total for s in lessons)
    assert len(lessons) >= 4 and total > 25000 and passed / total >= 0.998, failure_report(lessons)


@pytest.mark.slow
def test_seed_cases_stay_at_99_9_percent():
    seeds = [s for s in scored() if s.name.startswith("s")]
    passed, total = sum(s.passed for s in seeds), sum(s.total for s in seeds)
    assert total > 7000 and passed / total >= 0.999, failure_report(seeds)


@pytest.mark.slow
def test_the_whole_corpus_scores_at_least_99_5_percent():
    scores = scored()
    passed, total = sum(s.passed for s in scores), sum(s.total for s in scores)
    assert total > 50000 and passed / total >= 0.995, failure_report(scores)


def test_min_makes_the_scorer_fail_below_it():
    done = subprocess.run([sys.executable, str(CORPUS / "score.py"), "s003", "--min", "100.1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 1 and done.stdout.splitlines()[-1].startswith("conformance: ")


# --------------------------------------------------------------------------- the scorer's rules


@pytest.mark.parametrize("case", [p.stem for p in CASE_FILES])
def test_a_crash_never_shrinks_the_denominator(case):
    """What a run that printed nothing, or died after some cells, is scored against: every
    check the case has, each failed."""
    exp = recording(case)
    perfect = score.score_case(exp, exp)
    assert perfect.passed == perfect.total > 0
    crashed = score.score_case(exp, {})
    assert (crashed.passed, crashed.total) == (0, perfect.total)
    half = {"cells": exp["cells"][: len(exp["cells"]) // 2]}
    assert score.score_case(exp, half).total == perfect.total


def test_a_missing_tensor_fails_every_check_it_would_have_had():
    exp = recording("c01_custom_functions")
    cell = next(c for c in exp["cells"] if any(t["grad"] for t in c["tensors"]))
    gone = dict(cell, tensors=[t for t in cell["tensors"] if not t["grad"]])
    one = {"cells": [cell]}
    full, partial = score.score_case(one, one), score.score_case(one, {"cells": [gone]})
    assert full.total == partial.total
    missing = [t for t in cell["tensors"] if t["grad"]]
    assert full.passed - partial.passed == sum(score.checks_of_tensor(t) for t in missing)
    assert all(f.endswith("missing") for f in partial.failures)


def test_strict_json_strings_match_a_recorded_nan(tmp_path):
    """record.py writes PyTorch's NaN as bare NaN (Python's json); gradviz's strict JSON
    writes the strings "NaN" and "Infinity", which must still score."""
    (tmp_path / "cases").mkdir()
    (tmp_path / "expected").mkdir()
    (tmp_path / "cases" / "nan_case.py").write_text("import torch\nx = torch.tensor([1.0, float('nan'), float('inf')])\n")
    nan = float("nan")
    exp = {"script": "nan_case.py", "cells": [{"line": 1, "stdout": "", "error": None, "tensors": [{
        "name": "x", "shape": [3], "dtype": "float32", "requires_grad": False, "is_leaf": True,
        "retains_grad": False, "grad_fn": None, "data": [1.0, nan, math.inf],
        "stats": {"min": nan, "max": nan, "mean": nan, "norm": nan}, "grad": None}]}]}
    (tmp_path / "expected" / "nan_case.json").write_text(json.dumps(exp))
    done = subprocess.run([sys.executable, str(CORPUS / "score.py"), "--cases", str(tmp_path / "cases"),
                           "--expected", str(tmp_path / "expected"), "-v"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.stdout.splitlines()[-1] == "conformance: 9/9 checks (100.0%)", done.stdout


def test_values_are_compared_within_tolerance_only():
    assert score.close([1.0, [2.0, "NaN"]], [1.0 + 1e-6, [2.0, math.nan]])
    assert not score.close([1.0], [1.01]) and not score.close([1.0], [1.0, 2.0])
    assert score.close("Infinity", math.inf) and not score.close("-Infinity", math.inf)


# --------------------------------------------------------------------------- the recorder


@pytest.mark.slow
def test_the_recorder_writes_the_schema_and_marks_what_is_random(tmp_path):
    pytest.importorskip("torch")
    case = tmp_path / "tiny.py"
    case.write_text("import torch\n# %%\nx = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\n"
                    "print(x.grad)\n# %%\nr = torch.randn(3)\nprint(r)\n# %%\nu = torch.empty(4)\n"
                    "# %%\nx.grad.view(5)\n")
    done = subprocess.run([sys.executable, str(CORPUS / "record.py"), str(case), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    exp = json.loads((tmp_path / "tiny.json").read_text())
    assert exp["script"] == "tiny.py" and exp["torch_version"].startswith("2.13")
    cells = exp["cells"]
    assert [c["line"] for c in cells] == [1, 3, 7, 10, 12]  # `import torch` is a cell of its own
    cells = cells[1:]
    x = cells[0]["tensors"][0]
    assert x["name"] == "x" and x["grad"]["data"] == [3.0, 3.0] and not x["data_random"]
    assert cells[0]["stdout"] == "tensor([3., 3.])\n" and cells[0]["stdout_random_lines"] == []
    assert cells[1]["stdout_random_lines"] == [0]
    assert {t["name"]: t["data_random"] for t in cells[1]["tensors"]} == {"x": False, "r": True}
    assert {t["name"]: t["data_random"] for t in cells[2]["tensors"]}["u"] is True  # uninitialised memory
    assert cells[3]["error"]["type"] == "RuntimeError" and "invalid for input of size 2" in cells[3]["error"]["message"]
    assert score.score_case(exp, exp).passed == score.score_case(exp, {}).total
