"""Inspection and rendering workloads (gradviz only), run inside a worker process.

I1/I2  snapshot + DOT of an N-node graph: the W3 op cycle on x(4,) recorded by a
       ``gradviz.inspect.Recorder``, forward and backward run (untimed); timed is
       ``snapshot(loss, names, recorder)`` followed by ``gradviz.render.dot.to_dot`` with
       its default collapsing budget. The headline is the first such call in the fresh
       worker (imports done beforehand): what a user waits for once per run. Warm repeats
       are recorded as details.
I3     collapsed PNG of a 10,000-op chain, end to end: a fresh process runs a script that
       builds the chain and writes the PNG. Through ``gradviz run SCRIPT --graph out.png``
       when the CLI has that option, otherwise through the library (Recorder, snapshot,
       ``dot.render``) in a plain ``python`` process. Timed: the whole subprocess.
I4     ``gradviz --help`` start-up: wall time of the subprocess (``python -c pass`` is
       measured alongside as the interpreter's own floor).

The modules these need are probed, not assumed: a missing one makes the workload
'skipped' with a note, never a crash of the suite.
"""
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time
from statistics import median


class Skip(Exception):
    """The workload cannot run here (a module or program is missing)."""


def _try_import(name, attrs):
    import importlib

    try:
        mod = importlib.import_module(name)
    except Exception as e:
        return None, f"{name} is not importable ({type(e).__name__}: {e})"
    missing = [a for a in attrs if not hasattr(mod, a)]
    if missing:
        return None, f"{name} has no {', '.join(missing)}"
    return mod, None


def gradviz_command():
    """argv prefix that runs the ``gradviz`` command of this interpreter, and how it was found."""
    here = os.path.join(os.path.dirname(sys.executable), "gradviz")
    if os.path.isfile(here) and os.access(here, os.X_OK):
        return [here], "console script next to the interpreter"
    return [sys.executable, "-m", "gradviz"], "python -m gradviz (no console script found)"


def _cli_has_graph_option():
    try:
        cp = subprocess.run(gradviz_command()[0] + ["run", "--help"], capture_output=True,
                            text=True, timeout=60)
    except Exception:
        return False
    return cp.returncode == 0 and "--graph" in cp.stdout


def probe():
    """What the inspection workloads can use on this machine."""
    _, inspect_err = _try_import("gradviz.inspect", ("Recorder", "snapshot"))
    _, dot_err = _try_import("gradviz.render.dot", ("to_dot", "render"))
    return {"gradviz.inspect": inspect_err or "ok", "gradviz.render.dot": dot_err or "ok",
            "graphviz": _graphviz(), "cli_graph_option": _cli_has_graph_option(),
            "gradviz_command": " ".join(gradviz_command()[0])}


def _graphviz():
    """Which Graphviz gradviz draws with: 'bundled' (pygraphviz), 'system' (dot), or None."""
    layout, _ = _try_import("gradviz.render.layout", ("backend",))
    return (layout.backend() or None) if layout is not None else None


def _need(name, attrs):
    mod, err = _try_import(name, attrs)
    if mod is None:
        raise Skip(err)
    return mod


def _loop(fn, reps):
    warmup, min_reps, max_reps, budget = reps
    for _ in range(warmup):
        fn()
    times, extra = [], []
    start = time.perf_counter()
    while len(times) < max_reps and (len(times) < min_reps or time.perf_counter() - start < budget):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        extra.append(out)
    return times, extra


# ----------------------------------------------------------------------------- I1, I2
def snapshot_dot(p, reps, spec):
    T = _need("gradviz.torch", ("tensor", "tanh", "sin", "sum"))
    inspect = _need("gradviz.inspect", ("Recorder", "snapshot"))
    dot = _need("gradviz.render.dot", ("to_dot",))
    import numpy as np

    from bench.workloads import chain_step

    depth = p["nodes"] - 2  # + SumBackward0 + AccumulateGrad = nodes
    rng = np.random.default_rng(0)
    x = T.tensor(rng.uniform(-1, 1, 4).astype(np.float32), requires_grad=True)
    B = T.tensor((0.01 * rng.standard_normal(4)).astype(np.float32))
    t0 = time.perf_counter()
    with inspect.Recorder() as rec:
        y = x
        for k in range(depth):
            y = chain_step(k, y, -1.0, B, T.tanh, T.sin)
        loss = T.sum(y)
        loss.backward()
    build_s = time.perf_counter() - t0
    names = {id(x): "x", id(B): "B", id(loss): "loss"}

    def once():
        t = time.perf_counter()
        snap = inspect.snapshot(loss, names, recorder=rec)
        t_snap = time.perf_counter() - t
        src = dot.to_dot(snap)
        return {"snapshot_s": t_snap, "nodes": len(snap.nodes), "ops": len(snap.ops),
                "dot_chars": len(src)}

    # Headline: the first snapshot + DOT in this fresh process (modules already imported,
    # the graph already recorded), which is what a user waits for. Warm repeats: details.
    gc.collect()
    t = time.perf_counter()
    first = once()
    cold_s = time.perf_counter() - t
    warm, _ = _loop(once, (max(reps[0] - 1, 0),) + tuple(reps[1:]))
    out = {"times": [cold_s], "cold_snapshot_s": first["snapshot_s"],
           "cold_dot_s": cold_s - first["snapshot_s"], "warm_times": warm,
           "build_and_backward_s": build_s, "graph_nodes": first["nodes"],
           "forward_ops": first["ops"], "dot_chars": first["dot_chars"]}
    if warm:
        out["warm_median_s"] = median(warm)
    return out


