#!/usr/bin/env python3
"""gradviz benchmark suite: the engine against a numpy floor and PyTorch, plus inspection.

usage: python3 bench/run.py [--quick] [--runs N] [--workloads W1,W3,I1] [--backends ...]
                            [--json PATH] [--markdown PATH] [--timeout S] [--check]

Engine workloads (gradviz, the numpy floor and PyTorch on the same inputs):
  W1  1,000 small ops on x(8,) cycling y*C, y+B, tanh, sin; us/op forward+backward
  W2  MLP step 128x784-512-512-10, relu, MSE; ms
  W3  the W1 cycle on x(4,) at depth 1k / 10k / 100k, default recursion limit; ms
  W4  10,000 (1,) leaves summed by a chain and by a pairwise tree; ms
  W5  memory: 50 layers tanh(h@W), batch 256, width 1024; RSS deltas in MiB
  W6  2048x2048 matmul forward+backward; ms
Inspection workloads (gradviz only, absolute limits):
  I1  snapshot + DOT of a 10,000-node graph      I2  the same at 100,000 nodes
  I3  collapsed PNG of a 10,000-op chain, end to end   I4  `gradviz --help` start-up

Method: every (run, workload variant, backend) is measured in a fresh worker process
(bench/worker.py) with OMP/MKL/OPENBLAS/NUMEXPR threads pinned (default 1) and a timeout;
a crash or timeout is recorded as a failure. Backend order is shuffled per run and variant.
Per worker: the median of the timed reps. Reported: the median over runs of those medians;
ratios are taken per run (same run, same variant) and then their median. Each backend's
gradients are checked against the numpy floor. W5 runs with MALLOC_MMAP_THRESHOLD_=65536
and measures peaks via /proc/self/status VmHWM, reset through /proc/self/clear_refs.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import time
from statistics import median

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bench import workloads as wl  # noqa: E402
from bench.worker import TAG, fingerprint_deviation  # noqa: E402

SCHEMA = "gradviz-bench/1"
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
               "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
WORKER = os.path.join(ROOT, "bench", "worker.py")
GRAD_TOL = 1e-3  # relative deviation of the gradient fingerprint from the numpy floor
DEFAULT_BACKENDS = ("gradviz", "numpy", "torch")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- workers
def worker_env(threads, key):
    env = dict(os.environ)
    for v in THREAD_VARS:
        env[v] = str(threads)
    env["PYTHONHASHSEED"] = "0"
    # Measure the checkout this script lives in, whatever else is installed.
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if key and wl.WORKLOADS[key].kind == "memory":
        env["MALLOC_MMAP_THRESHOLD_"] = "65536"  # freed buffers >= 64 KiB go back to the OS
    else:
        env.pop("MALLOC_MMAP_THRESHOLD_", None)
    return env


def spawn(argv, env, timeout):
    """Run a worker; -> (result dict, None) or (None, why it failed)."""
    t0 = time.monotonic()
    try:
        cp = subprocess.run([sys.executable, WORKER] + argv, env=env, capture_output=True,
                            text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None, f"timeout: worker killed after {timeout:g} s"
    for line in reversed(cp.stdout.splitlines()):
        if line.startswith(TAG):
            try:
                return json.loads(line[len(TAG):]), None
            except ValueError:
                break
    how = f"signal {-cp.returncode}" if cp.returncode < 0 else f"exit status {cp.returncode}"
    tail = " | ".join((cp.stderr or "").strip().splitlines()[-3:])
    return None, f"crash: worker died ({how}) after {time.monotonic() - t0:.1f} s: {tail[:300]}"


def jobs_for(keys):
    return [(k, vi) for k in keys for vi in range(len(wl.WORKLOADS[k].variants))]


def backends_for(key, backends):
    return list(backends) if wl.WORKLOADS[key].engine else ["gradviz"]


def run_suite(args, backends, data, json_path):
    jobs = jobs_for(args.workloads)
    total = sum(len(backends_for(k, backends)) for k, _ in jobs) * args.runs
    done = 0
    probe = data["machine"].get("inspection") or {}
    for run in range(args.runs):
        for key, vi in jobs:
            order = backends_for(key, backends)
            random.Random(f"{args.seed}:{run}:{key}:{vi}").shuffle(order)
            for b in order:
                done += 1
                spec = {"backend": b, "workload": key, "variant": vi, "run": run,
                        "threads": args.threads, "quick": args.quick, "timeout": args.timeout,
                        "torch_module": args.torch_module, "probe": probe}
                res, err = spawn([json.dumps(spec)], worker_env(args.threads, key), args.timeout)
                if res is None:
                    res = {"backend": b, "workload": key, "variant": vi, "run": run,
                           "params": wl.WORKLOADS[key].variants[vi],
                           "status": "timeout" if err.startswith("timeout") else "crash",
                           "error": err}
                data["results"].append(res)
                label = wl.variant_label(key, wl.WORKLOADS[key].variants[vi])
                if res["status"] == "ok" and "median_s" in res:
                    msg = f"{res['median_s'] * 1e3:11.3f} ms"
                elif res["status"] == "ok":
                    msg = f"bwd peak {res['mem']['bwd_peak_MiB']:.0f} MiB, after bwd " \
                          f"{res['mem']['after_bwd_MiB']:.0f} MiB"
                else:
                    msg = f"{res['status']}: {res.get('error', '')[:90]}"
                log(f"[{done:3d}/{total}] run {run + 1}/{args.runs} {key} {label:38.38s} {b:8s} {msg}")
                if json_path:
                    dump(json_path, data)


# ----------------------------------------------------------------------------- summary
def _per_run(results, key, vi, backend, row):
    vals, problems = {}, []
    for r in results:
        if (r["workload"], r["variant"], r["backend"]) != (key, vi, backend):
            continue
        if r["status"] == "ok":
            v = row.value(r)
            if v is not None:
                vals[r["run"]] = v
        else:
            problems.append((r["status"], r.get("error", "")))
    return vals, problems


def _ratio(a, b):
    runs = [a[k] / b[k] for k in a if k in b and b[k]]
    return median(runs) if runs else None


def grad_check(results, key, vi, backends):
    """Max fingerprint deviation from the numpy floor per backend (same run), or None."""
    ref = {r["run"]: r.get("fingerprint") for r in results
           if (r["workload"], r["variant"], r["backend"]) == (key, vi, "numpy") and r.get("fingerprint")}
    out = {}
    for b in backends:
        if b == "numpy":
            continue
        devs = [fingerprint_deviation(r["fingerprint"], ref[r["run"]]) for r in results
                if (r["workload"], r["variant"], r["backend"]) == (key, vi, b)
                and r.get("fingerprint") and r["run"] in ref]
        if devs:
            out[b] = max(devs)
    return out


def summarize(data, backends):
    results = data["results"]
    has_torch = "torch" in backends
    rows = []
    for key, vi in jobs_for(data["settings"]["workloads"]):
        work = wl.WORKLOADS[key]
        bs = backends_for(key, backends)
        checks = grad_check(results, key, vi, bs) if work.engine else {}
        for row in wl.rows_for(key, vi):
            per_run, values, problems = {}, {}, {}
            for b in bs:
                vals, probs = _per_run(results, key, vi, b, row)
                per_run[b] = vals
                if vals:
                    values[b] = median(vals.values())
                if probs:
                    problems[b] = probs
            ratios = {}
            if work.engine:
                if has_torch:
                    ratios["gradviz/torch"] = _ratio(per_run.get("gradviz", {}), per_run.get("torch", {}))
                ratios["gradviz/numpy"] = _ratio(per_run.get("gradviz", {}), per_run.get("numpy", {}))
            verdict, why = _verdict(row, values, ratios, problems, checks, has_torch, data)
            rows.append({"id": row.rid, "workload": key, "variant": vi, "label": row.label,
                         "unit": row.unit, "values": values,
                         "per_run": {b: {str(k): v for k, v in sorted(d.items())} for b, d in per_run.items()},
                         "ratios": ratios,
                         "target": ({"kind": row.target[0], "limit": row.target[1],
                                     "text": row.target_text()} if row.target else None),
                         "verdict": verdict, "verdict_reason": why,
                         "failures": {b: [f"{s}: {e}" for s, e in p] for b, p in problems.items()},
                         "grad_check": {b: (None if math.isinf(d) else d) for b, d in checks.items()},
                         "grad_ok": {b: d <= GRAD_TOL for b, d in checks.items()}})
    return rows


def _verdict(row, values, ratios, problems, checks, has_torch, data):
    gv_probs = [p for p in problems.get("gradviz", []) if p[0] != "skipped"]
    skipped = [p for p in problems.get("gradviz", []) if p[0] == "skipped"]
    if gv_probs:
        return "FAIL", f"gradviz {gv_probs[0][0]} in {len(gv_probs)} run(s): {gv_probs[0][1][:120]}"
    if "gradviz" not in values:
        if skipped:
            return "SKIP", skipped[0][1]
        return "n/a", "gradviz not measured"
    if checks.get("gradviz") is not None and not checks["gradviz"] <= GRAD_TOL:
        return "FAIL", f"gradviz gradients deviate from the numpy floor by {checks['gradviz']:.2g}"
    if not row.target:
        return "-", ""
    kind, limit = row.target
    if kind == "abs":
        ok = values["gradviz"] <= limit
        return ("PASS" if ok else "FAIL"), f"{values['gradviz']:.3g} {row.unit} vs <= {limit:g}"
    r = ratios.get("gradviz/torch")
    if r is None:
        if not has_torch:
            return "n/a", "torch not available: no ratio to judge"
        return "n/a", "torch did not produce a result in any run"
    return ("PASS" if r <= limit else "FAIL"), f"{r:.3g}x torch vs <= {limit:g}x"


# ----------------------------------------------------------------------------- table
def fmt(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def cell(row, b, backends):
    if b not in backends or (b != "gradviz" and row["workload"].startswith("I")):
        return "-"
    if b in row["values"]:
        v = fmt(row["values"][b])
        nfail = len([p for p in row["failures"].get(b, []) if not p.startswith("skipped")])
        return v + (f" ({nfail} failed)" if nfail else "")
    probs = row["failures"].get(b)
    if probs:
        return probs[0].split(":", 1)[0].upper()  # FAIL / CRASH / TIMEOUT / SKIPPED
    return "-"


def table(rows, backends):
    head = ["workload", "unit", "gradviz", "torch", "numpy", "gradviz/torch", "gradviz/numpy",
            "target", "verdict", "grads"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        gc_ = r["grad_check"]
        if not gc_:
            grads = "-"
        else:
            bad = [b for b, ok in r["grad_ok"].items() if not ok]
            grads = "ok" if not bad else "off: " + ", ".join(
                f"{b} {fmt(gc_[b]) if gc_[b] is not None else 'inf'}" for b in bad)
        cells = [r["label"], r["unit"], cell(r, "gradviz", backends), cell(r, "torch", backends),
                 cell(r, "numpy", backends),
                 fmt(r["ratios"].get("gradviz/torch")) + ("x" if r["ratios"].get("gradviz/torch") else ""),
                 fmt(r["ratios"].get("gradviz/numpy")) + ("x" if r["ratios"].get("gradviz/numpy") else ""),
                 r["target"]["text"] if r["target"] else "-", r["verdict"], grads]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def footnotes(rows, data):
    notes = []
    seen = set()
    for r in rows:
        for b, probs in r["failures"].items():
            for p in probs:
                k = (r["workload"], r["variant"], b, p)
                if k in seen:
                    continue
                seen.add(k)
                notes.append(f"- {r['workload']} {wl.variant_label(r['workload'], wl.WORKLOADS[r['workload']].variants[r['variant']])}, {b}: {p[:200]}")
    return notes


def machine_lines(data):
    m, s = data["machine"], data["settings"]
    out = [f"- machine: {m.get('cpu', '?')}, {m.get('nproc', '?')} CPUs "
           f"({m.get('affinity', '?')} usable), {m.get('mem_total_GiB', '?')} GiB; {m.get('platform', '?')}",
           f"- software: Python {m.get('python', '?')}, numpy {m.get('numpy', '?')} ({m.get('numpy_blas', '?')}), "
           f"torch {m.get('torch') or 'not available'}, gradviz {m.get('gradviz', '?')} "
           f"(commit {m.get('git_commit', '?')}), {m.get('graphviz') or 'Graphviz not found'}",
           f"- settings: {s['runs']} run(s){', quick' if s['quick'] else ''}, {s['threads']} thread(s), "
           f"backends {','.join(s['backends'])}, workloads {','.join(s['workloads'])}; "
           f"{data['started']} .. {data.get('finished', '?')}"]
    loads = [r["loadavg_start"] for r in data["results"] if r.get("loadavg_start") is not None]
    if loads:
        out.append(f"- 1-min load average as workers started: median {median(loads):.2f}, max {max(loads):.2f}")
    return out


def extra_lines(data):
    """A few secondary figures worth a line of their own (I-workload details, W5 tracemalloc)."""
    out = []
    by = {}
    for r in data["results"]:
        if r["status"] == "ok":
            by.setdefault((r["workload"], r["variant"], r["backend"]), []).append(r)

    def med(rs, k):
        vs = [r[k] for r in rs if r.get(k) is not None]
        return median(vs) if vs else None

    for (key, vi, b), rs in sorted(by.items()):
        if key in ("I1", "I2"):
            out.append(f"- {key}: {rs[0].get('graph_nodes')} backward nodes, {rs[0].get('forward_ops')} "
                       f"forward ops; first call: snapshot {fmt(med(rs, 'cold_snapshot_s'))} s + DOT "
                       f"{fmt(med(rs, 'cold_dot_s'))} s; warm repeats "
                       + (f"{fmt(med(rs, 'warm_median_s'))} s" if med(rs, 'warm_median_s') else "not run")
                       + "; "
                       f"recording forward+backward took {fmt(med(rs, 'build_and_backward_s'))} s (untimed)")
        elif key == "I3":
            out.append(f"- I3 path: {rs[0].get('path')}; PNG {rs[0].get('png_bytes')} bytes")
        elif key == "I4":
            out.append(f"- I4: `{rs[0].get('command')}` ({rs[0].get('found_as')}); bare "
                       f"`python -c pass` takes {fmt(med(rs, 'python_startup_s'))} s")
        elif key == "W5":
            mems = [r["mem"] for r in rs]
            keys = ("fwd_peak_MiB", "after_fwd_MiB", "bwd_peak_MiB", "after_bwd_MiB",
                    "after_release_MiB", "after_grads_dropped_MiB")
            vals = ", ".join(f"{k[:-4]} {fmt(median(m[k] for m in mems))}" for k in keys)
            out.append(f"- W5 {b} (MiB): {vals}")
    return out


def render(data, backends):
    rows = data["summary"]
    L = table(rows, backends)
    notes = footnotes(rows, data)
    L += ["", "Values: median over runs of each worker's median; ratios: per-run ratio, median "
          "over runs; lower is better. grads: gradient fingerprint vs the numpy floor "
          f"(relative deviation <= {GRAD_TOL:g})."]
    L += [""] + machine_lines(data)
    extra = extra_lines(data)
    if extra:
        L += ["", "Details:"] + extra
    if data["notes"]:
        L += ["", "Notes:"] + [f"- {n}" for n in data["notes"]]
    if notes:
        L += ["", "Failures and skips:"] + notes
    return "\n".join(L) + "\n"


def dump(path, data):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, default=str)
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- main
def parse(argv):
    ap = argparse.ArgumentParser(prog="bench/run.py", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: same sizes, few reps, 1 run unless --runs is given")
    ap.add_argument("--runs", type=int, help="repetitions of the whole suite (default 3; 1 with --quick)")
    ap.add_argument("--workloads", default="all",
                    help="comma list of W1..W6, I1..I4, or 'engine' / 'inspect' / 'all' (default all)")
    ap.add_argument("--backends", default=",".join(DEFAULT_BACKENDS),
                    help="comma list of gradviz,numpy,torch (default all three; torch is skipped "
                         "with a note when it is not importable)")
    ap.add_argument("--json", metavar="PATH", help="write settings, machine, raw results and summary")
    ap.add_argument("--markdown", metavar="PATH", help="also write the table and notes as markdown")
    ap.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP/torch threads (default 1)")
    ap.add_argument("--timeout", type=float, help="per-worker timeout in s (default 900; 300 with --quick)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the backend-order shuffle")
    ap.add_argument("--torch-module", default="torch", help=argparse.SUPPRESS)
    ap.add_argument("--check", action="store_true", help="exit 1 when any target FAILs")
    ap.add_argument("--list", action="store_true", help="list the workloads and exit")
    args = ap.parse_args(argv)
    if args.runs is None:
        args.runs = 1 if args.quick else 3
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    if args.timeout is None:
        args.timeout = 300.0 if args.quick else 900.0
    keys = []
    for w in (x.strip() for x in args.workloads.split(",") if x.strip()):
        u = w.upper()
        if u == "ALL":
            keys += list(wl.WORKLOADS)
        elif u == "ENGINE":
            keys += [k for k, v in wl.WORKLOADS.items() if v.engine]
        elif u == "INSPECT":
            keys += [k for k, v in wl.WORKLOADS.items() if not v.engine]
        elif u in wl.WORKLOADS:
            keys.append(u)
        else:
            ap.error(f"unknown workload {w!r}; known: {', '.join(wl.WORKLOADS)}, engine, inspect, all")
    args.workloads = [k for k in wl.WORKLOADS if k in keys]
    args.backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    bad = [b for b in args.backends if b not in DEFAULT_BACKENDS]
    if bad or not args.backends:
        ap.error(f"unknown backend(s) {bad}; known: {', '.join(DEFAULT_BACKENDS)}")
    return args


def main(argv=None):
    args = parse(argv)
    if args.list:
        for k, w in wl.WORKLOADS.items():
            rows = [r for vi in range(len(w.variants)) for r in wl.rows_for(k, vi)]
            print(f"{k}  {w.title}: " + "; ".join(wl.variant_label(k, p) for p in w.variants)
                  + f"  [target {rows[0].target_text()}]")
        return 0

    data = {"schema": SCHEMA, "argv": sys.argv[1:] if argv is None else list(argv),
            "started": time.strftime("%Y-%m-%d %H:%M:%S"),
            "settings": {"quick": args.quick, "runs": args.runs, "threads": args.threads,
                         "workloads": args.workloads, "backends": list(args.backends),
                         "timeout_s": args.timeout, "seed": args.seed, "grad_tolerance": GRAD_TOL,
                         "requested_backends": list(args.backends)},
            "notes": [], "results": [], "summary": []}
    machine, err = spawn(["--machine", args.torch_module], worker_env(args.threads, None), 300)
    data["machine"] = machine or {"error": err}
    if machine is None:
        log(f"bench: could not describe the machine ({err})")

    backends = list(args.backends)
    if "torch" in backends and not (machine or {}).get("torch"):
        why = (machine or {}).get("torch_error", "unknown reason")
        msg = (f"PyTorch is not importable by {sys.executable} ({why}). The torch backend is "
               "skipped: the x-torch ratios and the targets judged against torch read n/a. "
               "Install it (e.g. `pip install torch==2.13.0`) for the full comparison.")
        log("bench: " + msg)
        data["notes"].append(msg)
        backends.remove("torch")
    data["settings"]["backends"] = backends
    probe = (machine or {}).get("inspection") or {}
    if any(not wl.WORKLOADS[k].engine for k in args.workloads):
        for mod in ("gradviz.inspect", "gradviz.render.dot"):
            if probe.get(mod, "ok") != "ok":
                data["notes"].append(f"{probe[mod]}: inspection workloads that need it are skipped")
        if "I3" in args.workloads:
            if not probe.get("graphviz"):
                data["notes"].append("no Graphviz to draw with (neither pygraphviz nor system `dot`): "
                                     "I3 (PNG) is skipped")
            elif not probe.get("cli_graph_option"):
                data["notes"].append("`gradviz run` has no --graph option yet: I3 renders through "
                                     "the library (Recorder, snapshot, dot.render) in a fresh python")

    log(f"bench: {args.runs} run(s) of {','.join(args.workloads)} on {','.join(backends)}"
        f"{' (quick)' if args.quick else ''}, {args.threads} thread(s), timeout {args.timeout:g} s")
    try:
        run_suite(args, backends, data, args.json)
    except KeyboardInterrupt:
        data["notes"].append("interrupted: partial results")
        log("bench: interrupted; reporting what was measured")
    data["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
    data["summary"] = summarize(data, backends)
    text = render(data, backends)
    if args.json:
        dump(args.json, data)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    sys.stdout.write(text)
    sys.stdout.flush()
    if args.check and any(r["verdict"] == "FAIL" for r in data["summary"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
