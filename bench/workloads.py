"""What the benchmark measures: workloads, their inputs, their headline rows and targets.

Shared by the orchestrator (``bench/run.py``) and the workers (``bench/worker.py``).
Imports nothing heavy at module level: numpy is imported only where inputs are made.

Two groups of workloads:

* engine workloads W1..W6, run
  on every backend (gradviz, the numpy floor, PyTorch) so their numbers are comparable;
* inspection workloads I1..I4, run on gradviz alone (snapshot, DOT, PNG, CLI start-up),
  judged against absolute time limits.

Every input is float32 and made from one fixed seed, identical for every backend.
"""
import math

SEED = 0
OP_CYCLE = ("mul", "add", "tanh", "sin")  # k-th op of W1/W3 = OP_CYCLE[k % 4]


class Workload:
    """One workload.

    kind: 'time' (forward+backward timed in a loop), 'memory' (W5: RSS deltas) or
    'inspect' (gradviz-only inspection and rendering; see ``bench/inspection.py``).
    method: the backend builder (time/memory) or inspection function that runs it.
    variants: parameter dicts; each variant is measured separately.
    reps: (warm-up calls, minimum timed reps, maximum timed reps, time budget in s).
    """

    def __init__(self, key, title, kind, method, variants, reps=(2, 5, 100, 3.0)):
        self.key, self.title, self.kind, self.method = key, title, kind, method
        self.variants = variants
        self.reps = reps

    @property
    def engine(self):
        return self.kind in ("time", "memory")


WORKLOADS = {
    "W1": Workload("W1", "small-op overhead", "time", "chain",
                   [{"shape": [8], "depth": 1000}], reps=(3, 10, 200, 3.0)),
    "W2": Workload("W2", "MLP step", "time", "mlp",
                   [{"batch": 128, "sizes": [784, 512, 512, 10]}], reps=(3, 10, 100, 3.0)),
    "W3": Workload("W3", "deep chain", "time", "chain",
                   [{"shape": [4], "depth": d} for d in (1_000, 10_000, 100_000)],
                   reps=(1, 3, 50, 3.0)),
    "W4": Workload("W4", "10,000 leaves summed", "time", "wide",
                   [{"n": 10_000, "mode": "chain"}, {"n": 10_000, "mode": "tree"}],
                   reps=(2, 5, 100, 3.0)),
    "W5": Workload("W5", "memory", "memory", "mem_chain",
                   [{"layers": 50, "width": 1024, "batch": 256}]),
    "W6": Workload("W6", "matmul fwd+bwd", "time", "matmul",
                   [{"n": 2048}], reps=(1, 5, 20, 5.0)),
    "I1": Workload("I1", "snapshot + DOT", "inspect", "snapshot_dot",
                   [{"nodes": 10_000}], reps=(1, 3, 20, 3.0)),
    "I2": Workload("I2", "snapshot + DOT", "inspect", "snapshot_dot",
                   [{"nodes": 100_000}], reps=(0, 1, 2, 0.0)),
    "I3": Workload("I3", "collapsed PNG, end to end", "inspect", "png_end_to_end",
                   [{"depth": 10_000}], reps=(1, 3, 5, 20.0)),
    "I4": Workload("I4", "`gradviz --help` start-up", "inspect", "cli_startup",
                   [{}], reps=(2, 9, 15, 3.0)),
}

ENGINE_BACKENDS = ("gradviz", "numpy", "torch")

# Quick mode: same sizes (so the numbers stay comparable), far fewer repetitions.
QUICK_REPS = (1, 3, 5, 0.5)
QUICK_REPS_INSPECT = {"I1": (0, 1, 1, 0.0), "I2": (0, 0, 0, 0.0), "I3": (0, 1, 1, 0.0),
                      "I4": (1, 3, 3, 0.0)}


def reps_for(key, quick):
    if quick:
        return QUICK_REPS_INSPECT.get(key, QUICK_REPS)
    return WORKLOADS[key].reps


def variant_label(key, p):
    if key in ("W1", "W3"):
        return f"x{tuple(p['shape'])}, {p['depth']:,} ops"
    if key == "W2":
        return f"{p['batch']}x" + "-".join(str(s) for s in p["sizes"]) + ", relu, MSE"
    if key == "W4":
        return f"{p['n']:,} (1,) leaves, {p['mode']}"
    if key == "W5":
        return f"{p['layers']} layers tanh(h@W), batch {p['batch']}, width {p['width']}"
    if key == "W6":
        return f"{p['n']}x{p['n']}"
    if key in ("I1", "I2"):
        return f"{p['nodes']:,}-node graph"
    if key == "I3":
        return f"{p['depth']:,}-op chain"
    if key == "I4":
        return "subprocess, median"
    return ",".join(f"{k}={v}" for k, v in p.items())


