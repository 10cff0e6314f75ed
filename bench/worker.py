"""One measurement in its own process: ``python bench/worker.py SPEC_JSON``.

The orchestrator starts a fresh worker for every (run, workload variant, backend), with the
thread environment already pinned. The worker prints exactly one line starting with
``@@BENCH@@ `` holding its result as JSON; anything else on stdout is ignored. A worker that
crashes, hangs or prints no such line becomes a recorded failure in the orchestrator.

``python bench/worker.py --machine`` prints the machine description the same way.
"""
import gc
import json
import math
import os
import platform
import subprocess
import sys
import time
from statistics import median

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bench import inspection  # noqa: E402
from bench import workloads as wl  # noqa: E402

TAG = "@@BENCH@@ "
MiB = float(1 << 20)


# ----------------------------------------------------------------------------- gradients
def fingerprint(arrays):
    """Order-aware summary of all gradients: count, L2 norm and a fixed random projection."""
    import numpy as np

    if any(a is None for a in arrays):
        return {"error": "a gradient is None"}
    rng = np.random.default_rng(12345)  # one stream over all gradients, in order
    count, sq, proj, finite, dtypes = 0, 0.0, 0.0, True, set()
    for a in arrays:
        dtypes.add(str(a.dtype))
        v = np.asarray(a, dtype=np.float64).reshape(-1)
        r = rng.standard_normal(v.size)
        count += v.size
        sq += float(v @ v)
        proj += float(v @ r)
        finite = finite and bool(np.isfinite(v).all())
    return {"n": count, "norm": math.sqrt(sq), "proj": proj, "finite": finite,
            "dtypes": sorted(dtypes)}


def fingerprint_deviation(fp, ref):
    """Relative deviation of ``fp`` from the reference fingerprint; inf if incomparable."""
    if not fp or not ref or "error" in fp or "error" in ref or fp["n"] != ref["n"]:
        return float("inf")
    if not fp.get("finite", True):
        return float("inf")
    scale = ref["norm"] or 1.0
    return max(abs(fp["norm"] - ref["norm"]), abs(fp["proj"] - ref["proj"])) / scale


# ----------------------------------------------------------------------------- timing
def timed_loop(run, reset, reps):
    """Warm-up calls, then timed calls until min reps are done and the budget is spent.

    Only ``run`` is timed (graph building, backward and graph teardown); the grad reset and
    a full gc.collect() happen before the clock starts. Automatic GC stays on while timing.
    """
    warmup, min_reps, max_reps, budget = reps
    for _ in range(warmup):
        reset()
        run()
    times = []
    start = time.perf_counter()
    while len(times) < max_reps and (len(times) < min_reps or time.perf_counter() - start < budget):
        reset()
        gc.collect()
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return times


