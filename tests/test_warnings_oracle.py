"""Warnings, as PyTorch gives them: the same warnings, at the same user lines, once per place,
for the same script on gradviz's engine and on real PyTorch (run through the same runner)."""
import json
import textwrap

import pytest

from _cli_helpers import invoke, write
from gradviz import scripting

torch = pytest.importorskip("torch")

SCRIPTS = {
    "nonleaf_grad": """
        import torch
        x = torch.ones(3, requires_grad=True)
        y = x * 2
        for _ in range(3):
            y.grad          # once: the same place
        y.grad              # again: another place
    """,
    "mse_size_mismatch": """
        import torch
        import torch.nn.functional as F
        F.mse_loss(torch.ones(3), torch.ones(3, 1))
        F.l1_loss(torch.ones(2, 1), torch.ones(2))
    """,
    "users_own": """
        import warnings
        import torch
        warnings.warn("look out")
        warnings.warn("old", DeprecationWarning)
        warnings.warn("later", FutureWarning)
        # %%
        warnings.warn("look out")
    """,
    "float_overflow_is_silent_but_users_numpy_warns": """
        import numpy as np
        import torch
        x = torch.tensor([1000.0, 0.0, -1.0], requires_grad=True)
        y = x.exp() + x.log() + x.sqrt() + 1 / x[1:2]
        y.sum().backward()
        np.exp(np.float32(1000))
    """,
    "copy_construct": """
        import torch
        a = torch.ones(2, requires_grad=True)
        b = torch.tensor(a)
    """,
    "softmax_implicit_dim": """
        import torch
        import torch.nn.functional as F
        F.softmax(torch.ones(2, 3))
    """,
    "transpose_1d": """
        import torch
        t = torch.ones(3)
        t.T
    """,
    "scheduler_order": """
        import torch
        w = torch.ones(2, requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1)
        sched.step()
    """,
    "ignored_by_the_script": """
        import warnings
        import torch
        warnings.simplefilter("ignore")
        x = torch.ones(3, requires_grad=True)
        (x * 2).grad
        warnings.warn("silenced")
    """,
    "module_backward_hooks": """
        import torch
        lin = torch.nn.Linear(3, 2)
        lin.register_backward_hook(lambda m, gi, go: None)
        x = torch.ones(1, 3, requires_grad=True)
        lin(x).sum().backward()
        full = torch.nn.Linear(3, 2)
        full.register_full_backward_hook(lambda m, gi, go: None)
        full(torch.ones(1, 3)).sum().backward()
    """,
    "inside_a_function": """
        import torch
        def peek(t):
            return t.grad
        x = torch.ones(3, requires_grad=True)
        peek(x * 2)
    """,
}


def warnings_of(tmp_path, name, engine):
    path = write(tmp_path, textwrap.dedent(SCRIPTS[name]), f"{name}.py")
    result = scripting.run_script(path, echo=False, engine=engine)
    return [[(w.category, w.message, w.line) for w in c.warnings] for c in result.cells]


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_same_warnings_as_pytorch(tmp_path, name):
    ours = warnings_of(tmp_path, name, "gradviz.torch")
    theirs = warnings_of(tmp_path, name, "torch")
    assert ours == theirs
    if name != "ignored_by_the_script":
        assert any(ours), "the script raises warnings"


def test_once_per_place_and_at_the_users_line(tmp_path):
    cells = warnings_of(tmp_path, "nonleaf_grad", "gradviz.torch")
    assert [line for _, _, line in cells[0]] == [6, 7]
    cells = warnings_of(tmp_path, "inside_a_function", "gradviz.torch")
    assert [line for _, _, line in cells[0]] == [4]  # where .grad was read, in the user's function
    cells = warnings_of(tmp_path, "users_own", "gradviz.torch")
    assert [c for c, _, _ in cells[0]] == ["UserWarning", "DeprecationWarning", "FutureWarning"]
    assert cells[1] == [("UserWarning", "look out", 8)]  # the same text at another place: shown again


def test_shown_on_stderr_and_in_the_json(tmp_path):
    path = write(tmp_path, textwrap.dedent(SCRIPTS["mse_size_mismatch"]), "s.py")
    r = invoke("run", path)
    assert r.exit_code == 0
    assert (f"{path}:4: UserWarning: Using a target size (torch.Size([3, 1])) that is different to the input "
            "size (torch.Size([3])).") in r.stderr
    assert "\n  F.mse_loss(torch.ones(3), torch.ones(3, 1))\n" in r.stderr
    doc = json.loads(invoke("run", path, "--json").stdout)
    (cell,) = doc["cells"]
    assert [(w["category"], w["filename"], w["line"]) for w in cell["warnings"]] == [
        ("UserWarning", path, 4), ("UserWarning", path, 5)]


def test_notebook_warnings_name_the_cell(tmp_path):
    nb = {"cells": [{"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [],
                     "source": "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).grad"}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    p = tmp_path / "n.ipynb"
    p.write_text(json.dumps(nb))
    r = invoke("run", p)
    assert f"{p}, In [3]:3: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor" in r.stderr