# ----------------------------------------------------------------------------- rows & targets
class Row:
    """One line of the result table: a headline number extracted from a worker result.

    value(result) -> float or None, in ``unit``. ``target`` is (kind, limit): ('torch', r)
    means gradviz/torch <= r, ('abs', s) means the gradviz value itself <= s.
    """

    def __init__(self, rid, label, unit, value, target=None):
        self.rid, self.label, self.unit, self.value, self.target = rid, label, unit, value, target

    def target_text(self):
        if not self.target:
            return "-"
        kind, lim = self.target
        if kind == "torch":
            return f"<= {lim:g}x torch"
        return f"<= {lim:g} {self.unit}"


def _median_s(scale):
    def get(res):
        m = res.get("median_s")
        return None if m is None else m * scale
    return get


def _mem(field):
    def get(res):
        return (res.get("mem") or {}).get(field)
    return get


def rows_for(key, vi):
    """The table rows of one workload variant."""
    p = WORKLOADS[key].variants[vi]
    label = f"{key} {WORKLOADS[key].title}: {variant_label(key, p)}"
    if key == "W1":
        return [Row(f"{key}.{vi}", label, "us/op", _median_s(1e6 / p["depth"]), ("torch", 0.8))]
    if key == "W2":
        return [Row(f"{key}.{vi}", label, "ms", _median_s(1e3), ("torch", 1.1))]
    if key in ("W3", "W4", "W6"):
        return [Row(f"{key}.{vi}", label, "ms", _median_s(1e3), ("torch", 1.0))]
    if key == "W5":
        return [Row(f"{key}.{vi}.bwd_peak", f"{label}: peak in backward", "MiB",
                    _mem("bwd_peak_MiB"), ("torch", 1.05)),
                Row(f"{key}.{vi}.after_bwd", f"{label}: after backward", "MiB",
                    _mem("after_bwd_MiB"), ("torch", 1.05))]
    limits = {"I1": 0.5, "I2": 5.0, "I3": 5.0, "I4": 0.25}
    return [Row(f"{key}.{vi}", label, "s", _median_s(1.0), ("abs", limits[key]))]


# ----------------------------------------------------------------------------- inputs
def make_inputs(key, p):
    """Seeded float32 numpy inputs for an engine workload, the same for every backend."""
    import numpy as np

    rng = np.random.default_rng(SEED)
    f32 = np.float32
    if key in ("W1", "W3"):
        shape = tuple(p["shape"])
        # C = -1.0 (a Python float) keeps |dy_{k+1}/dy_k| near 1: no underflow at any depth.
        return {"x": rng.uniform(-1.0, 1.0, shape).astype(f32),
                "B": (0.01 * rng.standard_normal(shape)).astype(f32), "C": -1.0}
    if key == "W2":
        sizes, batch = p["sizes"], p["batch"]
        params = []
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
            params.append((rng.standard_normal((fan_in, fan_out)) * math.sqrt(2.0 / fan_in)).astype(f32))
            params.append((0.01 * rng.standard_normal(fan_out)).astype(f32))
        labels = rng.integers(0, sizes[-1], batch)
        return {"x": rng.standard_normal((batch, sizes[0])).astype(f32),
                "Y": np.eye(sizes[-1], dtype=f32)[labels], "params": params}
    if key == "W4":
        vals = rng.standard_normal(p["n"]).astype(f32)
        return {"leaves": [np.array([v], dtype=f32) for v in vals]}
    if key == "W5":
        w = p["width"]
        return {"x": rng.standard_normal((p["batch"], w)).astype(f32),
                "Ws": [(rng.standard_normal((w, w)) / math.sqrt(w)).astype(f32)
                       for _ in range(p["layers"])]}
    if key == "W6":
        n = p["n"]
        return {name: rng.standard_normal((n, n)).astype(f32) for name in ("A", "B", "G")}
    raise KeyError(key)


def chain_step(k, y, C, B, tanh, sin):
    """The k-th op of the W1/W3 cycle: y*C, y+B, tanh(y), sin(y)."""
    r = k & 3
    if r == 0:
        return y * C
    if r == 1:
        return y + B
    if r == 2:
        return tanh(y)
    return sin(y)


def add_chain(xs):
    """Left-to-right chain of adds: depth len(xs) - 1."""
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    return total


def add_tree(xs):
    """Balanced pairwise tree of adds: depth ceil(log2 len(xs))."""
    level = list(xs)
    while len(level) > 1:
        paired = [level[i] + level[i + 1] for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]
