"""Score gradviz against real PyTorch on the conformance corpus.

usage (from the project root, with gradviz installed):

    python conformance/score.py                 # every case; the last line is the score
    python conformance/score.py -v              # ... and the checks that failed
    python conformance/score.py s002 c07 -v     # only the cases whose names start so
    python conformance/score.py --min 99.5      # exit 1 below 99.5 %

For each ``conformance/expected/CASE.json`` (what PyTorch 2.13 did, written by record.py)
the case is run as ``gradviz run CASE --json`` and every cell is checked:

- ``error``:   the exception's type, and its message verbatim (unless it is random);
- ``stdout``:  each printed line (addresses normalised; lines that vary with the seed skipped);
- ``tensors``: per named tensor, its metadata (shape, dtype, requires_grad, is_leaf,
  retains_grad, grad_fn), whether it has a grad, and its values and its grad's values
  (rtol 1e-4, atol 1e-5; values that vary with the seed are skipped).

A tensor that gradviz does not list (its cell crashed, the run died) fails every check it
would have had, and a cell that gradviz did not report fails all of its checks: a crash
never makes the denominator smaller. Prints a line per case, ``by kind: ...`` and last
``conformance: P/T checks (X%)``.
"""
import argparse
import json
import math
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
METADATA = ("shape", "dtype", "requires_grad", "is_leaf", "retains_grad", "grad_fn")
DEFAULT_COMMAND = f"{shlex.quote(sys.executable)} -m gradviz run {{script}} --json"
CASE_TIMEOUT = 300  # seconds for one case


@dataclass
class CaseScore:
    name: str
    passed: int = 0
    total: int = 0
    failures: list = field(default_factory=list)
    by_kind: dict = field(default_factory=dict)  # kind -> [passed, total]

    def check(self, ok, kind, what, weight=1):
        self.total += weight
        tally = self.by_kind.setdefault(kind, [0, 0])
        tally[1] += weight
        if ok:
            self.passed += weight
            tally[0] += weight
        else:
            self.failures.append(what)


def close(got, want, rtol=1e-4, atol=1e-5):
    """Nested lists of numbers equal within tolerance; NaN equals NaN, infinities exactly."""
    if isinstance(got, list) or isinstance(want, list):
        return (isinstance(got, list) and isinstance(want, list) and len(got) == len(want)
                and all(close(g, w, rtol, atol) for g, w in zip(got, want)))
    if got is None or want is None:
        return got is want
    got, want = float(got), float(want)  # float() also reads strict JSON's "NaN" and "Infinity"
    if math.isnan(got) or math.isnan(want):
        return math.isnan(got) and math.isnan(want)
    if math.isinf(got) or math.isinf(want):
        return got == want
    return abs(got - want) <= atol + rtol * abs(want)


def values_match(want, got):
    """Compare listed values when both sides list them, else the statistics (looser)."""
    if want.get("data") is not None and got.get("data") is not None:
        return close(got["data"], want["data"])
    want_stats, got_stats = want.get("stats") or {}, got.get("stats") or {}
    return all(close(got_stats.get(k), want_stats.get(k), 1e-3, 1e-4) for k in ("min", "max", "mean", "norm"))


def checks_of_tensor(record):
    """How many checks a recorded tensor has: metadata, grad presence, values, grad values."""
    return (len(METADATA) + 1 + (not record.get("data_random"))
            + (record["grad"] is not None and not record.get("grad_random")))


def score_error(score, i, want, got):
    if want is None:
        score.check(got is None, "error", f"cell {i}: unexpected error {got}")
        return
    score.check(bool(got) and got.get("type") == want["type"], "error",
                f"cell {i}: error type {want['type']} vs {got}")
    if not want.get("message_random"):
        message = (got or {}).get("message")
        score.check(bool(got) and (message or "").strip() == want["message"].strip(), "error",
                    f"cell {i}: error message\n   want: {want['message']}\n   got:  {message}")


def score_stdout(score, i, want, got):
    want_lines = ADDRESS.sub("0x?", want["stdout"]).splitlines()
    got_lines = ADDRESS.sub("0x?", got or "").splitlines()
    random_lines = set(want.get("stdout_random_lines", ()))
    for j, line in enumerate(want_lines):
        if j in random_lines:
            continue
        mine = got_lines[j] if j < len(got_lines) else None
        score.check(mine is not None and mine.rstrip() == line.rstrip(), "stdout",
                    f"cell {i}: stdout line {j}\n   want: {line}\n   got:  {'<missing>' if mine is None else mine}")


