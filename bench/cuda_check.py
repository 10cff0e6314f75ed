"""Check `gradviz run --engine torch` on a CUDA machine: samples/cuda_mlp.py run with
--json --memory --nan --graph, and what it gave held against what PyTorch itself says.

It checks that
- the script ran on 'cuda' (its cells print the device) and the table lists its tensors
  (the parameters net.0.weight ..., x, target, out, loss) with gradients where PyTorch
  gives them;
- the --memory ledger counts the CUDA storages the graph saved: as many storages, and as
  many bytes, as a saved_tensors_hooks count of the same model on the same device finds;
- --nan found nothing (the model is finite) and the DOT file was written with the real
  nodes (AddmmBackward0, ReluBackward0, TanhBackward0, MseLossBackward0).
It prints one line per check and exits 0 when all hold, 1 otherwise.

Needs only this repository, torch (with CUDA), numpy and gradviz's other dependencies,
which are pure Python except ml_dtypes. Without network on the GPU machine, make the
folder of them here (about 40 MiB; .gpu-deps/ is ignored by git), naming the GPU
machine's Python version for ml_dtypes' compiled part (python3 -V there; 3.11 below):

    pip install --target .gpu-deps/common --no-deps click rich graphviz markdown-it-py mdurl pygments \\
        pytest pluggy iniconfig packaging
    for v in 3.10 3.11 3.12; do
        pip install --target .gpu-deps/py${v/./} --no-deps --only-binary=:all: --python-version $v \\
            --platform manylinux2014_x86_64 ml_dtypes==0.5.1
        strip --strip-unneeded .gpu-deps/py${v/./}/ml_dtypes/*.so   # 24 MiB -> 1.5 MiB each
    done

then, on the GPU machine, in the repository root (with .gpu-deps carried along):

    V=$(python3 -c 'import sys; print("%d%d" % sys.version_info[:2])')
    export PYTHONPATH=$PWD:$PWD/.gpu-deps/common:$PWD/.gpu-deps/py$V
    python3 bench/cuda_check.py

Last run (2026-11-27): torch 2.11.0+cu130 on an NVIDIA H200, Python 3.12: every check ok;
and the adapter tests (tests/test_cli_torch_engine.py, test_memory.py, test_nonfinite.py,
test_grad_reasons.py, test_forward_calls.py, test_torch_guard.py, not slow) there: 68
passed, 1 failed only because that machine has no Graphviz to draw an SVG.

(pygraphviz is not needed: nothing here draws a picture, the DOT is plain text.)
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "samples", "cuda_mlp.py")
NAMES = ("net.0.weight", "net.0.bias", "net.2.weight", "net.4.weight", "x", "target", "out", "loss")
NODES = ("AddmmBackward0", "ReluBackward0", "TanhBackward0", "MseLossBackward0")


def run_gradviz(dot):
    """The --json document of samples/cuda_mlp.py run on real PyTorch (or exit 1)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.path.join(ROOT, ".gpu-deps"),
                                                    env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "gradviz", "run", SCRIPT, "--engine", "torch", "--json", "--memory", "--nan",
           "--graph", dot]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        print(f"FAIL gradviz exited {proc.returncode}\n{proc.stderr[-3000:]}")
        sys.exit(1)
    return json.loads(proc.stdout)


def saved_by_pytorch():
    """(distinct CUDA storages, their bytes) the same model's graph saves, counted by
    PyTorch's own saved_tensors_hooks: what the ledger should say."""
    import runpy

    import torch

    storages = {}

    def pack(t):
        if t.device.type == "cuda":
            s = t.untyped_storage()
            storages[s.data_ptr()] = s.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        # the script's own cells, run as the script: the same seed, model and data
        runpy.run_path(SCRIPT, run_name="__main__")
    return len(storages), sum(storages.values())


def main():
    import torch

    if not torch.cuda.is_available():
        print("FAIL torch.cuda.is_available() is False: this check needs a CUDA machine")
        return 1
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
    checks = []
    with tempfile.TemporaryDirectory() as tmp:
        dot = os.path.join(tmp, "out.dot")
        doc = run_gradviz(dot)
        stdout = "".join(cell.get("stdout") or "" for cell in doc["cells"])
        checks.append(("the script ran on cuda", "device: cuda" in stdout and "loss on cuda" in stdout, stdout.strip()))
        tensors = {t["name"]: t for t in doc["cells"][-1]["tensors"] or ()}
        missing = [n for n in NAMES if n not in tensors]
        checks.append(("its tensors are listed", not missing, f"missing {missing}; listed {sorted(tensors)}"))
        grads = [n for n in NAMES if n.startswith("net.") and (tensors.get(n) or {}).get("grad") is None]
        checks.append(("the parameters have gradients", not grads, f"no grad: {grads}"))
        memory = doc.get("memory") or {}
        ledger = memory[0] if isinstance(memory, list) and memory else memory
        count, size = saved_by_pytorch()
        checks.append(("the ledger counts the CUDA storages saved",
                       ledger.get("storages") == count and ledger.get("saved_bytes") == size,
                       f"ledger {ledger.get('storages')} storages, {ledger.get('saved_bytes')} B; "
                       f"saved_tensors_hooks {count} storages, {size} B"))
        checks.append(("--nan found nothing", doc.get("nonfinite") is None, str(doc.get("nonfinite"))[:300]))
        text = open(dot, encoding="utf-8").read() if os.path.exists(dot) else ""
        absent = [n for n in NODES if n not in text]
        checks.append(("the DOT was written with the real nodes", text.startswith("digraph") and not absent,
                       f"{len(text)} characters; absent: {absent}"))
    for what, ok, detail in checks:
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + ("" if ok else f": {detail}"))
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
