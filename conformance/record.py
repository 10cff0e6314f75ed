"""Record what real PyTorch does with conformance cases: the expected results.

usage (from the project root, in an environment with torch==2.13.0 installed):

    python conformance/record.py                      # every case in conformance/cases
    python conformance/record.py conformance/cases/c03_inplace_views.py   # only these

Each case is a script split into cells by lines that start with ``# %%``. The cells run
as a notebook runs them (one namespace, an exception ends its cell only, a trailing bare
expression has its repr printed), with ``import torch`` being real PyTorch. After each
cell the named tensors are recorded in the schema of ``gradviz run SCRIPT --json``.

Every case runs twice, with the random seeds shifted between the runs: what differs
between the two runs (values, stdout lines, error messages) depends on the random
numbers and is marked so (``data_random``, ``grad_random``, ``stdout_random_lines``,
``message_random``); the scorer then checks only its metadata. The file written is
``conformance/expected/CASE.json``. See conformance/README.md for the schema.
"""
import argparse
import ast
import contextlib
import io
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
#: Tensors with more elements than this are recorded by their statistics only.
MAX_LISTED_ELEMENTS = 1000
#: The two runs of a case: every manual_seed(s) in the case becomes manual_seed(s + shift).
SEED_SHIFTS = (1000, 2000)
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def split_cells(source):
    """[(first line, code)] of the non-empty cells, lines numbered from 1."""
    cells, lines, first = [], [], 1
    for number, line in enumerate(source.splitlines(keepends=True), 1):
        if line.startswith("# %%"):
            if "".join(lines).strip():
                cells.append((first, "".join(lines)))
            lines, first = [], number + 1
        else:
            lines.append(line)
    if "".join(lines).strip():
        cells.append((first, "".join(lines)))
    return cells


def run_cell(code, namespace, filename):
    """Run one cell; print the repr of a trailing bare expression, as Jupyter does."""
    module = ast.parse(code)
    trailing = None
    if module.body and isinstance(module.body[-1], ast.Expr):
        trailing = ast.Expression(module.body.pop().value)
    exec(compile(module, filename, "exec"), namespace)
    if trailing is not None:
        value = eval(compile(trailing, filename, "eval"), namespace)
        if value is not None:
            print(repr(value))


def statistics(values):
    """min, max, mean and norm of a float64 tensor (None for an empty one, norm 0)."""
    if values.numel() == 0:
        return {"min": None, "max": None, "mean": None, "norm": 0.0}
    return {"min": values.min().item(), "max": values.max().item(),
            "mean": values.mean().item(), "norm": values.norm().item()}


def values_record(tensor):
    if tensor.is_meta:  # no values on the meta device: nothing to list or summarise
        return None, {"min": None, "max": None, "mean": None, "norm": None}
    values = tensor.detach().double()
    listed = values.tolist() if tensor.numel() <= MAX_LISTED_ELEMENTS else None
    return listed, statistics(values)


def tensor_record(name, tensor):
    with warnings.catch_warnings():  # reading .grad of a non-leaf warns; the record must not
        warnings.simplefilter("ignore")
        grad = tensor.grad
    data, stats = values_record(tensor)
    record = {
        "name": name,
        "shape": list(tensor.shape),
        "dtype": str(tensor.dtype).replace("torch.", ""),
        "requires_grad": bool(tensor.requires_grad),
        "is_leaf": bool(tensor.is_leaf),
        "retains_grad": bool(tensor.retains_grad) if not tensor.is_leaf else False,
        "grad_fn": type(tensor.grad_fn).__name__ if tensor.grad_fn is not None else None,
        "data": data,
        "stats": stats,
        "grad": None,
    }
    if grad is not None:
        grad_data, grad_stats = values_record(grad)
        record["grad"] = {"data": grad_data, "stats": grad_stats}
    if tensor.is_meta:
        record["device"] = "meta"  # as gradviz run --json says it
    return record


def named_tensors(namespace):
    """The records of every named tensor, as ``gradviz run`` lists them: plain names, the
    items of a list or tuple of tensors, a module's parameters and buffers."""
    records = []
    for name, value in list(namespace.items()):
        if name.startswith("_"):
            continue
        if isinstance(value, torch.Tensor):
            records.append(tensor_record(name, value))
        elif (isinstance(value, (list, tuple)) and 0 < len(value) <= 64
              and all(isinstance(item, torch.Tensor) for item in value)):
            records.extend(tensor_record(f"{name}[{i}]", item) for i, item in enumerate(value))
        elif isinstance(value, torch.nn.Module):
            records.extend(tensor_record(f"{name}.{p}", t) for p, t in value.named_parameters())
            records.extend(tensor_record(f"{name}.{b}", t) for b, t in value.named_buffers())
    return records


