"""Shared helpers of the tests/test_explain*.py files: the catalog, the samples, and PyTorch's own
output for them (collected once per session in a subprocess, see _explain_oracle.py)."""
import functools
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SAMPLES = os.path.join(ROOT, "samples", "errors")
ERRORS = os.path.join(HERE, "errors")  # PyTorch's autograd errors: catalog.json and a reproducer each
CATALOG_JSON = os.path.join(ERRORS, "catalog.json")
REPRO = os.path.join(ERRORS, "repro")
SEEDS = os.path.join(ROOT, "conformance", "sources")  # the seed documents, as users pasted them

#: Catalog ids outside the engine's scope (functorch, torch.utils.checkpoint): explained and
#: matched, no sample.
NOT_IN_ENGINE = {"func_grad_nonscalar", "checkpoint_no_input_requires_grad", "checkpoint_use_reentrant_unspecified"}

#: Samples that do not reproduce PyTorch's behaviour in the engine yet: id -> what is missing.


@functools.lru_cache(maxsize=None)
def catalog():
    with open(CATALOG_JSON) as f:
        return json.load(f)


def catalog_by_id():
    return {e["id"]: e for e in catalog()}


def sample_paths():
    return sorted(glob.glob(os.path.join(SAMPLES, "*.py")))


def sample_id(path):
    """The catalog id a sample demonstrates (file name, or its first-line comment)."""
    with open(path) as f:
        first = f.readline()
    if first.startswith("# gradviz explain sample:"):
        return first.split(":", 1)[1].split()[0].strip()
    return os.path.basename(path)[:-3]


def torch_available():
    try:
        import torch  # noqa: F401
        # Real torch, not gradviz's engine standing in for it (a venv inside the checkout is fine).
        return hasattr(torch, "autograd") and not getattr(torch, "__file__", "").startswith(
            os.path.join(ROOT, "gradviz") + os.sep)
    except Exception:  # noqa: BLE001
        return False


@functools.lru_cache(maxsize=None)
def oracle(paths):
    """Real PyTorch's first exception / warnings / traceback for each script (one subprocess)."""
    if not torch_available() or not paths:
        return {}
    proc = subprocess.run([sys.executable, os.path.join(HERE, "_explain_oracle.py"), *paths],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def sample_oracle():
    return oracle(tuple(sample_paths()))


def repro_paths():
    return tuple(sorted(glob.glob(os.path.join(REPRO, "*.py"))))


def repro_oracle():
    return oracle(repro_paths())