def score_tensor(score, i, want, got):
    name = want["name"]
    if got is None:
        score.check(False, "tensors", f"cell {i}: tensor {name} missing", weight=checks_of_tensor(want))
        return
    for key in METADATA:
        score.check(got.get(key) == want[key], "tensors", f"cell {i}: {name}.{key} want {want[key]} got {got.get(key)}")
    score.check((got.get("grad") is None) == (want["grad"] is None), "tensors", f"cell {i}: {name}.grad presence")
    if not want.get("data_random"):
        score.check(values_match(want, got), "tensors", f"cell {i}: {name} data differs")
    if want["grad"] is not None and not want.get("grad_random"):
        score.check(got.get("grad") is not None and values_match(want["grad"], got["grad"]), "tensors",
                    f"cell {i}: {name}.grad values differ")


def score_case(expected, got, name="case"):
    """Score one case: ``expected`` is a recording, ``got`` what ``gradviz run --json`` printed
    (anything: a crash gives ``{}``)."""
    score = CaseScore(name)
    got_cells = got.get("cells") if isinstance(got, dict) else None
    got_cells = got_cells if isinstance(got_cells, list) else []
    for i, want in enumerate(expected["cells"]):
        cell = got_cells[i] if i < len(got_cells) and isinstance(got_cells[i], dict) else None
        if cell is None:
            cell = {"error": {"type": "<cell not reported>", "message": ""}, "stdout": "", "tensors": []}
        score_error(score, i, want.get("error"), cell.get("error"))
        score_stdout(score, i, want, cell.get("stdout"))
        listed = {t.get("name"): t for t in cell.get("tensors") or () if isinstance(t, dict)}
        for record in want["tensors"]:
            score_tensor(score, i, record, listed.get(record["name"]))
    return score


def run_case(expected_path, cases_dir, command):
    expected = json.loads(expected_path.read_text(encoding="utf-8"))
    script = cases_dir / expected["script"]
    got, problem = {}, None
    try:
        done = subprocess.run(shlex.split(command.format(script=shlex.quote(str(script)))),
                              capture_output=True, text=True, timeout=CASE_TIMEOUT)
        got = json.loads(done.stdout)
    except subprocess.TimeoutExpired:
        problem = f"no JSON from gradviz: the case ran over {CASE_TIMEOUT} s"
    except ValueError as e:
        problem = f"no JSON from gradviz (exit {done.returncode}): {e}; stderr: {done.stderr.strip()[-300:]}"
    score = score_case(expected, got, expected["script"])
    if problem:
        score.failures.insert(0, problem)
    return score


def score_corpus(cases_dir=HERE / "cases", expected_dir=HERE / "expected", command=DEFAULT_COMMAND,
                 only=(), jobs=2):
    """The CaseScore of every recorded case (those whose name starts with one of ``only``)."""
    recordings = [p for p in sorted(Path(expected_dir).glob("*.json")) if not only or p.stem.startswith(tuple(only))]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(lambda p: run_case(p, Path(cases_dir), command), recordings))


def report(scores, verbose=False, limit=40):
    lines, by_kind = [], {}
    for score in scores:
        lines.append(f"{score.name}: {score.passed}/{score.total}")
        if verbose:
            lines.extend("   " + f for f in score.failures[:limit])
        for kind, (ok, total) in score.by_kind.items():
            tally = by_kind.setdefault(kind, [0, 0])
            tally[0] += ok
            tally[1] += total
    passed, total = sum(s.passed for s in scores), sum(s.total for s in scores)
    lines.append("by kind: " + ", ".join(f"{k} {a}/{b}" for k, (a, b) in sorted(by_kind.items())))
    lines.append(f"conformance: {passed}/{total} checks ({percent(passed, total):.1f}%)")
    return "\n".join(lines)


def percent(passed, total):
    return 100.0 * passed / total if total else 0.0


def main(argv=None):
    parser = argparse.ArgumentParser(description="Score gradviz against PyTorch's recorded results.")
    parser.add_argument("only", nargs="*", help="score only the cases whose names start with these")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the failing checks (40 per case)")
    parser.add_argument("--cases", type=Path, default=HERE / "cases", help="case scripts (default: %(default)s)")
    parser.add_argument("--expected", type=Path, default=HERE / "expected", help="recordings (default: %(default)s)")
    parser.add_argument("--cmd", default=DEFAULT_COMMAND,
                        help="the command that runs a case, {script} standing for its path (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default: %(default)s)")
    parser.add_argument("--min", type=float, help="exit 1 when the score is below this percentage")
    args = parser.parse_args(argv)
    scores = score_corpus(args.cases, args.expected, args.cmd, args.only, args.jobs)
    if not scores:
        parser.error(f"no recordings match in {args.expected}")
    print(report(scores, args.verbose))
    passed, total = sum(s.passed for s in scores), sum(s.total for s in scores)
    if args.min is not None and percent(passed, total) < args.min:
        sys.exit(1)


if __name__ == "__main__":
    main()
