"""`--engine torch` holds against what a script may do to PyTorch or ask of it: hide the
module from sys.modules, or make a tensor with more dimensions than numpy has."""
import json

import pytest

from _cli_helpers import invoke, write

pytest.importorskip("torch")


@pytest.mark.parametrize("hidden", ["None", "object()"])
def test_a_script_that_hides_torch_from_sys_modules(tmp_path, hidden):
    path = write(tmp_path, "import sys\nimport torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n"
                           f"y.backward()\nsys.modules['torch'] = {hidden}\n", "hides.py")
    r = invoke("run", path, "--engine", "torch", "--graph", str(tmp_path / "g.dot"), "--html", str(tmp_path / "r.html"))
    assert r.exit_code == 0, r.stderr
    assert "SumBackward0" in r.stdout and (tmp_path / "g.dot").exists() and (tmp_path / "r.html").exists()
    import sys

    import torch
    assert sys.modules["torch"] is torch  # put back for whatever runs next


def test_a_script_that_hides_gradviz_engine_from_sys_modules(tmp_path):
    path = write(tmp_path, "import sys\nimport torch\nx = torch.ones(2, requires_grad=True)\n"
                           "sys.modules['gradviz.torch'] = None\nsys.modules['torch'] = None\n", "hides.py")
    r = invoke("run", path)
    assert r.exit_code == 0, r.stderr
    assert "\nx " in r.stdout


def test_a_tensor_of_more_dimensions_than_numpy_has_is_listed(tmp_path):
    path = write(tmp_path, "import torch\nx = torch.ones([1] * 65 + [2], requires_grad=True)\ny = (x * 3).sum()\n"
                           "y.backward()\n", "dims.py")
    doc = json.loads(invoke("run", path, "--engine", "torch", "--json").stdout)
    rows = {t["name"]: t for t in doc["cells"][0]["tensors"]}
    assert set(rows) == {"x", "y"}
    x = rows["x"]
    assert x["shape"] == [1] * 65 + [2] and x["stats"]["mean"] == 1.0 and x["grad"]["stats"]["max"] == 3.0
    inner = x["data"]
    for _ in range(65):
        inner = inner[0]
    assert inner == [1.0, 1.0]
    r = invoke("run", path, "--engine", "torch")
    assert r.exit_code == 0 and ("\nx\n" in r.stdout or "\nx " in r.stdout), r.stdout
