"""PyTorch's autograd errors and warnings, verbatim, from gradviz.torch.

1. Every reproducer in ``tests/errors/repro/`` (PyTorch's autograd errors, one script per
   entry of ``tests/errors/catalog.json``) that uses only the core engine
   (no nn, torch.func, checkpoint, complex numbers or optim) is run twice: once with
   ``import torch`` resolving to gradviz.torch, once with real torch. Exception type
   and exact message must agree (and torch must give the catalog's text); for the
   catalog's warnings, the recorded warnings must agree; for silent entries, no
   exception and the same stdout.
2. More core-op errors (shape, dtype, index and argument errors) compared the same way.

Skipped when real torch is not importable.
"""
import json
import re
from pathlib import Path

import pytest

import oracle
from oracle import compare_errors, exc_info, run_capture, run_script

torch = pytest.importorskip("torch")

ERRORS_DIR = Path(__file__).resolve().parent / "errors"
CATALOG_PATH = ERRORS_DIR / "catalog.json"
NOT_CORE = re.compile(r"nn\.|torch\.func|checkpoint|complex|\b\d+j\b|optim")


def _catalog_params():
    if not CATALOG_PATH.exists():
        return []
    params = []
    for entry in json.loads(CATALOG_PATH.read_text()):
        for fname in entry["repro"]:
            path = ERRORS_DIR / "repro" / fname
            if not path.exists() or NOT_CORE.search(path.read_text()):
                continue
            params.append(pytest.param(entry, fname, id=fname[:-3]))
    return params


CATALOG_PARAMS = _catalog_params()


def _run_torch_seeded(text, seed):
    torch.manual_seed(seed)
    return run_script(text, use_engine=False)


# Warnings that PyTorch emits once per process (TORCH_WARN_ONCE): their scripts run in
# fresh processes, both for torch and for gradviz, so test order cannot matter.
WARN_ONCE_SCRIPTS = {
    "float_of_requires_grad_again": (
        "import torch\n"
        "x = torch.randn(1, requires_grad=True)\n"
        "a = float(x * 2)        # after 57_...py in the same process: torch does not warn again\n"
        "b = float(x * 3)\n"),
    "backward_create_graph_twice": (
        "import torch\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "(x * x).sum().backward(create_graph=True)\n"
        "(x * x).sum().backward(create_graph=True)\n"),
    "T_on_3d_twice": (
        "import torch\n"
        "y = torch.ones(2, 3, 4).T\n"
        "z = torch.ones(2, 3, 4).T\n"
        "print(tuple(y.shape))\n"),
}


def _is_warn_once(fname):
    return fname.startswith("57_")


_FRESH = {}


def _fresh_results():
    """Each group shares a process; a group never holds two scripts that trigger the
    same warn-once call site."""
    if not _FRESH:
        catalog = [fname for _, fname in [(p.values[0], p.values[1]) for p in CATALOG_PARAMS]
                   if _is_warn_once(fname)]
        texts = {("catalog", f): (ERRORS_DIR / "repro" / f).read_text() for f in catalog}
        texts.update({("once", n): t for n, t in WARN_ONCE_SCRIPTS.items()})
        # float_of_requires_grad_again runs after catalog 57 in the same process: torch
        # stays silent then, having warned once already.
        plan = [[k for k in texts if k[0] == "catalog" and "_variant" not in k[1]]
                + [("once", "float_of_requires_grad_again"), ("once", "backward_create_graph_twice"),
                   ("once", "T_on_3d_twice")],
                [k for k in texts if k[0] == "catalog" and "_variant" in k[1]]]
        groups = []
        for use_engine in (False, True):
            for keys in plan:
                if keys:
                    groups.append((use_engine, [[[*k, use_engine], texts[k]] for k in keys]))
        for key, res in oracle.run_scripts_fresh(groups).items():
            kind, name, use_engine = key
            _FRESH[(kind, name, "gradviz" if use_engine else "torch")] = res
    return _FRESH


class _Exc(Exception):
    """An exception rebuilt from a fresh process's (type, base, message)."""

    def __init__(self, info):
        super().__init__(info[2])
        self.info = info


