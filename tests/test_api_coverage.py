"""The engine's coverage of PyTorch's public API (conformance/api_coverage.py), and what a
script that reaches for a missing name is told."""
import importlib.util
import json
import textwrap

import pytest

from _cli_helpers import ROOT, invoke, write

from gradviz import missing_api


def _coverage_script():
    spec = importlib.util.spec_from_file_location("api_coverage", ROOT / "conformance" / "api_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_coverage_table_and_the_missing_names_are_current(capsys):
    pytest.importorskip("torch")
    assert _coverage_script().main(["--check"]) == 0, capsys.readouterr().err


def test_what_is_left_out_is_said_and_the_rest_is_counted():
    coverage = _coverage_script()
    assert coverage.left_out("cudnn_convolution") == "a backend kernel"
    assert coverage.left_out("q_scale") == "quantization"
    assert coverage.left_out("to_sparse") == "a sparse layout"
    assert coverage.left_out("expand_copy") == "a *_copy variant"
    assert coverage.left_out("index_copy") is None and coverage.left_out("kron") is None
    assert coverage.left_out("sparse_", "torch.nn.init") is None and coverage.left_out("cond", "torch.linalg") is None


MISSING = """\
import torch
import torch.nn as nn
x = torch.ones(3)
# %%
torch.fbgemm_linear_int8_weight(x)
# %%
x.q_scale()
# %%
torch.kronn(x, x)
# %%
from torch.nn import cudnn_batch_norm_typo
"""


def test_a_missing_pytorch_name_gets_pytorchs_error_and_a_hint(tmp_path):
    r = invoke("run", write(tmp_path, MISSING), "--json")
    errors = [c["error"] for c in json.loads(r.stdout)["cells"][1:]]
    assert errors[0] == {"type": "AttributeError", "message": "module 'torch' has no attribute 'fbgemm_linear_int8_weight'",
                         "hint": "gradviz's engine does not have `torch.fbgemm_linear_int8_weight` yet; `--engine "
                                 "torch` runs this script on your installed PyTorch"}
    assert errors[1]["message"] == "'Tensor' object has no attribute 'q_scale'"
    assert errors[1]["hint"].startswith("gradviz's engine does not have `torch.Tensor.q_scale` yet")
    assert errors[2] == {"type": "AttributeError", "message": "module 'torch' has no attribute 'kronn'"}  # a typo
    assert errors[3]["type"] == "ImportError" and "hint" not in errors[3]
    terminal = invoke("run", write(tmp_path, MISSING)).stdout + invoke("run", write(tmp_path, MISSING)).stderr
    assert "gradviz's engine does not have `torch.Tensor.q_scale` yet; `--engine torch` runs this script on " \
           "your installed PyTorch" in terminal


def test_an_import_of_a_missing_name_is_told_too():
    err = ImportError("cannot import name 'kronn' from 'gradviz.torch' (/x/gradviz/torch/__init__.py)")
    assert missing_api.missing_name(err) is None  # a typo
    err = ImportError("cannot import name 'fbgemm_pack_gemm_matrix_fp16' from 'gradviz.torch' (/x/__init__.py)")
    assert missing_api.missing_name(err) == "torch.fbgemm_pack_gemm_matrix_fp16"
    assert missing_api.hint(KeyError("x")) == ""
