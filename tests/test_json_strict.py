"""Every --json document is strict JSON: NaN and infinities are the strings "NaN",
"Infinity" and "-Infinity" (which ``float()`` reads back), never the bare NaN / Infinity
that strict parsers reject. Checked with a parser that refuses them, on ``run``,
``graph`` and ``explain``; and the shared scorer still matches such values against
PyTorch's recording (bare NaN, as Python's json writes it)."""
import json
import math
import subprocess
import sys

import pytest

from gradviz.render import jsonout

from _cli_helpers import ROOT, invoke, write

NONFINITE_SCRIPT = """\
import torch
x = torch.tensor([1.0, float('nan'), float('inf'), -float('inf')], requires_grad=True)
y = (x * 2).sum()
y.backward()
big = torch.zeros(2000)
big[3] = float('nan')
"""


def strict_loads(text):
    def refuse(name):
        raise ValueError(f"not strict JSON: bare {name}")

    return json.loads(text, parse_constant=refuse)


def test_strict_encoding_unit():
    doc = {"a": [1.0, float("nan"), float("inf"), -float("inf")], "b": (2, {"c": float("nan")}), "d": "NaN"}
    text = jsonout.json_text(doc)
    assert text == ('{"a": [1.0, "NaN", "Infinity", "-Infinity"], "b": [2, {"c": "NaN"}], "d": "NaN"}')
    back = strict_loads(text)
    assert [float(v) for v in back["a"][1:]][1:] == [math.inf, -math.inf]
    assert math.isnan(float(back["a"][1]))
    assert jsonout.NONFINITE == {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}
    with pytest.raises(ValueError):  # allow_nan=False: a float that escaped the encoding cannot pass
        json.dumps(float("nan"), allow_nan=False)


def test_run_json_is_strict(tmp_path):
    r = invoke("run", write(tmp_path, NONFINITE_SCRIPT), "--json")
    assert r.exit_code == 0, r.stderr
    assert "NaN," not in r.stdout.replace('"NaN",', "")
    doc = strict_loads(r.stdout)
    t = {t["name"]: t for t in doc["cells"][0]["tensors"]}
    assert t["x"]["data"] == [1.0, "NaN", "Infinity", "-Infinity"]
    assert t["x"]["stats"] == {"min": "NaN", "max": "NaN", "mean": "NaN", "norm": "NaN"}
    assert t["x"]["grad"]["data"] == [2.0, 2.0, 2.0, 2.0]
    assert t["y"]["data"] == "NaN"
    assert t["big"]["data"] is None and t["big"]["stats"]["min"] == "NaN"


def test_run_json_with_graph_and_second_backward_is_strict(tmp_path):
    r = invoke("run", write(tmp_path, NONFINITE_SCRIPT), "--json", "--backward-twice", "--retain-graph")
    doc = strict_loads(r.stdout)
    after = {t["name"]: t for t in doc["tensors_after_second_backward"]}
    assert after["x"]["grad"]["data"] == [4.0, 4.0, 4.0, 4.0]
    assert after["x"]["data"][1] == "NaN"


def test_graph_json_is_strict():
    r = invoke("graph", "log(x - 1).sum()", "--var", "x=[0.,1.,2.]", "--json")
    doc = strict_loads(r.stdout)
    x = next(t for t in doc["tensors"] if t["name"] == "x")
    assert x["grad"]["data"] == [-1.0, "Infinity", 1.0]
    assert x["grad"]["stats"]["max"] == "Infinity"
    result = next(t for t in doc["tensors"] if t["name"] == "log(x - 1).sum()")
    assert result["data"] == "NaN"


def test_explain_json_is_strict(tmp_path):
    r = invoke("explain", "Trying to backward through the graph a second time", "--json")
    assert r.exit_code == 0
    assert strict_loads(r.stdout)["id"]
    script = write(tmp_path, "import torch\nx = torch.tensor([float('nan')], requires_grad=True)\n"
                             "y = x * 2\ny.backward()\n")
    r = invoke("explain", script, "--json")
    strict_loads(r.stdout)


SHARED_COMPARE = ROOT.parent / "shared" / "conformance" / "compare.py"


@pytest.mark.skipif(not SHARED_COMPARE.exists(), reason=f"{SHARED_COMPARE} is not there")
def test_the_shared_scorer_matches_strings_against_recorded_nan(tmp_path):
    """record.py writes PyTorch's NaN as bare NaN (Python's json); our strings must still score."""
    cases, expected = tmp_path / "cases", tmp_path / "expected"
    cases.mkdir()
    expected.mkdir()
    (cases / "nan_case.py").write_text("import torch\nx = torch.tensor([1.0, float('nan'), float('inf')])\n")
    exp = {"script": "nan_case.py", "cells": [{"line": 1, "stdout": "", "error": None, "tensors": [{
        "name": "x", "shape": [3], "dtype": "float32", "requires_grad": False, "is_leaf": True,
        "retains_grad": False, "grad_fn": None, "data": [1.0, float("nan"), float("inf")],
        "stats": {"min": float("nan"), "max": float("nan"), "mean": float("nan"), "norm": float("nan")},
        "grad": None}]}]}
    (expected / "nan_case.json").write_text(json.dumps(exp))  # bare NaN, as record.py writes
    cmd = f"{sys.executable} -m gradviz run {{script}} --json"
    p = subprocess.run([sys.executable, str(SHARED_COMPARE), str(cases), str(expected), "--cmd", cmd, "-v"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "conformance: 9/9 checks" in p.stdout, p.stdout
