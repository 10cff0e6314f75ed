"""How much of PyTorch 2.13's public API gradviz's engine has, namespace by namespace.

    python conformance/api_coverage.py            # the table, in the terminal
    python conformance/api_coverage.py --write    # docs/api-coverage.md and gradviz/pytorch_names.py
    python conformance/api_coverage.py --check    # exit 1 when either file is stale

It needs real PyTorch 2.13 (the README's second quick-start command installs it). For
each namespace it lists PyTorch's public names, as this file counts them, and whether
``gradviz.torch`` has the same name in the same place.

What counts as a public name:

- a namespace with ``__all__`` (``torch.optim``, ``torch.nn.init``, ``torch.special``...):
  the names in it, less the submodules it lists only as namespaces;
- ``torch``: the functions of ``torch.__all__`` (not its classes, dtypes or submodules);
- ``torch.Tensor``: every public attribute, methods and properties alike;
- ``torch.nn``: the module classes of ``torch.nn.modules``;
- ``torch.nn.functional`` and ``torch.linalg``: their public functions.

Left out, because a program that uses them needs more than an autograd engine on numpy
(and so they are not what gradviz's engine means to copy):

- backend kernels and their helpers (``cudnn_*``, ``mkldnn_*``, ``miopen_*``,
  ``fbgemm_*``, ``native_*``, ``*_backward``, ``batch_norm_stats``...): PyTorch calls them
  from its own C++, scripts do not;
- quantization (``quantize_per_tensor``, ``q_scale``, ``fake_quantize_*``...);
- sparse layouts (``sparse_coo_tensor``, ``to_sparse``, ``crow_indices``...);
- symbolic shapes (``sym_int``, ``sym_max``...) and compiler plumbing (``compile``,
  ``export``, ``jit``, ``autocast``, ``vitals``...);
- ``*_copy`` variants, the functional twins of views that only compilers call;
- device backends other than the CPU (``cuda``, ``mps``, ``xpu``, ``ipu``, ``hpu``...).

``gradviz/pytorch_names.py`` keeps every public name PyTorch has and the engine lacks,
left-out ones too, so that a script reaching for one is told it is gradviz's gap, not
a bug in the script (``scripting``'s hint line).
"""
import argparse
import importlib
import inspect
import re
import sys
import textwrap
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "api-coverage.md"
NAMES_MODULE = ROOT / "gradviz" / "pytorch_names.py"

# (the row's name, PyTorch's module path, how its names are listed)
NAMESPACES = (
    ("torch functions", "torch", "torch_functions"),
    ("Tensor methods", "torch.Tensor", "attributes"),
    ("nn", "torch.nn", "nn_modules"),
    ("nn.functional", "torch.nn.functional", "functions"),
    ("nn.init", "torch.nn.init", "all"),
    ("nn.utils", "torch.nn.utils", "all"),
    ("optim", "torch.optim", "all"),
    ("lr_scheduler", "torch.optim.lr_scheduler", "all"),
    ("linalg", "torch.linalg", "functions"),
    ("distributions", "torch.distributions", "all"),
    ("special", "torch.special", "all"),
    ("autograd", "torch.autograd", "all"),
    ("func", "torch.func", "all"),
)

LEFT_OUT = (  # (pattern on the name, why)
    (r"^(cudnn|mkldnn|miopen|fbgemm|native|thnn|slow_conv|nnpack|vulkan|xnnpack)_|_backward(_|$)|"
     r"^batch_norm_(backward|elemt|gather|stats|update)|^(conv_tbc|cudnn|mkldnn|miopen)", "a backend kernel"),
    (r"quantiz|fake_quant|^q_|^int_repr$|^qscheme$|^dequantize$|^choose_qparams|_per_(tensor|channel)", "quantization"),
    (r"sparse|_coo|coo_|_csr|csr_|_csc|csc_|_bsr|bsr_|_bsc|bsc_|^crow_indices$|^col_indices$|^ccol_indices$|"
     r"^row_indices$|^coalesce$|^is_coalesced$|^indices$|^values$|^dense_dim$|^sparse_dim$|^to_mkldnn$|"
     r"^(spmm|smm|dsmm|hsmm|hspmm|saddmm|sspaddmm)$",
     "a sparse layout"),
    (r"^sym_|^Sym|^compile|^export$|^jit$|autocast|vital|^is_vulkan|^fork$|^wait$|^parse_|^merge_type|"
     r"^unify_type|^import_ir|^set_flush_denormal$|^typename$|^cond$|^while_loop$|^library$|_jit_|torch_function|"
     r"^boolean_dispatch$|^assert_int_or_pair$",
     "compiler plumbing or symbolic shapes"),
    (r"(?<!^index)_copy$", "a *_copy variant"),
    (r"^(cuda|mps|xpu|ipu|hpu|mtia|xla|is_cuda|is_mps|is_xpu|is_ipu|is_hpu|is_mtia|is_xla|is_mkldnn|is_vulkan|"
     r"is_quantized|is_nested|is_sparse_csr|nested_tensor|to_padded_tensor|pin_memory|is_pinned|share_memory_|"
     r"is_shared|record_stream|grouped_mm|scaled_mm|scaled_grouped_mm)$", "another device backend"),
)

# a dense init despite its name; the condition number, not torch.cond
COUNTED_ANYWAY = {("torch.nn.init", "sparse"), ("torch.nn.init", "sparse_"), ("torch.linalg", "cond")}


