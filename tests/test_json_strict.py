"""Every --json document is strict JSON: NaN and infinities are the strings "NaN",
"Infinity" and "-Infinity" (which ``float()`` reads back), never the bare NaN / Infinity
that strict parsers reject. Checked with a parser that refuses them, on ``run``,
``graph`` and ``explain`` (tests/test_conformance_cases.py checks that the scorer still
matches such values against PyTorch's recording)."""
import json
import math

import pytest

from gradviz.render import jsonout

from _cli_helpers import invoke, write

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

