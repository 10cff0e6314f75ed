"""What inspecting a real PyTorch run costs (``--engine torch``), against plain PyTorch.

    python3 bench/real_torch.py                 # T1..T3, about a minute
    python3 bench/real_torch.py --quick         # smaller repetition counts
    python3 bench/real_torch.py --json out.json --check

T1  the W2 training step (MLP 128x784-512-512-10, relu, MSE, backward) recorded as
    ``gradviz run --engine torch`` records it (a TorchRecorder with a graph capture at
    every backward), over the same step unrecorded. Both are timed in one process,
    alternating, after warm-up: the ratio of the medians. Target <= 1.5.
T2  snapshot plus DOT of a real 100,000-op chain, in seconds, as ``gradviz.show(loss)`` (and
    torchviz's make_dot) draw it: the backward graph. Target <= 5 s. T2r: the same chain
    recorded, as ``gradviz run --engine torch`` draws it, with the forward view too.
T3  memory after the run: the W5 chain (50 layers tanh(h @ W), batch 256, width 1024)
    forward and backward, RSS when it is over, with and without the recorder; each in a
    fresh process, the ratio of the two. Target <= 1.1.

PyTorch runs with one thread (``torch.set_num_threads(1)``), as bench/run.py runs it.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from statistics import median

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

TARGETS = {"T1": 1.5, "T2": 5.0, "T2r": 5.0, "T3": 1.1}


def _torch():
    import torch

    torch.set_num_threads(1)
    return torch


def _recorder():
    """A recorder set up as ``gradviz run --engine torch --graph`` sets it up."""
    from gradviz.inspect.real_torch import TorchRecorder

    return TorchRecorder(capture=lambda: {}, keep=1)


def t1_mlp(reps):
    import numpy as np

    torch = _torch()
    rng = np.random.default_rng(0)
    sizes, batch = [784, 512, 512, 10], 128
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params.append(torch.tensor(rng.standard_normal((fan_in, fan_out)).astype(np.float32) * (2 / fan_in) ** 0.5,
                                   requires_grad=True))
        params.append(torch.tensor((0.01 * rng.standard_normal(fan_out)).astype(np.float32), requires_grad=True))
    x = torch.tensor(rng.standard_normal((batch, sizes[0])).astype(np.float32))
    y = torch.eye(10)[torch.tensor(rng.integers(0, 10, batch))]

    def step():
        h = x
        for i in range(3):
            h = torch.mm(h, params[2 * i]) + params[2 * i + 1]
            if i < 2:
                h = torch.relu(h)
        err = h - y
        torch.mean(err * err).backward()
        for p in params:
            p.grad = None

    rec = _recorder()
    plain, recorded = [], []
    for k in range(reps + 3):  # alternating, so both see the same machine
        t0 = time.perf_counter()
        step()
        t1 = time.perf_counter()
        with rec:
            t2 = time.perf_counter()
            step()
            t3 = time.perf_counter()
        if k >= 3:
            plain.append(t1 - t0)
            recorded.append(t3 - t2)
    p, r = median(plain), median(recorded)
    return {"plain_ms": p * 1e3, "recorded_ms": r * 1e3, "value": r / p, "unit": "x plain PyTorch"}


def t2_chain(depth, recorded):
    """Snapshot + DOT of a chain: ``recorded`` as ``gradviz run --engine torch`` sees it (with
    the forward view), else as ``gradviz.show(loss)`` / torchviz's make_dot (backward only)."""
    import contextlib

    torch = _torch()
    from gradviz.inspect import snapshot
    from gradviz.render import dot

    x = torch.ones(4, requires_grad=True)
    rec = _recorder() if recorded else None
    with rec if rec is not None else contextlib.nullcontext():
        y = x
        for k in range(depth):
            y = torch.tanh(y) if k % 2 else y * 1.0001
        loss = y.sum()
    t0 = time.perf_counter()
    snap = snapshot(loss, {id(x): "x", id(loss): "loss"}, rec)
    source = dot.to_dot(snap)
    elapsed = time.perf_counter() - t0
    return {"nodes": len(snap.nodes), "dot_chars": len(source), "value": elapsed, "unit": "s"}


_T3 = """
import gc, sys, os
sys.path.insert(0, {root!r})
import numpy as np, torch
torch.set_num_threads(1)
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
rng = np.random.default_rng(0)
x = torch.tensor(rng.standard_normal((256, 1024)).astype(np.float32))
Ws = [torch.tensor((rng.standard_normal((1024, 1024)) / 32).astype(np.float32), requires_grad=True) for _ in range(50)]
def run():
    h = x
    for W in Ws:
        h = torch.tanh(torch.mm(h, W))
    h.sum().backward()
if {recorded}:
    from gradviz.inspect.real_torch import TorchRecorder
    with TorchRecorder(capture=lambda: {{}}, keep=1):
        run()
else:
    run()
gc.collect()
print(rss())
"""


def t3_memory():
    out = {}
    for recorded in (False, True):
        code = _T3.format(root=ROOT, recorded=recorded)
        env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        cp = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env)
        if cp.returncode != 0:
            raise RuntimeError(cp.stderr.strip().splitlines()[-1] if cp.stderr.strip() else "worker failed")
        out["recorded_MiB" if recorded else "plain_MiB"] = float(cp.stdout.strip().splitlines()[-1])
    out["value"] = out["recorded_MiB"] / out["plain_MiB"]
    out["unit"] = "x plain PyTorch"
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (T1), same sizes")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("bench/real_torch.py needs PyTorch (pip install torch==2.13.0)", file=sys.stderr)
        return 2
    results = {"T1": t1_mlp(10 if args.quick else 40), "T2": t2_chain(100_000, False),
               "T2r": t2_chain(100_000, True), "T3": t3_memory()}
    titles = {"T1": "W2 MLP step, recorded / plain", "T2": "snapshot + DOT, 100,000-op real chain (backward)",
              "T2r": "the same, recorded: with the forward view", "T3": "memory after the W5 run, recorded / plain"}
    failed = []
    print("| id | measure | value | target | verdict |\n|---|---|---|---|---|")
    for key, res in results.items():
        ok = res["value"] <= TARGETS[key]
        failed += [] if ok else [key]
        res["target"], res["pass"] = TARGETS[key], ok
        print(f"| {key} | {titles[key]} | {res['value']:.3g} {res['unit']} | <= {TARGETS[key]:g} | "
              f"{'PASS' if ok else 'FAIL'} |")
    details = (f"T1 {results['T1']['plain_ms']:.2f} ms plain, {results['T1']['recorded_ms']:.2f} ms recorded; "
               f"T2 {results['T2']['nodes']:,} nodes; T3 {results['T3']['plain_MiB']:.0f} MiB plain, "
               f"{results['T3']['recorded_MiB']:.0f} MiB recorded")
    print(details)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "torch": torch.__version__}, f, indent=1)
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