# ----------------------------------------------------------------------------- I3
_CHAIN = """\
x = torch.tensor([0.5, -0.25, 0.75, -1.0], requires_grad=True)
B = torch.tensor([0.01, -0.02, 0.03, 0.005])
y = x
for k in range({depth}):
    r = k % 4
    if r == 0:
        y = y * -1.0
    elif r == 1:
        y = y + B
    elif r == 2:
        y = torch.tanh(y)
    else:
        y = torch.sin(y)
loss = y.sum()
loss.backward()
"""

_LIBRARY = """\
import sys
import gradviz.torch as torch
from gradviz.inspect import Recorder, snapshot
from gradviz.render import dot
with Recorder() as rec:
{body}
snap = snapshot(loss, {{"x": x, "B": B, "loss": loss}}, recorder=rec)
res = dot.render(snap, sys.argv[1])
print("PNG", res.width, res.height, len(snap.nodes))
"""


def png_end_to_end(p, reps, spec):
    probe_info = spec.get("probe") or probe()
    if not probe_info.get("graphviz"):
        raise Skip("gradviz finds no Graphviz to draw with (neither pygraphviz nor system `dot`)")
    body = _CHAIN.format(depth=p["depth"])
    tmp = tempfile.mkdtemp(prefix="gradviz-bench-")
    out = os.path.join(tmp, "out.png")
    if probe_info.get("cli_graph_option"):
        script = os.path.join(tmp, "chain.py")
        with open(script, "w") as f:
            f.write("import torch\n" + body)
        argv = gradviz_command()[0] + ["run", script, "--graph", out]
        path = "cli: gradviz run SCRIPT --graph out.png"
    else:
        _need("gradviz.inspect", ("Recorder", "snapshot"))
        _need("gradviz.render.dot", ("render",))
        script = os.path.join(tmp, "chain_lib.py")
        indented = "".join("    " + line + "\n" for line in body.splitlines())
        with open(script, "w") as f:
            f.write(_LIBRARY.format(body=indented.rstrip("\n")))
        argv = [sys.executable, script, out]
        path = "library (the CLI has no --graph yet): Recorder + snapshot + dot.render, fresh python"

    info = {}

    def once():
        if os.path.exists(out):
            os.unlink(out)
        cp = subprocess.run(argv, capture_output=True, text=True, timeout=spec.get("timeout", 600),
                            cwd=tmp)
        if cp.returncode != 0:
            tail = " | ".join((cp.stderr or cp.stdout).strip().splitlines()[-3:])
            raise RuntimeError(f"exit status {cp.returncode}: {tail[:300]}")
        with open(out, "rb") as f:
            head = f.read(8)
        if head != b"\x89PNG\r\n\x1a\n":
            raise RuntimeError("the output is not a PNG")
        info["png_bytes"] = os.path.getsize(out)
        for line in cp.stdout.splitlines():
            if line.startswith("PNG "):
                _, w, h, n = line.split()
                info.update(png_width=int(w), png_height=int(h), graph_nodes=int(n))

    try:
        times, _ = _loop(once, reps)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dict(info, times=times, path=path, argv0=os.path.basename(argv[0]))


# ----------------------------------------------------------------------------- I4
def cli_startup(p, reps, spec):
    cmd, how = gradviz_command()

    def run(argv, check):
        def once():
            cp = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            if check and (cp.returncode != 0 or "Usage" not in cp.stdout):
                raise RuntimeError(f"`{' '.join(argv)}` exited {cp.returncode}: "
                                   f"{(cp.stderr or cp.stdout).strip()[:200]}")
        return once

    times, _ = _loop(run(cmd + ["--help"], True), reps)
    floor, _ = _loop(run([sys.executable, "-c", "pass"], False), reps)
    return {"times": times, "command": " ".join(cmd + ["--help"]), "found_as": how,
            "python_startup_s": median(floor)}