def left_out(name, path=""):
    """Why ``name`` (of the namespace ``path``) is not counted, or None when it is."""
    if (path, name) in COUNTED_ANYWAY:
        return None
    for pattern, why in LEFT_OUT:
        if re.search(pattern, name):
            return why
    return None


def _resolve(root, path):
    obj = root
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def public_names(torch, path, how):
    """Every public name of the namespace at ``path`` (left-out ones too), sorted."""
    obj = _resolve(torch, path)
    if how == "attributes":
        return sorted(n for n in dir(obj) if not n.startswith("_"))
    if how == "torch_functions":
        return sorted(n for n in obj.__all__ if not n.startswith("_") and callable(getattr(obj, n, None))
                      and not inspect.isclass(getattr(obj, n)) and not isinstance(getattr(obj, n), types.ModuleType))
    if how == "nn_modules":
        modules = importlib.import_module("torch.nn.modules")
        return sorted(n for n in modules.__all__ if inspect.isclass(getattr(obj, n, None)))
    if how == "functions":
        return sorted(n for n, v in vars(obj).items() if not n.startswith("_") and callable(v)
                      and not inspect.isclass(v) and getattr(v, "__module__", "") and
                      (v.__module__ or "").startswith(("torch", "_")) and v.__module__ != "typing")
    return sorted(n for n in obj.__all__ if not n.startswith("_"))


def coverage(torch, engine):
    """[(row, path, [(name, has, why left out or None)])] for each namespace."""
    rows = []
    for row, path, how in NAMESPACES:
        try:
            ours = _resolve(engine, path)
        except AttributeError:
            ours = None
        names = []
        for name in public_names(torch, path, how):
            has = ours is not None and _has(ours, name)
            names.append((name, has, left_out(name, path)))
        rows.append((row, path, names))
    return rows


def _has(namespace, name):
    try:
        getattr(namespace, name)
    except Exception:  # noqa: BLE001 - a name that raises on access is not there
        return False
    return True


def table(rows):
    """The markdown of docs/api-coverage.md."""
    out = ["# PyTorch's API in gradviz's engine", "",
           "How much of PyTorch 2.13's public API `gradviz.torch` has, namespace by namespace, as",
           "[conformance/api_coverage.py](../conformance/api_coverage.py) counts it (its docstring says",
           "what is counted and what is left out, and why). Written by `python conformance/api_coverage.py",
           "--write`; a test fails when it is stale. A script that reaches for a missing name gets",
           "PyTorch's own `AttributeError`, and gradviz adds a line saying that the name is gradviz's",
           "gap and that `--engine torch` runs the script on your installed PyTorch.", "",
           "| namespace | gradviz has | of | coverage |", "| --- | ---: | ---: | ---: |"]
    for row, path, names in rows:
        counted = [(n, has) for n, has, why in names if why is None]
        have = sum(1 for _, has in counted if has)
        out.append(f"| `{path}` ({row}) | {have} | {len(counted)} | {100 * have / max(1, len(counted)):.0f}% |")
    out += ["", "## Missing names", "",
            "Each counted name the engine does not have yet, by namespace.", ""]
    for row, path, names in rows:
        missing = [n for n, has, why in names if why is None and not has]
        out.append(f"### `{path}` ({len(missing)} missing)")
        out.append("")
        out.append(", ".join(f"`{n}`" for n in missing) if missing else "none")
        out.append("")
    out += ["## Left out", "", "Names PyTorch has that are not counted, by why (see the script).", ""]
    for row, path, names in rows:
        skipped = {}
        for n, has, why in names:
            if why is not None:
                skipped.setdefault(why, []).append(n)
        if skipped:
            out.append(f"- `{path}`: " + "; ".join(f"{why}: {len(ns)}" for why, ns in sorted(skipped.items())))
    return "\n".join(out) + "\n"


def names_module(rows):
    """The source of gradviz/pytorch_names.py: PyTorch's public names the engine lacks."""
    lines = ['"""PyTorch 2.13\'s public names that gradviz\'s engine does not have, per namespace',
             "(written by conformance/api_coverage.py --write; do not edit). ``scripting`` reads it to",
             'tell a script\'s missing name from a typo."""', "", "MISSING = {"]
    for _, path, names in rows:
        missing = " ".join(n for n, has, _ in names if not has)
        wrapped = textwrap.wrap(missing, 100, break_long_words=False, break_on_hyphens=False) or [""]
        lines.append(f"    {path!r}: frozenset(("  # one string per line, split: short lines, small diffs
                     + "\n".join(f'        "{line} "' for line in wrapped).lstrip() + ").split()),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write docs/api-coverage.md and gradviz/pytorch_names.py")
    parser.add_argument("--check", action="store_true", help="exit 1 when either file is stale")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    import torch

    import gradviz.torch as engine
    rows = coverage(torch, engine)
    doc, names = table(rows), names_module(rows)
    if args.write:
        DOC.write_text(doc, encoding="utf-8")
        NAMES_MODULE.write_text(names, encoding="utf-8")
    if args.check:
        stale = [str(p.relative_to(ROOT)) for p, text in ((DOC, doc), (NAMES_MODULE, names))
                 if not p.exists() or p.read_text(encoding="utf-8") != text]
        if stale:
            print(f"stale: {', '.join(stale)}: run python conformance/api_coverage.py --write", file=sys.stderr)
            return 1
    if not args.write and not args.check:
        print(doc.split("\n## ")[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