def dirty_freed_memory():
    """Leave non-zero bytes in the memory that later small allocations reuse, so that a
    tensor made from uninitialised memory (``torch.empty``, ``torch.Tensor(3, 5)``) reads
    differently in the two runs and is marked random: its values are undefined."""
    garbage = [torch.full((n,), 1.2345e-3 * n) for n in range(1, 2048, 3)]
    del garbage


def run_case(path, shift):
    """The cells of one run of the case, with every seed shifted by ``shift``."""
    if shift != SEED_SHIFTS[0]:
        dirty_freed_memory()
    real_manual_seed = torch.manual_seed
    torch.manual_seed(shift)
    torch.manual_seed = lambda seed: real_manual_seed(int(seed) + shift)
    torch.set_default_dtype(torch.float32)
    namespace = {"__name__": "__main__"}
    cells = []
    try:
        for first, code in split_cells(Path(path).read_text(encoding="utf-8")):
            printed, error = io.StringIO(), None
            with contextlib.redirect_stdout(printed), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    run_cell(code, namespace, str(path))
                except Exception as e:  # noqa: BLE001 - a cell's error is what is recorded
                    error = {"type": type(e).__name__, "message": str(e)}
            cells.append({"line": first, "stdout": printed.getvalue(), "error": error,
                          "tensors": named_tensors(namespace)})
    finally:
        torch.manual_seed = real_manual_seed
        torch.set_default_dtype(torch.float32)
    return cells


def mark_random(first_run, second_run):
    """Mark in the first run what the second run did otherwise: it depends on the seed."""
    for cell, other in zip(first_run, second_run):
        mine = ADDRESS.sub("0x?", cell["stdout"]).splitlines()
        theirs = ADDRESS.sub("0x?", other["stdout"]).splitlines()
        if len(mine) != len(theirs):
            cell["stdout_random_lines"] = list(range(len(mine)))
        else:
            cell["stdout_random_lines"] = [i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b]
        others = {t["name"]: t for t in other["tensors"]}
        for record in cell["tensors"]:
            twin = others.get(record["name"])
            record["data_random"] = twin is None or twin["stats"] != record["stats"]
            record["grad_random"] = twin is None or (twin["grad"] or {}).get("stats") != (record["grad"] or {}).get("stats")
        if cell["error"] and other["error"] and cell["error"]["message"] != other["error"]["message"]:
            cell["error"]["message_random"] = True
    return first_run


def run_in_fresh_process(case, shift):
    """One run of the case in a new interpreter, as ``gradviz run`` runs it: nothing left
    over from another case (default dtype, grad mode, memory that ``torch.empty`` reuses)."""
    done = subprocess.run([sys.executable, __file__, "--one-run", str(case), "--shift", str(shift)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"record.py: {case.name} failed to run:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def record(case, out_dir):
    cells = mark_random(*(run_in_fresh_process(case, shift) for shift in SEED_SHIFTS))
    document = {"script": case.name, "torch_version": torch.__version__, "cells": cells}
    target = out_dir / f"{case.stem}.json"
    target.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    errors = sum(1 for cell in cells if cell["error"])
    print(f"{case.stem}: {len(cells)} cells, {errors} with an error -> {target}")


def main(argv=None):
    parser = argparse.ArgumentParser(description="Record real PyTorch's results for conformance cases.")
    parser.add_argument("cases", nargs="*", type=Path, help="case scripts (default: every one in conformance/cases)")
    parser.add_argument("--out", type=Path, default=HERE / "expected", help="where the JSON goes (default: %(default)s)")
    parser.add_argument("--one-run", type=Path, help=argparse.SUPPRESS)  # internal: one run, JSON to stdout
    parser.add_argument("--shift", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one_run:
        cells = run_case(args.one_run, args.shift)
        sys.stdout.write(json.dumps(cells))
        return
    if not torch.__version__.startswith("2.13"):
        sys.exit(f"record.py: the expected results come from PyTorch 2.13; this is {torch.__version__}")
    cases = args.cases or sorted((HERE / "cases").glob("*.py"))
    args.out.mkdir(parents=True, exist_ok=True)
    for case in cases:
        record(case.resolve(), args.out)


if __name__ == "__main__":
    main()