def _fresh(key):
    e, ws, out = _fresh_results()[key]
    return (None if e is None else _Exc(e)), ws, out


@pytest.mark.parametrize("name", list(WARN_ONCE_SCRIPTS))
@pytest.mark.slow
def test_warn_once_in_fresh_process(name):
    eo, wo, so = _fresh(("once", name, "gradviz"))
    et, wt, st = _fresh(("once", name, "torch"))
    diffs = []
    if (eo and eo.info) != (et and et.info):
        diffs.append(f"exception ours={eo and eo.info!r} torch={et and et.info!r}")
    if wo != wt:
        diffs.append(f"warnings differ\n      ours:  {wo!r}\n      torch: {wt!r}")
    if so != st:
        diffs.append(f"stdout ours={so!r} torch={st!r}")
    oracle.assert_no_diffs(diffs, name)


@pytest.mark.parametrize("entry, fname", CATALOG_PARAMS)
def test_catalog_repro(entry, fname):
    text = (ERRORS_DIR / "repro" / fname).read_text()
    expected = entry["variant_message"] if "_variant" in fname else entry["message"]
    if _is_warn_once(fname):
        et, wt, st = _fresh(("catalog", fname, "torch"))
        eo, wo, so = _fresh(("catalog", fname, "gradviz"))
    else:
        et, wt, st = _run_torch_seeded(text, 0)
        eo, wo, so = run_script(text, use_engine=True)
    diffs = []
    if entry["kind"] == "exception":
        assert et is not None and str(et) == expected and exc_info(et)[0] == entry["exc_type"], \
            f"oracle check: torch itself gave {exc_info(et) if et else None!r}"
        compare_errors("exception", eo, et, diffs)
    elif entry["kind"] == "warning":
        assert (entry["exc_type"], expected) in wt, f"oracle check: torch warned {wt!r}"
        compare_errors("exception", eo, et, diffs)
        if wo != wt:
            diffs.append(f"warnings differ\n      ours:  {wo!r}\n      torch: {wt!r}")
    else:  # silent: no error, and what it prints
        compare_errors("exception", eo, et, diffs)
    # stdout, when it does not depend on the random numbers
    _, _, st2 = (et, wt, st) if _is_warn_once(fname) else _run_torch_seeded(text, 1)
    if st == st2 and oracle.norm_addr(so) != oracle.norm_addr(st):
        diffs.append(f"stdout differs\n      ours:  {so!r}\n      torch: {st!r}")
    oracle.assert_no_diffs(diffs, f"{fname}: {entry['id']}")


# ---------------------------------------------------------------------------------------
# more core-op errors


def _ones(T, *s, dtype=None):
    return T.ones(*s, dtype=dtype or T.float32)


def _rg(T, *s):
    return T.ones(*s, requires_grad=True)


