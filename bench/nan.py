#!/usr/bin/env python3
"""What finding a NaN costs: ``gradviz run --nan`` beside the same run without it, and
beside PyTorch's anomaly mode.

usage: python3 bench/nan.py [--models mlp50,gpt2_2,lstm_lm] [--runs 3] [--markdown PATH]

Each model is a script of bench/models/ (forward, loss, backward of a real model built
from its config). For each, in fresh processes, the wall time of:
- ``python model.py``: the plain run;
- ``python model.py`` under ``torch.autograd.set_detect_anomaly(True)``: PyTorch's answer
  (real PyTorch only);
- ``gradviz run model.py``: the same command without --nan (the baseline of the ratio);
- ``gradviz run model.py --nan``: one pass that checks every op's result and every gradient.
The models on PyTorch run with ``--engine torch``; the 50-block MLP on gradviz's engine.
The median of ``--runs`` runs is shown; the ratios are against the plain ``gradviz run``
and the plain ``python`` run of the same model.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS_DIR = os.path.join(ROOT, "bench", "models")
ON_GRADVIZ = {"mlp50"}  # models drawn on gradviz's own engine

ANOMALY = ("import runpy, sys, torch; torch.autograd.set_detect_anomaly(True); sys.argv = [sys.argv[1]]; "
           "sys.path.insert(0, {folder!r}); runpy.run_path(sys.argv[0], run_name='__main__')")


def timed(argv, env):
    start = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
    took = time.perf_counter() - start
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(argv)} failed: {p.stderr[-500:]}")
    return took


def measure(model, runs):
    script = os.path.join(MODELS_DIR, f"{model}.py")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + MODELS_DIR)
    engine = "gradviz" if model in ON_GRADVIZ else "torch"
    gradviz = [sys.executable, "-m", "gradviz", "run", script, "--engine", engine]
    commands = {"python": [sys.executable, script], "gradviz run": gradviz, "gradviz run --nan": gradviz + ["--nan"]}
    if engine == "torch":
        commands["anomaly mode"] = [sys.executable, "-c", ANOMALY.format(folder=MODELS_DIR), script]
    times = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            times[name].append(timed(argv, env))
    return engine, {name: statistics.median(t) for name, t in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="mlp50,gpt2_2,lstm_lm")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--markdown", default=None, help="also write the table to this file")
    args = parser.parse_args()
    lines = ["| model | engine | python | anomaly mode | gradviz run | gradviz run --nan | --nan / gradviz run |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for model in args.models.split(","):
        engine, t = measure(model, args.runs)
        anomaly = f"{t['anomaly mode']:.2f} s ({t['anomaly mode'] / t['python']:.2f}x)" if "anomaly mode" in t else "-"
        lines.append(f"| {model} | {engine} | {t['python']:.2f} s | {anomaly} | {t['gradviz run']:.2f} s | "
                     f"{t['gradviz run --nan']:.2f} s | {t['gradviz run --nan'] / t['gradviz run']:.2f}x |")
        print(lines[-1], flush=True)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