# ----------------------------------------------------------------------------- memory (W5)
def _status_bytes(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def _rss():
    return _status_bytes("VmRSS")


def _peak():
    return _status_bytes("VmHWM")


def _reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the current RSS


def measure_memory(backend, steps):
    """RSS deltas against the state after the parameters exist and one warm-up step ran.

    Needs MALLOC_MMAP_THRESHOLD_=65536 in the environment (set by the orchestrator), so
    freed buffers of 64 KiB and more go back to the OS and RSS follows live memory.
    """
    steps.reset()
    grads = steps.backward(steps.forward())  # warm-up: lazy imports, first-call paths
    arrays = [backend.to_numpy(g) for g in grads]
    fp = fingerprint(arrays)
    grad_mib = sum(a.nbytes for a in arrays if a is not None) / MiB
    del grads, arrays
    steps.reset()
    gc.collect()

    base = _rss()
    _reset_peak()
    t0 = time.perf_counter()
    handle = steps.forward()
    t1 = time.perf_counter()
    fwd_peak = _peak()
    gc.collect()
    after_fwd = _rss()
    _reset_peak()
    t2 = time.perf_counter()
    grads = steps.backward(handle)
    t3 = time.perf_counter()
    bwd_peak = _peak()
    gc.collect()
    after_bwd = _rss()  # the graph handle is still referenced here
    del handle
    gc.collect()
    after_release = _rss()
    del grads
    steps.reset()
    gc.collect()
    after_all = _rss()
    mem = {"base_rss_MiB": base / MiB, "grad_MiB": grad_mib,
           "fwd_peak_MiB": (fwd_peak - base) / MiB, "after_fwd_MiB": (after_fwd - base) / MiB,
           "bwd_peak_MiB": (bwd_peak - base) / MiB, "after_bwd_MiB": (after_bwd - base) / MiB,
           "after_release_MiB": (after_release - base) / MiB,
           "after_grads_dropped_MiB": (after_all - base) / MiB,
           "fwd_s": t1 - t0, "bwd_s": t3 - t2}

    if backend.numpy_based:  # numpy reports its buffers to tracemalloc: a second view
        import tracemalloc

        tracemalloc.start()
        b0 = tracemalloc.get_traced_memory()[0]
        handle = steps.forward()
        cur, peak = tracemalloc.get_traced_memory()
        mem["tm_fwd_peak_MiB"], mem["tm_after_fwd_MiB"] = (peak - b0) / MiB, (cur - b0) / MiB
        tracemalloc.reset_peak()
        grads = steps.backward(handle)
        cur, peak = tracemalloc.get_traced_memory()
        mem["tm_bwd_peak_MiB"], mem["tm_after_bwd_MiB"] = (peak - b0) / MiB, (cur - b0) / MiB
        del handle, grads
        tracemalloc.stop()
    return mem, fp


# ----------------------------------------------------------------------------- one job
def run_job(spec):
    res = {k: spec.get(k) for k in ("backend", "workload", "variant", "run")}
    res["params"] = wl.WORKLOADS[spec["workload"]].variants[spec["variant"]]
    res["pid"] = os.getpid()
    res["loadavg_start"] = os.getloadavg()[0]
    res["recursion_limit"] = sys.getrecursionlimit()
    work = wl.WORKLOADS[spec["workload"]]
    p = res["params"]
    reps = wl.reps_for(work.key, spec.get("quick", False))
    try:
        if work.kind == "inspect":
            out = getattr(inspection, work.method)(p, reps, spec)
            res.update(out)
            res["median_s"] = median(res["times"])
        else:
            from bench.backends import Unavailable, make_backend

            backend = make_backend(spec["backend"], spec.get("torch_module", "torch"))
            try:
                backend.setup(spec.get("threads", 1))
            except Unavailable as e:
                res.update(status="skipped", error=str(e))
                return res
            res["backend_info"] = backend.info()
            built = getattr(backend, work.method)(wl.make_inputs(work.key, p), p)
            if work.kind == "memory":
                res["mem"], res["fingerprint"] = measure_memory(backend, built)
            else:
                built.reset()
                grads = built.run()  # the first call: gradients checked, and warm-up #1
                res["fingerprint"] = fingerprint([backend.to_numpy(g) for g in grads])
                del grads
                warm, lo, hi, budget = reps
                res["times"] = timed_loop(built.run, built.reset, (max(warm - 1, 0), lo, hi, budget))
                res["median_s"] = median(res["times"])
        res["status"] = "ok"
    except inspection.Skip as e:
        res["status"], res["error"] = "skipped", str(e)
    except Exception as e:  # RecursionError, MemoryError, anything: a recorded failure
        import traceback

        res["status"] = "fail"
        res["error"] = f"{type(e).__name__}: {e}"[:400]
        res["traceback"] = traceback.format_exc()[-2000:]
    res["loadavg_end"] = os.getloadavg()[0]
    return res


# ----------------------------------------------------------------------------- machine
def _cmd(argv, timeout=20):
    try:
        cp = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        return (cp.stdout + cp.stderr).strip()
    except Exception as e:
        return f"unavailable ({type(e).__name__})"


def machine_info(torch_module="torch"):
    info = {"python": sys.version.split()[0], "executable": sys.executable,
            "platform": platform.platform(), "nproc": os.cpu_count(),
            "affinity": len(os.sched_getaffinity(0))}
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu"] = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except Exception:
        info["cpu"] = platform.processor() or "?"
    try:
        with open("/proc/meminfo") as f:
            info["mem_total_GiB"] = round(int(f.readline().split()[1]) / 2**20, 1)
    except Exception:
        pass
    info["thread_env"] = {v: os.environ.get(v) for v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                                          "OPENBLAS_NUM_THREADS")}
    import numpy as np

    info["numpy"] = np.__version__
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        info["numpy_blas"] = f"{blas.get('name')} {blas.get('version')}"
    except Exception:
        info["numpy_blas"] = "?"
    try:
        T = __import__("importlib").import_module(torch_module)
        info["torch"] = str(getattr(T, "__version__", "?"))
    except Exception as e:
        info["torch"] = None
        info["torch_error"] = f"{type(e).__name__}: {e}"[:300]
    try:
        import gradviz

        info["gradviz"] = gradviz.__version__
        info["gradviz_path"] = os.path.dirname(gradviz.__file__)
    except Exception as e:
        info["gradviz"] = None
        info["gradviz_error"] = f"{type(e).__name__}: {e}"[:300]
    git = _cmd(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    if git and " " not in git:
        dirty = _cmd(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"])
        info["git_commit"] = git + ("+uncommitted changes" if dirty else "")
    info["graphviz"] = _graphviz_version()
    info["inspection"] = inspection.probe()
    return info


def _graphviz_version():
    """The Graphviz gradviz draws with: pygraphviz's bundled one, else the system's `dot`."""
    try:
        import pygraphviz

        return f"pygraphviz {pygraphviz.__version__} (bundled Graphviz)"
    except ImportError:
        import shutil

        return _cmd(["dot", "-V"]) if shutil.which("dot") else None


def main(argv):
    if argv and argv[0] == "--machine":
        out = machine_info(argv[1] if len(argv) > 1 else "torch")
    else:
        out = run_job(json.loads(argv[0]))
    sys.stdout.flush()
    sys.stdout.write("\n" + TAG + json.dumps(out) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
