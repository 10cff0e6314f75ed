"""A %%gradviz cell that meets a real PyTorch tensor or module from an earlier cell (a mixed
notebook, issue 25 point 8): one line saying what it is and how to inspect real PyTorch,
instead of an error from deep inside PyTorch ("No module named 'torch.nested'")."""
import subprocess
import sys
import textwrap

import pytest

from _cli_helpers import ROOT, process_env

pytest.importorskip("IPython")
pytest.importorskip("torch")

SESSION = textwrap.dedent("""
    from IPython.testing.globalipapp import start_ipython
    ip = start_ipython()
    ip.run_cell("%load_ext gradviz")
    ip.run_cell("import torch\\nt = torch.ones(2, requires_grad=True)\\nlin = torch.nn.Linear(2, 1)")
    for cell in ("%%gradviz\\ny = (t * 2).sum()\\ny.backward()", "%%gradviz\\ny = lin(torch.ones(2))",
                 "%%gradviz\\nu = torch.ones(2, requires_grad=True)\\nv = (u * 2).sum()\\nv.backward()"):
        r = ip.run_cell(cell)
        print("RESULT", type(r.error_in_exec).__name__, r.error_in_exec)
""")


def test_a_real_torch_object_in_a_gradviz_cell_is_one_line():
    env = {**process_env(), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", SESSION], capture_output=True, text=True, env=env, timeout=120,
                         cwd=str(ROOT))
    results = [line for line in out.stdout.splitlines() if line.startswith("RESULT")]
    assert len(results) == 3, out.stdout + out.stderr
    assert results[0].startswith("RESULT CellFailed t is a real PyTorch tensor, made by an earlier cell outside "
                                 "%%gradviz;")
    assert "gradviz.show(" in results[0] and "--engine torch" in results[0]
    assert results[1].startswith("RESULT CellFailed lin is a real PyTorch module (Linear)")
    assert results[2] == "RESULT NoneType None"  # a cell of its own tensors runs as before
    assert "torch.nested" not in out.stdout