ERROR_EXPRS = {
    # shapes in linear algebra
    "mm_inner_mismatch": lambda T: T.mm(_rg(T, 5, 3), _ones(T, 5, 3)),
    "mm_1d": lambda T: T.mm(_ones(T, 3), _ones(T, 3, 2)),
    "mm_dtype_mismatch": lambda T: T.mm(_ones(T, 2, 3), _ones(T, 3, 2, dtype=T.float64)),
    "matmul_1d_1d_mismatch": lambda T: _ones(T, 3) @ _ones(T, 4),
    "matmul_2d_1d_mismatch": lambda T: _ones(T, 2, 3) @ _ones(T, 4),
    "matmul_1d_2d_mismatch": lambda T: _ones(T, 4) @ _ones(T, 3, 2),
    "matmul_2d_2d_mismatch": lambda T: _ones(T, 2, 3) @ _ones(T, 2, 3),
    "matmul_3d_3d_mismatch": lambda T: _ones(T, 2, 2, 3) @ _ones(T, 2, 4, 2),
    "matmul_batch_broadcast_mismatch": lambda T: _ones(T, 2, 2, 3) @ _ones(T, 3, 3, 2),
    "matmul_0d": lambda T: T.tensor(1.0) @ _ones(T, 2),
    "mv_mismatch": lambda T: T.mv(_ones(T, 2, 3), _ones(T, 4)),
    "mv_not_matrix": lambda T: T.mv(_ones(T, 3), _ones(T, 3)),
    "dot_mismatch": lambda T: T.dot(_ones(T, 3), _ones(T, 4)),
    "dot_2d": lambda T: T.dot(_ones(T, 2, 2), _ones(T, 2, 2)),
    "dot_dtype": lambda T: T.dot(_ones(T, 2), _ones(T, 2, dtype=T.float64)),
    "bmm_2d": lambda T: T.bmm(_ones(T, 2, 3), _ones(T, 3, 2)),
    "bmm_mismatch": lambda T: T.bmm(_ones(T, 2, 2, 3), _ones(T, 2, 4, 2)),
    "bmm_batch_mismatch": lambda T: T.bmm(_ones(T, 2, 2, 3), _ones(T, 3, 3, 2)),
    "addmm_mismatch": lambda T: T.addmm(_ones(T, 2, 2), _ones(T, 2, 3), _ones(T, 4, 2)),
    "addmm_bias_mismatch": lambda T: T.addmm(_ones(T, 3), _ones(T, 2, 3), _ones(T, 3, 2)),
    # broadcasting
    "add_broadcast": lambda T: _rg(T, 2, 3) + _ones(T, 2, 4),
    "mul_broadcast_3d": lambda T: _ones(T, 8, 5, 7) * _ones(T, 8, 6, 7),
    "where_broadcast": lambda T: T.where(T.ones(3, dtype=T.bool), _ones(T, 3), _ones(T, 4)),
    "inplace_broadcast": lambda T: _ones(T, 3).add_(_ones(T, 2, 3)),
    "inplace_int_mul_float": lambda T: T.arange(3).mul_(2.5),
    "maximum_broadcast": lambda T: T.maximum(_ones(T, 2), _ones(T, 3)),
    # views and shapes
    "view_bad_size": lambda T: _ones(T, 6).view(4),
    "view_two_minus1": lambda T: _ones(T, 6).view(-1, -1),
    "view_noncontiguous": lambda T: _rg(T, 2, 3).t().view(-1),
    "reshape_bad_size": lambda T: _ones(T, 2, 3).reshape(4, 2),
    "expand_bad": lambda T: _ones(T, 2, 3).expand(3, 3),
    "expand_fewer_dims": lambda T: _ones(T, 2, 3).expand(3),
    "expand_minus1_new_dim": lambda T: _ones(T, 3).expand(-1, 3),
    "transpose_dim_range": lambda T: _ones(T, 2, 3).transpose(0, 2),
    "t_3d": lambda T: _ones(T, 2, 3, 4).t(),
    "permute_wrong_len": lambda T: _ones(T, 2, 3).permute(1, 0, 2),
    "permute_repeated": lambda T: _ones(T, 2, 3).permute(0, 0),
    "unsqueeze_range": lambda T: _ones(T, 2, 3).unsqueeze(4),
    "squeeze_range": lambda T: _ones(T, 2, 3).squeeze(3),
    "flatten_start_after_end": lambda T: _ones(T, 2, 3, 4).flatten(2, 1),
    "repeat_fewer_dims": lambda T: _ones(T, 2, 3).repeat(2),
    "sum_dim_range": lambda T: _ones(T, 2, 3).sum(2),
    "mean_dim_range": lambda T: _ones(T, 2, 3).mean(-3),
    "sum_repeated_dim": lambda T: _ones(T, 2, 3).sum((0, 0)),
    "mean_int": lambda T: T.arange(3).mean(),
    "var_int": lambda T: T.arange(3).var(),
    "norm_int": lambda T: T.arange(3).norm(),
    "softmax_dim_range": lambda T: T.softmax(_ones(T, 2, 3), 2),
    "max_dim_range": lambda T: _ones(T, 2, 3).max(2),
    "argmax_dim_range": lambda T: _ones(T, 2, 3).argmax(5),
    "cumsum_dim_range": lambda T: _ones(T, 2, 3).cumsum(2),
    "prod_dim_range": lambda T: _ones(T, 2, 3).prod(3),
    "max_empty": lambda T: T.ones(0).max(),
    # indexing
    "index_out_of_range": lambda T: _ones(T, 3)[5],
    "index_negative_out_of_range": lambda T: _ones(T, 3)[-4],
    "select_out_of_range": lambda T: _ones(T, 3).select(0, 5),
    "select_dim_out_of_range": lambda T: _ones(T, 3).select(1, 0),
    "index_list_out_of_range": lambda T: _ones(T, 3)[[0, 5]],
    "index_too_many": lambda T: _ones(T, 3)[0, 0],
    "index_mask_shape": lambda T: _ones(T, 3)[T.tensor([True, False])],
    "index_float_tensor": lambda T: _ones(T, 3)[T.tensor([0.0, 1.0])],
    "index_float_scalar": lambda T: _ones(T, 3)[1.0],
    "index_assign_shape": lambda T: _ones(T, 3).__setitem__(slice(0, 2), _ones(T, 3)),
    "narrow_out_of_range": lambda T: _ones(T, 3).narrow(0, 2, 2),
    # joining and splitting
    "cat_mismatch": lambda T: T.cat([_ones(T, 2, 3), _ones(T, 2, 2)]),
    "cat_empty": lambda T: T.cat([]),
    "cat_dim_range": lambda T: T.cat([_ones(T, 2), _ones(T, 2)], 1),
    "cat_0d": lambda T: T.cat([T.tensor(1.0), T.tensor(2.0)]),
    "cat_ndim_mismatch": lambda T: T.cat([_ones(T, 2, 3), _ones(T, 3)]),
    "stack_mismatch": lambda T: T.stack([_ones(T, 3), _ones(T, 2)]),
    "stack_empty": lambda T: T.stack([]),
    "split_zero": lambda T: _ones(T, 3).split(0),
    "split_sizes_sum": lambda T: _ones(T, 4).split([1, 2]),
    "chunk_zero": lambda T: _ones(T, 3).chunk(0),
    # dtypes and arguments
    "pow_int_negative": lambda T: T.tensor([2, 3]) ** -1,
    "clamp_no_bounds": lambda T: _ones(T, 3).clamp(),
    "where_float_condition": lambda T: T.where(_ones(T, 2), _ones(T, 2), _ones(T, 2)),
    "masked_fill_float_mask": lambda T: _ones(T, 2).masked_fill(_ones(T, 2), 0.0),
    "masked_fill_value_1d": lambda T: _ones(T, 2).masked_fill(T.tensor([True, False]), _ones(T, 1)),
    "int_floordiv_zero": lambda T: T.tensor([1]) // 0,
    "int_remainder_zero": lambda T: T.tensor([1]) % 0,
    "arange_zero_step": lambda T: T.arange(0, 1, 0),
    "arange_wrong_sign": lambda T: T.arange(0, 5, -1),
    "zeros_negative": lambda T: T.zeros(-1),
    "linspace_negative_steps": lambda T: T.linspace(0, 1, -1),
    "tensor_ragged": lambda T: T.tensor([[1, 2], [3]]),
    "tensor_string": lambda T: T.tensor("abc"),
    "set_default_dtype_int": lambda T: T.set_default_dtype(T.int64),
    "eye_negative": lambda T: T.eye(-1),
    # autograd flags and conversions
    "requires_grad_int": lambda T: T.arange(3).requires_grad_(),
    "requires_grad_bool": lambda T: T.zeros(2, dtype=T.bool).requires_grad_(True),
    "tensor_int_requires_grad": lambda T: T.tensor([1, 2], requires_grad=True),
    "ones_int_requires_grad": lambda T: T.ones(2, dtype=T.int64, requires_grad=True),
    "arange_int_requires_grad": lambda T: T.arange(3, requires_grad=True),
    "requires_grad_nonleaf": lambda T: setattr(_rg(T, 2) * 2, "requires_grad", False),
    "numpy_requires_grad": lambda T: _rg(T, 2).numpy(),
    "numpy_nonleaf": lambda T: (_rg(T, 2) * 2).numpy(),
    "item_many": lambda T: _ones(T, 3).item(),
    "float_many": lambda T: float(_ones(T, 3)),
    "int_many": lambda T: int(_ones(T, 2, 3)),
    "bool_many": lambda T: bool(_ones(T, 2)),
    "bool_empty": lambda T: bool(T.ones(0)),
    "len_0d": lambda T: len(T.tensor(1.0)),
    "iter_0d": lambda T: iter(T.tensor(1.0)),
    "retain_grad_no_grad": lambda T: _ones(T, 2).retain_grad(),
    "hook_no_grad": lambda T: _ones(T, 2).register_hook(lambda g: g),
    "backward_nonscalar": lambda T: (_rg(T, 3) * 2).backward(),
    "backward_no_grad_fn": lambda T: _ones(T, 3).sum().backward(),
    "backward_int": lambda T: T.arange(3).sum().backward(),
    "backward_gradient_shape": lambda T: (_rg(T, 3) * 2).backward(_ones(T, 2)),
    "backward_empty_inputs": lambda T: (_rg(T, 3) * 2).sum().backward(inputs=[]),
    "grad_unused": lambda T: T.autograd.grad((_rg(T, 2) * 2).sum(), [_rg(T, 2)]),
    "grad_no_requires_grad": lambda T: T.autograd.grad((_rg(T, 2) * 2).sum(), [_ones(T, 2)]),
    "grad_nonscalar": lambda T: (lambda x: T.autograd.grad(x * 2, x))(_rg(T, 3)),
    "grad_assign_shape": lambda T: setattr(_rg(T, 3), "grad", T.zeros(4)),
    "grad_assign_not_tensor": lambda T: setattr(_rg(T, 3), "grad", [1.0, 2.0, 3.0]),
    "leaf_inplace": lambda T: _rg(T, 3).add_(1),
    "leaf_view_inplace": lambda T: _rg(T, 3)[0].fill_(1),
    "leaf_setitem": lambda T: _rg(T, 3).__setitem__(0, 1.0),
    "detach_inplace_view": lambda T: _ones(T, 4)[:2].detach_(),
    "deepcopy_nonleaf": lambda T: __import__("copy").deepcopy(_rg(T, 3) * 2),
    "resize_requires_grad": lambda T: _rg(T, 3).resize_(6),
    "multi_output_view_inplace": lambda T: (_rg(T, 2, 3) * 1).unbind(0)[0].mul_(2),
    "split_view_inplace": lambda T: (_rg(T, 4, 3) * 1).split(2)[1].add_(1),
}


