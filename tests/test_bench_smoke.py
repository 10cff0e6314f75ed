"""bench/run.py runs end to end and writes well-formed JSON.

Smoke tests only: the quickest mode on a tiny subset of workloads. Nothing here asserts a
timing, a ratio or a verdict that depends on speed -- only structure, statuses and that
failures (a missing torch, a worker timeout) are reported instead of crashing the suite.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "bench" / "run.py"


def bench(tmp_path, *args, timeout=300):
    out = tmp_path / "bench.json"
    cp = subprocess.run([sys.executable, str(RUN), *args, "--json", str(out)], cwd=ROOT,
                        capture_output=True, text=True, timeout=timeout)
    assert cp.returncode == 0, cp.stderr[-2000:]
    return cp, json.loads(out.read_text())


@pytest.mark.slow
def test_quick_run_json_structure(tmp_path):
    cp, data = bench(tmp_path, "--quick", "--runs", "1", "--workloads", "W1,I4",
                     "--backends", "numpy,gradviz")
    assert data["schema"] == "gradviz-bench/1"
    s = data["settings"]
    assert s["quick"] is True and s["runs"] == 1 and s["threads"] == 1
    assert s["workloads"] == ["W1", "I4"] and s["backends"] == ["numpy", "gradviz"]
    for key in ("python", "numpy", "cpu", "nproc", "inspection"):
        assert key in data["machine"], key
    assert data["started"] and data["finished"]

    # one worker per (run, variant, backend); inspection workloads run on gradviz only
    got = sorted((r["workload"], r["backend"]) for r in data["results"])
    assert got == [("I4", "gradviz"), ("W1", "gradviz"), ("W1", "numpy")]
    for r in data["results"]:
        assert r["status"] == "ok", r
        assert r["run"] == 0 and isinstance(r["params"], dict)
        assert r["times"] and all(isinstance(t, float) and t > 0 for t in r["times"])
        assert r["median_s"] > 0
    w1 = {r["backend"]: r for r in data["results"] if r["workload"] == "W1"}
    for r in w1.values():
        fp = r["fingerprint"]
        assert fp["n"] == 8 and fp["finite"] and fp["dtypes"] == ["float32"]
        assert r["recursion_limit"] == 1000  # workers keep Python's default limit
    assert w1["gradviz"]["backend_info"]["module"] == "gradviz.torch"

    rows = {row["id"]: row for row in data["summary"]}
    assert set(rows) == {"W1.0", "I4.0"}
    w1row = rows["W1.0"]
    assert w1row["unit"] == "us/op"
    assert set(w1row["values"]) == {"gradviz", "numpy"}
    assert set(w1row["ratios"]) == {"gradviz/numpy"}  # torch was not asked for
    assert w1row["ratios"]["gradviz/numpy"] > 0
    assert w1row["target"] == {"kind": "torch", "limit": 0.8, "text": "<= 0.8x torch"}
    assert w1row["verdict"] == "n/a"  # no torch in this run: nothing to judge against
    assert w1row["grad_ok"] == {"gradviz": True}
    i4 = rows["I4.0"]
    assert i4["unit"] == "s" and i4["target"]["kind"] == "abs" and i4["target"]["limit"] == 0.25
    assert i4["verdict"] in ("PASS", "FAIL")  # which one is a timing matter, not checked

    assert "| workload | unit | gradviz | torch | numpy |" in cp.stdout
    assert "W1 small-op overhead" in cp.stdout and "I4 `gradviz --help`" in cp.stdout
    assert "machine:" in cp.stdout


def test_missing_torch_is_a_note_not_a_crash(tmp_path):
    cp, data = bench(tmp_path, "--quick", "--workloads", "W1", "--backends", "gradviz,torch",
                     "--torch-module", "gradviz_bench_no_such_module")
    assert data["settings"]["backends"] == ["gradviz"]
    assert data["machine"]["torch"] is None
    assert any("not importable" in n for n in data["notes"])
    assert "not importable" in cp.stderr and "not importable" in cp.stdout
    (row,) = data["summary"]
    assert row["verdict"] == "n/a" and "gradviz/torch" not in row["ratios"]
    assert [r["backend"] for r in data["results"]] == ["gradviz"]


@pytest.mark.slow
def test_worker_timeout_is_recorded_as_a_failure(tmp_path):
    cp, data = bench(tmp_path, "--quick", "--workloads", "W1", "--backends", "numpy",
                     "--timeout", "0.01")
    (res,) = data["results"]
    assert res["status"] == "timeout" and "timeout" in res["error"]
    (row,) = data["summary"]
    assert row["failures"]["numpy"] and row["values"] == {}
    assert "TIMEOUT" in cp.stdout


def test_list_and_usage_errors():
    cp = subprocess.run([sys.executable, str(RUN), "--list"], cwd=ROOT, capture_output=True,
                        text=True, timeout=60)
    assert cp.returncode == 0
    for key in ("W1", "W2", "W3", "W4", "W5", "W6", "I1", "I2", "I3", "I4"):
        assert f"\n{key}  " in "\n" + cp.stdout
    cp = subprocess.run([sys.executable, str(RUN), "--workloads", "W9"], cwd=ROOT,
                        capture_output=True, text=True, timeout=60)
    assert cp.returncode == 2 and "unknown workload" in cp.stderr


@pytest.mark.parametrize("key", ["W1", "W2", "W3", "W4", "W5", "W6"])
def test_numpy_floor_matches_finite_differences(key):
    """The floor is the gradient reference: check it on small inputs (no timing)."""
    import numpy as np

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from bench import workloads as wl
    from bench.backends import NumpyFloor

    small = {"W1": {"shape": [3], "depth": 9}, "W2": {"batch": 2, "sizes": [3, 4, 2]},
             "W3": {"shape": [2], "depth": 6}, "W4": {"n": 5, "mode": "tree"},
             "W5": {"layers": 3, "width": 3, "batch": 2}, "W6": {"n": 3}}[key]
    fl = NumpyFloor()
    fl.setup(1)
    inp = wl.make_inputs(key, small)
    inp = {k: (np.asarray(v, dtype=np.float64) if isinstance(v, np.ndarray) else
               [np.asarray(a, dtype=np.float64) for a in v] if isinstance(v, list) else v)
           for k, v in inp.items()}
    method = wl.WORKLOADS[key].method
    built = getattr(fl, method)(inp, small)
    if key == "W5":
        grads = built.backward(built.forward())
    else:
        grads = built.run()

    # the scalar each workload differentiates, and which inputs the gradients belong to
    def loss():
        if key in ("W1", "W3"):
            y = inp["x"]
            for k in range(small["depth"]):
                y = wl.chain_step(k, y, inp["C"], inp["B"], np.tanh, np.sin)
            return y.sum()
        if key == "W2":
            h, ps = inp["x"], inp["params"]
            for i in range(len(ps) // 2):
                h = h @ ps[2 * i] + ps[2 * i + 1]
                if i + 1 < len(ps) // 2:
                    h = np.maximum(h, 0)
            return np.mean((h - inp["Y"]) ** 2)
        if key == "W4":
            return wl.add_tree(inp["leaves"]).sum()
        if key == "W5":
            h = inp["x"]
            for W in inp["Ws"]:
                h = np.tanh(h @ W)
            return h.sum()
        return (inp["A"] @ inp["B"] * inp["G"]).sum()

    wrt = {"W1": lambda: [inp["x"]], "W3": lambda: [inp["x"]], "W2": lambda: inp["params"],
           "W4": lambda: inp["leaves"], "W5": lambda: inp["Ws"],
           "W6": lambda: [inp["A"], inp["B"]]}[key]()
    assert len(grads) == len(wrt)
    eps = 1e-6
    for arr, g in zip(wrt, grads):
        num = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            old = arr[idx]
            arr[idx] = old + eps
            up = loss()
            arr[idx] = old - eps
            down = loss()
            arr[idx] = old
            num[idx] = (up - down) / (2 * eps)
        np.testing.assert_allclose(np.broadcast_to(g, arr.shape), num, rtol=1e-5, atol=1e-6)


def test_real_torch_bench_pieces_run():
    """bench/real_torch.py's measurements run and report (tiny sizes; no timing is judged)."""
    pytest.importorskip("torch")
    sys.path.insert(0, str(ROOT))
    from bench import real_torch

    t1 = real_torch.t1_mlp(1)
    assert t1["plain_ms"] > 0 and t1["recorded_ms"] > 0 and t1["value"] > 0
    for recorded in (False, True):
        t2 = real_torch.t2_chain(1000, recorded)
        assert t2["nodes"] == 1002 and t2["value"] > 0