@pytest.mark.parametrize("name", list(ERROR_EXPRS))
def test_error_expression(name):
    fn = ERROR_EXPRS[name]
    _, et, _ = run_capture(fn, torch)
    assert et is not None, f"oracle check: torch did not raise for {name}"
    _, eo, _ = run_capture(fn, oracle.gv)
    diffs = []
    compare_errors(name, eo, et, diffs)
    oracle.assert_no_diffs(diffs)


# ---------------------------------------------------------------------------------------
# warnings outside the catalog


WARNING_EXPRS = {
    "nonleaf_grad": lambda T: (_rg(T, 3) * 2).grad,
    "tensor_of_tensor": lambda T: T.tensor(_rg(T, 3) * 2),
    "tensor_of_plain_tensor": lambda T: T.tensor(_ones(T, 3)),
    "retained_grad_no_warning": lambda T: (lambda h: (h.retain_grad(), h.grad))(_rg(T, 2) * 2),
    "leaf_grad_no_warning": lambda T: _rg(T, 2).grad,
}


@pytest.mark.parametrize("name", list(WARNING_EXPRS))
def test_warning_expression(name):
    fn = WARNING_EXPRS[name]
    _, et, wt = run_capture(fn, torch)
    _, eo, wo = run_capture(fn, oracle.gv)
    diffs = []
    compare_errors(name, eo, et, diffs)
    if wo != wt:
        diffs.append(f"warnings differ\n      ours:  {wo!r}\n      torch: {wt!r}")
    oracle.assert_no_diffs(diffs)
