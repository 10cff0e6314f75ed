"""einsum, baddbmm, cdist, scaled_dot_product_attention, MultiheadAttention and the
transformer encoder on gradviz.torch against real PyTorch 2.13.

Functional ops are oracle Cases: values, the whole grad_fn graph, saved-slot names,
gradients from backward, and double backward (or the same error where PyTorch has no
second derivative). Errors are compared by type and verbatim message. Modules are built
on both sides, gradviz's loaded with PyTorch's state_dict, and their reprs, parameters,
outputs, graphs and gradients (inputs and parameters) compared in train and eval mode.
"""
import math
import warnings

import numpy as np
import pytest

import gradviz.torch as gt
import oracle
from oracle import A, Case

torch = pytest.importorskip("torch")

BOOL_MASK = np.tril(np.ones((4, 5), dtype=bool))
PAD_MASK = np.array([[False, False, True, True], [False, False, False, True]])


def _sdpa(T, *args, **kw):
    return T.nn.functional.scaled_dot_product_attention(*args, **kw)


def _einsum(equation):
    return lambda T, *ops: T.einsum(equation, *ops)


# ---------------------------------------------------------------------------------------
# functional cases
EINSUM = [
    ("matmul", "ij,jk->ik", [(3, 4), (4, 5)]), ("bmm", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("transpose", "ij->ji", [(3, 4)]), ("trace", "ii->", [(3, 3)]), ("trace_implicit", "ii", [(3, 3)]),
    ("diagonal", "ii->i", [(3, 3)]), ("outer", "i,j->ij", [(3,), (4,)]), ("sum_all", "ij->", [(3, 4)]),
    ("sum_rows", "ij->j", [(3, 4)]), ("ellipsis_bmm", "...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("implicit_matmul", "ij,jk", [(3, 4), (4, 5)]), ("dot", "i,i->", [(3,), (3,)]),
    ("attention_scores", "bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("hadamard", "ij,ij->ij", [(3, 4), (3, 4)]), ("permute3", "ijk->kji", [(2, 3, 4)]),
    ("chain3", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("identity", "i->i", [(3,)]),
    ("ellipsis_identity", "...->...", [(2, 3)]), ("implicit_order", "ba", [(2, 3)]),
    ("matmul_t", "ij,kj->ik", [(3, 4), (5, 4)]), ("batch_dot", "bi,bi->b", [(3, 4), (3, 4)]),
    ("matvec", "ij,j->i", [(3, 4), (4,)]), ("vecmat", "i,ij->j", [(3,), (3, 4)]),
    ("bilinear", "bn,anm,bm->ba", [(2, 5), (3, 5, 4), (2, 4)]), ("diag_then_t", "iij->ji", [(3, 3, 2)]),
    ("spaces", "i j , j k -> i k", [(3, 4), (4, 5)]), ("batch_transpose", "...ij->...ji", [(2, 3, 4, 5)]),
    ("ellipsis_broadcast", "i...,i...->...", [(3, 2), (3, 1)]), ("frobenius", "ij,ij->", [(3, 4), (3, 4)]),
    ("tensordot", "abc,cd->abd", [(2, 3, 4), (4, 5)]), ("sum_of_product", "ij,jk->", [(3, 4), (4, 5)]),
    ("outer3", "i,j,k->ijk", [(2,), (3,), (4,)]), ("ellipsis_middle", "a...b,b...->a...", [(2, 3, 4), (4, 3)]),
    ("outer_matrices", "ij,kl->ijkl", [(2, 3), (4, 5)]), ("contract_two", "ijk,ik->j", [(2, 3, 4), (2, 4)]),
    ("broadcast_batch", "bij,bkj->bik", [(1, 3, 4), (2, 5, 4)]), ("upper_case", "Ab,bC->AC", [(2, 3), (3, 4)]),
]

CASES = [Case(f"einsum_{name}", _einsum(eq), *[A(*s) for s in shapes]) for name, eq, shapes in EINSUM]
CASES += [
    Case("einsum_operand_list", lambda T, a, b: T.einsum("ij,jk->ik", [a, b]), A(3, 4), A(4, 5)),
    Case("einsum_sublist", lambda T, a, b: T.einsum(a, [0, 1], b, [1, 2], [0, 2]), A(3, 4), A(4, 5)),
    Case("einsum_sublist_ellipsis", lambda T, a, b: T.einsum(a, [..., 0, 1], b, [..., 1, 2], [..., 0, 2]),
         A(2, 3, 4), A(2, 4, 5)),
    Case("einsum_float32", _einsum("bij,bjk->bik"), A(2, 3, 4, dtype="float32"), A(2, 4, 5, dtype="float32")),
    Case("einsum_one_needs_grad", _einsum("ij,jk->ik"), A(3, 4), A(4, 5, rg=False)),
    Case("baddbmm", lambda T, s, a, b: T.baddbmm(s, a, b), A(2, 3, 5), A(2, 3, 4), A(2, 4, 5)),
    Case("baddbmm_broadcast_scaled", lambda T, s, a, b: T.baddbmm(s, a, b, beta=0.5, alpha=2.0), A(1, 3, 5),
         A(2, 3, 4), A(2, 4, 5)),
    Case("baddbmm_self_only", lambda T, s, a, b: T.baddbmm(s, a, b), A(3, 5), A(2, 3, 4, rg=False),
         A(2, 4, 5, rg=False)),
]

CDIST = [
    ("p2_small", (3, 4), (5, 4), {}), ("p2_large_uses_mm", (30, 4), (26, 4), {}),
    ("p2_forced_mm", (3, 4), (5, 4), {"compute_mode": "use_mm_for_euclid_dist"}),
    ("p2_no_mm", (30, 4), (26, 4), {"compute_mode": "donot_use_mm_for_euclid_dist"}),
    ("p1", (3, 4), (5, 4), {"p": 1.0}), ("p3", (3, 4), (5, 4), {"p": 3}), ("pinf", (3, 4), (5, 4), {"p": math.inf}),
    ("p0", (3, 4), (5, 4), {"p": 0}), ("p_half", (3, 4), (5, 4), {"p": 0.5}), ("p1_5", (3, 4), (5, 4), {"p": 1.5}),
    ("batched", (2, 3, 4), (2, 5, 4), {}), ("broadcast", (2, 1, 3, 4), (3, 5, 4), {}),
    ("broadcast_mm", (2, 1, 30, 4), (3, 26, 4), {}), ("batched_mm", (2, 3, 4), (2, 30, 4), {}),
]
CASES += [Case(f"cdist_{name}", (lambda kw: lambda T, a, b: T.cdist(a, b, **kw))(kw), A(*sa, kind="d"),
               A(*sb, kind="d")) for name, sa, sb, kw in CDIST]
CASES += [Case("cdist_float32", lambda T, a, b: T.cdist(a, b), A(3, 4, dtype="float32"), A(5, 4, dtype="float32"))]

Q4, K4, V4 = A(2, 3, 4, 8), A(2, 3, 5, 8), A(2, 3, 5, 8)
Q3, K3, V3 = A(3, 4, 8), A(3, 5, 8), A(3, 5, 8)
BOOL = A(4, 5, dtype="bool", value=BOOL_MASK)
SDPA = [
    ("fused", {}, [Q4, K4, V4]), ("fused_causal", {"is_causal": True}, [Q4, K4, V4]),
    ("fused_scale", {"scale": 0.3}, [Q4, K4, V4]), ("fused_bool_mask", {}, [Q4, K4, V4, BOOL]),
    ("fused_float_mask", {}, [Q4, K4, V4, A(4, 5, rg=False)]),
    ("fused_4d_mask", {}, [Q4, K4, V4, A(2, 1, 4, 5, rg=False)]),
    ("fused_causal_and_mask", {"is_causal": True}, [Q4, K4, V4, A(4, 5, rg=False)]),
    ("fused_gqa", {"enable_gqa": True}, [A(2, 6, 4, 8), K4, V4]),
    ("fused_float32", {}, [A(2, 3, 4, 8, dtype="float32"), A(2, 3, 5, 8, dtype="float32"),
                           A(2, 3, 5, 8, dtype="float32")]),
    ("fused_causal_longer_query", {"is_causal": True}, [A(1, 2, 6, 4), A(1, 2, 3, 4), A(1, 2, 3, 4)]),
    ("math_3d", {}, [Q3, K3, V3]), ("math_2d", {}, [A(4, 8), A(5, 8), A(5, 8)]),
    ("math_causal", {"is_causal": True}, [Q3, K3, V3]), ("math_negative_scale", {"scale": -0.5}, [Q3, K3, V3]),
    ("math_bool_mask", {}, [Q3, K3, V3, BOOL]), ("math_mask_needs_grad", {}, [Q4, K4, V4, A(4, 5)]),
    ("math_3d_mask", {}, [Q4, K4, V4, A(3, 4, 5, rg=False)]), ("math_value_dim", {}, [Q4, K4, A(2, 3, 5, 6)]),
    ("math_broadcast_batch", {}, [Q4, A(1, 3, 5, 8), A(1, 3, 5, 8)]),
    ("math_gqa_3d", {"enable_gqa": True}, [A(6, 4, 8), K3, V3]),
    ("math_gqa_uneven", {"enable_gqa": True}, [A(2, 6, 4, 8), K4, A(2, 2, 5, 8)]),
    ("math_masked_row", {}, [Q3, K3, V3, A(4, 5, dtype="bool", value=np.array([[1, 1, 0, 0, 0], [0] * 5,
                                                                                 [1] * 5, [0, 1, 0, 1, 0]], bool))]),
    ("fused_masked_row", {}, [Q4, K4, V4, A(4, 5, dtype="bool", value=np.array([[1, 1, 0, 0, 0], [0] * 5, [1] * 5,
                                                                                 [0, 1, 0, 1, 0]], bool))]),
    ("empty_query", {}, [A(2, 3, 0, 8), K4, V4]),
]
CASES += [Case(f"sdpa_{name}", (lambda kw: lambda T, *a: _sdpa(T, *a, **kw))(kw), *specs) for name, kw, specs in SDPA]
CASES += [Case("sdpa_transposed_query", lambda T, q, k, v: _sdpa(T, q.transpose(-1, -2), k, v), A(2, 3, 8, 4), K4, V4),
          Case("sdpa_heads_transposed", lambda T, q, k, v: _sdpa(T, q.transpose(1, 2), k, v), A(2, 4, 3, 8), K4, V4)]

globals().update(oracle.case_tests(CASES))


@pytest.mark.parametrize("case", [c for c in CASES if c.name.startswith(("sdpa_fused", "cdist_p2_small"))],
                         ids=lambda c: c.name)
def test_repr_of_fused_nodes(case):
    oracle.check_repr(case)


def test_fused_attention_saved_values():
    """What the fused node keeps: the mask as the additive one, the scale as given."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in ((1, 2, 4, 8), (1, 2, 5, 8), (1, 2, 5, 8))]
    seen = []
    for T in (torch, gt):
        q, k, v = (T.tensor(a, requires_grad=True) for a in arrays)
        out = T.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=T.tensor(BOOL_MASK), scale=0.25)
        node = out.grad_fn
        seen.append((node._saved_scale, node._saved_dropout_p, node._saved_is_causal,
                     node._saved_attn_mask.numpy().tolist(), node._saved_query is q, tuple(node._saved_logsumexp.shape),
                     str(node._saved_logsumexp.dtype), np.allclose(node._saved_output.detach().numpy(),
                                                                   out.detach().numpy())))
    assert seen[0] == seen[1]


# ---------------------------------------------------------------------------------------
# errors
def _t(T, *shape, dtype=None):
    return T.ones(*shape, dtype=getattr(T, dtype) if dtype else None)


ERRORS = [
    ("einsum_no_operands", lambda T: T.einsum("ij")),
    ("einsum_bad_label", lambda T: T.einsum("i1,jk", _t(T, 2, 2), _t(T, 2, 2))),
    ("einsum_bad_output_label", lambda T: T.einsum("ij->i1", _t(T, 2, 2))),
    ("einsum_few_operands", lambda T: T.einsum("ij,jk", _t(T, 2, 2))),
    ("einsum_more_operands", lambda T: T.einsum("ij", _t(T, 2, 2), _t(T, 2, 2))),
    ("einsum_subscript_count", lambda T: T.einsum("ijk", _t(T, 2, 2))),
    ("einsum_subscripts_exceed", lambda T: T.einsum("ijk...", _t(T, 2, 2))),
    ("einsum_size_mismatch", lambda T: T.einsum("ij,jk", _t(T, 2, 3), _t(T, 4, 2))),
    ("einsum_repeated_mismatch", lambda T: T.einsum("ii", _t(T, 2, 3))),
    ("einsum_two_ellipses", lambda T: T.einsum("......", _t(T, 2, 3))),
    ("einsum_broken_ellipsis", lambda T: T.einsum("i..", _t(T, 2, 3))),
    ("einsum_output_twice", lambda T: T.einsum("ij->ii", _t(T, 2, 3))),
    ("einsum_output_unknown", lambda T: T.einsum("ij->k", _t(T, 2, 3))),
    ("einsum_output_two_ellipses", lambda T: T.einsum("...->......", _t(T, 2, 3))),
    ("einsum_output_broken_ellipsis", lambda T: T.einsum("...->..", _t(T, 2, 3))),
    ("einsum_ellipsis_broadcast", lambda T: T.einsum("...i,...i", _t(T, 2, 3), _t(T, 4, 3))),
    ("einsum_sublist_range", lambda T: T.einsum(_t(T, 2, 3), [0, 60])),
    ("einsum_only_equation", lambda T: T.einsum("ij,jk")),
    ("baddbmm_batch2", lambda T: T.baddbmm(_t(T, 2, 3, 5), _t(T, 2, 3, 4), _t(T, 2, 3, 5))),
    ("baddbmm_self_shape", lambda T: T.baddbmm(_t(T, 3, 3, 5), _t(T, 2, 3, 4), _t(T, 2, 4, 5))),
    ("cdist_columns", lambda T: T.cdist(_t(T, 3, 4), _t(T, 5, 3))),
    ("cdist_1d", lambda T: T.cdist(_t(T, 4), _t(T, 5, 4))),
    ("cdist_1d_second", lambda T: T.cdist(_t(T, 3, 4), _t(T, 4))),
    ("cdist_negative_p", lambda T: T.cdist(_t(T, 3, 4), _t(T, 5, 4), p=-1)),
    ("cdist_mode", lambda T: T.cdist(_t(T, 3, 4), _t(T, 5, 4), compute_mode="foo")),
    ("cdist_mode_none", lambda T: T.cdist(_t(T, 3, 4), _t(T, 5, 4), compute_mode=None)),
    ("cdist_batch", lambda T: T.cdist(_t(T, 2, 3, 4), _t(T, 3, 5, 4))),
    ("cdist_integer", lambda T: T.cdist(_t(T, 3, 4, dtype="long"), _t(T, 5, 4, dtype="long"))),
    ("sdpa_dtypes", lambda T: _sdpa(T, _t(T, 2, 4, 8), _t(T, 2, 5, 8), _t(T, 2, 5, 8, dtype="float64"))),
    ("sdpa_1d", lambda T: _sdpa(T, _t(T, 8), _t(T, 8), _t(T, 8))),
    ("sdpa_int_mask", lambda T: _sdpa(T, _t(T, 2, 4, 8), _t(T, 2, 5, 8), _t(T, 2, 5, 8),
                                      attn_mask=_t(T, 4, 5, dtype="long"))),
    ("sdpa_double_mask", lambda T: _sdpa(T, _t(T, 2, 4, 8), _t(T, 2, 5, 8), _t(T, 2, 5, 8),
                                         attn_mask=_t(T, 4, 5, dtype="float64"))),
    ("sdpa_causal_with_mask", lambda T: _sdpa(T, _t(T, 2, 4, 8), _t(T, 2, 5, 8), _t(T, 2, 5, 8),
                                              attn_mask=_t(T, 4, 5), is_causal=True)),
    ("sdpa_heads", lambda T: _sdpa(T, _t(T, 1, 3, 4, 8), _t(T, 1, 2, 5, 8), _t(T, 1, 2, 5, 8))),
    ("sdpa_gqa_uneven", lambda T: _sdpa(T, _t(T, 1, 5, 4, 8), _t(T, 1, 3, 5, 8), _t(T, 1, 3, 5, 8),
                                        enable_gqa=True)),
    ("sdpa_head_dim", lambda T: _sdpa(T, _t(T, 3, 4, 8), _t(T, 3, 5, 6), _t(T, 3, 5, 8))),
    ("sdpa_mask_heads", lambda T: _sdpa(T, _t(T, 2, 3, 4, 8), _t(T, 2, 3, 5, 8), _t(T, 2, 3, 5, 8),
                                        attn_mask=_t(T, 2, 2, 4, 5))),
    ("mha_embed_zero", lambda T: T.nn.MultiheadAttention(0, 2)),
    ("mha_heads_zero", lambda T: T.nn.MultiheadAttention(8, 0)),
    ("mha_not_divisible", lambda T: T.nn.MultiheadAttention(8, 3)),
    ("encoder_activation", lambda T: T.nn.TransformerEncoderLayer(8, 2, activation="tanh")),
]


def _mha(T, **kw):
    T.manual_seed(0)
    return T.nn.MultiheadAttention(8, 2, **kw)


ERRORS += [
    ("mha_query_rank", lambda T: _mha(T)(_t(T, 4), _t(T, 4), _t(T, 4))),
    ("mha_key_rank", lambda T: _mha(T)(_t(T, 4, 2, 8), _t(T, 4, 8), _t(T, 4, 8))),
    ("mha_unbatched_key_rank", lambda T: _mha(T)(_t(T, 4, 8), _t(T, 4, 2, 8), _t(T, 4, 2, 8))),
    ("mha_padding_rank", lambda T: _mha(T)(_t(T, 4, 2, 8), _t(T, 4, 2, 8), _t(T, 4, 2, 8),
                                           key_padding_mask=_t(T, 2, dtype="bool"))),
    ("mha_mask_rank", lambda T: _mha(T)(_t(T, 4, 2, 8), _t(T, 4, 2, 8), _t(T, 4, 2, 8),
                                        attn_mask=_t(T, 1, 1, 4, 4, dtype="bool"))),
    ("mha_mask_2d_shape", lambda T: _mha(T)(_t(T, 4, 2, 8), _t(T, 4, 2, 8), _t(T, 4, 2, 8),
                                            attn_mask=_t(T, 3, 4, dtype="bool"))),
    ("mha_mask_3d_shape", lambda T: _mha(T)(_t(T, 4, 2, 8), _t(T, 4, 2, 8), _t(T, 4, 2, 8),
                                            attn_mask=_t(T, 2, 4, 4, dtype="bool"))),
    ("mha_unbatched_mask_shape", lambda T: _mha(T)(_t(T, 4, 8), _t(T, 4, 8), _t(T, 4, 8),
                                                   attn_mask=_t(T, 3, 4, 4, dtype="bool"))),
    ("mha_int_mask", lambda T: _mha(T)(_t(T, 4, 2, 8), _t(T, 4, 2, 8), _t(T, 4, 2, 8),
                                       attn_mask=_t(T, 4, 4, dtype="long"))),
    ("mha_embed_mismatch", lambda T: _mha(T)(_t(T, 4, 2, 6), _t(T, 4, 2, 6), _t(T, 4, 2, 6))),
    ("mha_key_value_shape", lambda T: _mha(T)(_t(T, 4, 2, 8), _t(T, 5, 2, 8), _t(T, 6, 2, 8))),
    ("mha_causal_without_mask", lambda T: _mha(T)(_t(T, 4, 2, 8), _t(T, 4, 2, 8), _t(T, 4, 2, 8), is_causal=True)),
    ("mha_padding_batch", lambda T: _mha(T)(_t(T, 4, 2, 8), _t(T, 4, 2, 8), _t(T, 4, 2, 8),
                                            key_padding_mask=_t(T, 3, 4, dtype="bool"))),
    ("mha_padding_length", lambda T: _mha(T)(_t(T, 4, 2, 8), _t(T, 4, 2, 8), _t(T, 4, 2, 8),
                                             key_padding_mask=_t(T, 2, 5, dtype="bool"))),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, fn):
    oracle.check_error(name, fn)


# ---------------------------------------------------------------------------------------
# modules
def _load(torch_module, gv_module):
    state = {k: gt.tensor(v.detach().numpy().copy()) for k, v in torch_module.state_dict().items()}
    assert str(gv_module.load_state_dict(state)) == "<All keys matched successfully>"


def _pair(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        theirs = make(torch)
        ours = make(gt)
    _load(theirs, ours)
    return ours, theirs


def _run_module(make, call, arrays, train=True, grad=True):
    """call(T, module, *inputs) on both sides: outputs, graphs and every gradient agree."""
    ours, theirs = _pair(make)
    diffs = []
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    results = []
    for T, module in ((gt, ours), (torch, theirs)):
        module.train(train)
        inputs = [T.tensor(a, requires_grad=grad and a.dtype.kind == "f") if isinstance(a, np.ndarray) else a
                  for a in arrays]
        if grad:
            out = call(T, module, *inputs)
        else:
            with T.no_grad():
                out = call(T, module, *inputs)
        results.append((module, inputs, out))
    (gm, gi, go), (tm, ti, to) = results
    oracle.compare_any("out", go, to, gt, torch, diffs, rtol=1e-5, atol=1e-5)
    leaves_g, _ = oracle.flatten(gt, go)
    leaves_t, _ = oracle.flatten(torch, to)
    for (path, a), (_, b) in zip(leaves_g, leaves_t):
        if isinstance(b, torch.Tensor) and b.grad_fn is not None:
            ga, gb = oracle.graph_signature(gt, a, gi), oracle.graph_signature(torch, b, ti)
            if ga != gb:
                diffs.append(f"{path}: graph differs\n{ga}\n--- torch:\n{gb}")
    if grad and not diffs:
        rng = np.random.default_rng(7)
        roots = [(a, b) for (_, a), (_, b) in zip(leaves_g, leaves_t) if isinstance(b, torch.Tensor)
                 and b.requires_grad]
        weights = [rng.standard_normal(tuple(b.shape)).astype(np.float32) for _, b in roots]
        sum((a * gt.tensor(w)).sum() for (a, _), w in zip(roots, weights)).backward()
        sum((b * torch.tensor(w)).sum() for (_, b), w in zip(roots, weights)).backward()
        named = list(zip(gm.named_parameters(), tm.named_parameters()))
        pairs = [(f"in{k}", a, b) for k, (a, b) in enumerate(zip(gi, ti)) if isinstance(b, torch.Tensor)]
        pairs += [(name, a, b) for (name, a), (_, b) in named]
        for name, a, b in pairs:
            if (a.grad is None) != (b.grad is None):
                diffs.append(f"{name}.grad: ours {a.grad is None}, torch {b.grad is None}")
            elif b.grad is not None:
                d = oracle.values_diff(a.grad.numpy(), b.grad.numpy(), "torch.float32", rtol=1e-4, atol=1e-5)
                if d:
                    diffs.append(f"{name}.grad: {d}")
    oracle.assert_no_diffs(diffs)


def _arr(*shape, seed=3):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


SELF = (_arr(4, 2, 8),)
SELF_BF = (_arr(2, 4, 8),)
CAUSAL_BOOL = np.triu(np.ones((4, 4), dtype=bool), 1)
CAUSAL_FLOAT = np.triu(np.full((4, 4), -np.inf, dtype=np.float32), 1)


def _self_attn(**kw):
    return lambda T, m, x: m(x, x, x, **{k: T.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()})


MHA = [
    ("weights", {}, _self_attn(), SELF),
    ("no_weights", {}, _self_attn(need_weights=False), SELF),
    ("per_head_weights", {}, _self_attn(average_attn_weights=False), SELF),
    ("batch_first", {"batch_first": True}, _self_attn(), SELF_BF),
    ("batch_first_no_weights", {"batch_first": True}, _self_attn(need_weights=False), SELF_BF),
    ("no_bias", {"bias": False}, _self_attn(need_weights=False), SELF),
    ("bias_kv_zero_attn", {"add_bias_kv": True, "add_zero_attn": True}, _self_attn(), SELF),
    ("bias_kv_no_weights", {"add_bias_kv": True}, _self_attn(need_weights=False), SELF),
    ("padding_mask", {}, _self_attn(key_padding_mask=PAD_MASK), SELF),
    ("padding_mask_no_weights", {}, _self_attn(key_padding_mask=PAD_MASK, need_weights=False), SELF),
    ("bool_attn_mask", {}, _self_attn(attn_mask=CAUSAL_BOOL), SELF),
    ("float_attn_mask_no_weights", {}, _self_attn(attn_mask=CAUSAL_FLOAT, need_weights=False), SELF),
    ("causal_hint", {}, _self_attn(attn_mask=CAUSAL_BOOL, need_weights=False, is_causal=True), SELF),
    ("causal_with_weights", {}, _self_attn(attn_mask=CAUSAL_BOOL, is_causal=True), SELF),
    ("both_masks", {}, _self_attn(attn_mask=CAUSAL_FLOAT, key_padding_mask=PAD_MASK.astype(np.float32) * -1e9),
     SELF),
    ("bias_kv_zero_attn_masks", {"add_bias_kv": True, "add_zero_attn": True},
     _self_attn(attn_mask=CAUSAL_BOOL, key_padding_mask=PAD_MASK), SELF),
    ("bias_kv_zero_attn_masks_no_weights", {"add_bias_kv": True, "add_zero_attn": True},
     _self_attn(attn_mask=CAUSAL_FLOAT, key_padding_mask=PAD_MASK.astype(np.float32) * -1e9, need_weights=False),
     SELF),
    ("unbatched", {}, _self_attn(), (_arr(4, 8),)),
    ("unbatched_padding_and_3d_mask", {}, _self_attn(key_padding_mask=PAD_MASK[0],
                                                     attn_mask=np.zeros((2, 4, 4), np.float32)), (_arr(4, 8),)),
    ("unbatched_no_weights", {}, _self_attn(need_weights=False), (_arr(4, 8),)),
    ("cross_attention", {}, lambda T, m, q, kv: m(q, kv, kv), (_arr(4, 2, 8), _arr(6, 2, 8, seed=4))),
    ("cross_attention_no_weights", {}, lambda T, m, q, kv: m(q, kv, kv, need_weights=False),
     (_arr(4, 2, 8), _arr(6, 2, 8, seed=4))),
    ("separate_key_value", {}, lambda T, m, q, k, v: m(q, k, v), (_arr(4, 2, 8), _arr(6, 2, 8, seed=4),
                                                                   _arr(6, 2, 8, seed=5))),
    ("kdim_vdim", {"kdim": 3, "vdim": 5}, lambda T, m, q, k, v: m(q, k, v),
     (_arr(4, 2, 8), _arr(6, 2, 3, seed=4), _arr(6, 2, 5, seed=5))),
    ("kdim_vdim_no_weights", {"kdim": 3, "vdim": 5}, lambda T, m, q, k, v: m(q, k, v, need_weights=False),
     (_arr(4, 2, 8), _arr(6, 2, 3, seed=4), _arr(6, 2, 5, seed=5))),
]


@pytest.mark.parametrize("name,kw,call,arrays", MHA, ids=[m[0] for m in MHA])
def test_multihead_attention(name, kw, call, arrays):
    _run_module(lambda T: T.nn.MultiheadAttention(8, 2, **kw), call, arrays)


@pytest.mark.parametrize("name,kw,call,arrays", [m for m in MHA if "batch_first" in m[1] or m[0] in (
    "weights", "padding_mask", "bool_attn_mask")], ids=lambda v: v if isinstance(v, str) else "")
def test_multihead_attention_eval_without_grad(name, kw, call, arrays):
    """PyTorch's fused inference path (eval, no_grad, batch_first): the same values."""
    _run_module(lambda T: T.nn.MultiheadAttention(8, 2, **kw), call, arrays, train=False, grad=False)


def test_multihead_attention_dropout_graph():
    """With dropout the values depend on the generator; the graph does not."""
    make = lambda T: T.nn.MultiheadAttention(8, 2, dropout=0.5)  # noqa: E731
    ours, theirs = _pair(make)
    x = _arr(4, 2, 8)
    outs = [m(*(T.tensor(x, requires_grad=True),) * 3) for T, m in ((gt, ours), (torch, theirs))]
    for a, b in zip(*outs):
        assert oracle.graph_signature(gt, a) == oracle.graph_signature(torch, b)
        assert a.shape == b.shape


def test_multihead_attention_parameters_and_init():
    """Parameter names, order and shapes; in-projection biases start at zero; the
    initialisers run in PyTorch's order (out_proj's Linear first, then xavier_uniform_ of
    the in-projection, then xavier_normal_ of bias_k and bias_v): replaying that order by
    hand reproduces the module on both sides."""
    for kw in ({}, {"kdim": 3, "vdim": 5, "add_bias_kv": True, "bias": False}):
        for T in (gt, torch):
            T.manual_seed(1)
            module = T.nn.MultiheadAttention(8, 2, **kw)
            T.manual_seed(1)
            out_proj = T.nn.Linear(8, 8, bias=kw.get("bias", True))
            expected = {"out_proj.weight": out_proj.weight}
            names = ["in_proj_weight"] if not kw else ["q_proj_weight", "k_proj_weight", "v_proj_weight"]
            for name in names:
                expected[name] = T.nn.init.xavier_uniform_(T.empty(tuple(getattr(module, name).shape)))
            if kw.get("add_bias_kv"):
                for name in ("bias_k", "bias_v"):
                    expected[name] = T.nn.init.xavier_normal_(T.empty(1, 1, 8))
            for name, value in expected.items():
                assert np.array_equal(module.state_dict()[name].numpy(), value.detach().numpy()), name
        ours, theirs = _pair(lambda T: T.nn.MultiheadAttention(8, 2, **kw))
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert str(type(ours.out_proj)) == str(type(theirs.out_proj))
        if not kw:
            gm = gt.nn.MultiheadAttention(8, 2)
            assert not gm.in_proj_bias.detach().numpy().any() and not gm.out_proj.bias.detach().numpy().any()


def _layer(**kw):
    return lambda T: T.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **kw)


def _encoder(layers=2, norm=False, **kw):
    return lambda T: T.nn.TransformerEncoder(_layer(**kw)(T), layers, norm=T.nn.LayerNorm(8) if norm else None)


def _src(**kw):
    return lambda T, m, x: m(x, **{k: T.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()})


LAYERS = [
    ("layer", _layer(), _src(), SELF),
    ("layer_gelu_norm_first", _layer(activation="gelu", norm_first=True), _src(), SELF),
    ("layer_batch_first", _layer(batch_first=True), _src(), SELF_BF),
    ("layer_no_bias_eps", _layer(bias=False, layer_norm_eps=1e-3), _src(), SELF),
    ("layer_callable_activation", _layer(activation=lambda x: x.tanh()), _src(), SELF),
    ("layer_padding_mask", _layer(), _src(src_key_padding_mask=PAD_MASK), SELF),
    ("layer_float_mask", _layer(), _src(src_mask=CAUSAL_FLOAT), SELF),
    ("layer_causal", _layer(), _src(src_mask=CAUSAL_FLOAT, is_causal=True), SELF),
    ("layer_unbatched", _layer(), _src(), (_arr(4, 8),)),
    ("encoder", _encoder(), _src(), SELF),
    ("encoder_norm_mask", _encoder(norm=True), _src(mask=CAUSAL_FLOAT), SELF),
    ("encoder_padding_batch_first", _encoder(norm=True, batch_first=True), _src(src_key_padding_mask=PAD_MASK),
     SELF_BF),
    ("encoder_causal_detected", _encoder(batch_first=True), _src(mask=CAUSAL_FLOAT), SELF_BF),
    ("encoder_three_layers_gelu", _encoder(3, activation="gelu", norm_first=True), _src(), SELF),
]


@pytest.mark.parametrize("name,make,call,arrays", LAYERS, ids=[m[0] for m in LAYERS])
def test_transformer_train(name, make, call, arrays):
    _run_module(make, call, arrays)


@pytest.mark.parametrize("name,make,call,arrays", LAYERS, ids=[m[0] for m in LAYERS])
def test_transformer_eval_without_grad(name, make, call, arrays):
    """Eval mode under no_grad is where PyTorch takes its fused paths (and, for the encoder
    with a padding mask, nested tensors that come back with zeros at padded places)."""
    _run_module(make, call, arrays, train=False, grad=False)


def test_transformer_dropout_graph():
    ours, theirs = _pair(lambda T: T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(8, 2, 16), 2))
    x = _arr(4, 2, 8)
    a, b = (m(T.tensor(x, requires_grad=True)) for T, m in ((gt, ours), (torch, theirs)))
    assert oracle.graph_signature(gt, a) == oracle.graph_signature(torch, b)


def test_transformer_repr_and_nested_tensor_warning():
    for make in (_encoder(norm=True), _encoder(norm_first=True), _encoder(batch_first=True),
                 _encoder(batch_first=True, activation=lambda x: x), _encoder(batch_first=True, bias=False)):
        captured = []
        for T in (gt, torch):
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                module = make(T)
            captured.append((repr(module), [str(w.message) for w in seen], module.use_nested_tensor))
        assert captured[0] == captured[1]
    layer = [T.nn.TransformerEncoderLayer(8, 2, activation=T.nn.GELU()) for T in (gt, torch)]
    assert repr(layer[0]) == repr(layer[1])
    assert layer[0].activation_relu_or_gelu == layer[1].activation_relu_or_gelu == 2


def test_mismatched_mask_warning():
    messages = []
    for T in (gt, torch):
        T.manual_seed(0)
        module = T.nn.MultiheadAttention(8, 2)
        x = T.tensor(SELF[0])
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            module(x, x, x, key_padding_mask=T.tensor(PAD_MASK), attn_mask=T.tensor(CAUSAL_FLOAT))
        messages.append([str(w.message) for w in seen])
    assert messages[0] == messages[1] and messages[0]


@pytest.mark.slow
def test_nested_tensor_path_warns_once_like_pytorch():
    """The encoder's nested-tensor path warns once per process; a fresh 'process' for both."""
    import subprocess
    import sys
    script = (
        "import warnings, numpy as np, sys\n"
        "import gradviz.torch as gt, torch\n"
        "T = gt if sys.argv[1] == 'gv' else torch\n"
        "layer = T.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)\n"
        "m = T.nn.TransformerEncoder(layer, 2).eval()\n"
        "x = T.tensor(np.ones((2, 4, 8), np.float32))\n"
        "pad = T.tensor(np.array([[0, 0, 1, 1], [0, 0, 0, 1]], bool))\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    with T.no_grad():\n"
        "        m(x, src_key_padding_mask=pad); m(x, src_key_padding_mask=pad)\n"
        "print([str(w.message) for w in seen])\n")
    outputs = [subprocess.run([sys.executable, "-c", script, side], capture_output=True, text=True, check=True).stdout
               for side in ("gv", "torch")]
    assert outputs[0] == outputs[1] and "nested tensors" in outputs[0]


def _functional_mha(T, q, k, v, w_q, w_k, w_v, b_in, w_out, b_out, static_k, static_v, **kw):
    return T.nn.functional.multi_head_attention_forward(
        q, k, v, 8, 2, None, b_in, None, None, False, 0.0, w_out, b_out, use_separate_proj_weight=True,
        q_proj_weight=w_q, k_proj_weight=w_k, v_proj_weight=w_v, static_k=static_k, static_v=static_v, **kw)


FUNCTIONAL_MHA = [
    Case("mha_functional_static_kv", lambda T, *a: _functional_mha(T, *a), A(4, 2, 8), A(6, 2, 3), A(6, 2, 5),
         A(8, 8), A(8, 3), A(8, 5), A(24), A(8, 8), A(8), A(4, 6, 4), A(4, 6, 4), double=False),
    Case("mha_functional_static_kv_no_weights", lambda T, *a: _functional_mha(T, *a, need_weights=False),
         A(4, 2, 8), A(6, 2, 3), A(6, 2, 5), A(8, 8), A(8, 3), A(8, 5), A(24), A(8, 8), A(8), A(4, 6, 4),
         A(4, 6, 4), double=False),
    Case("mha_functional_eval_unaveraged", lambda T, *a: _functional_mha(
        T, *a, training=False, average_attn_weights=False), A(4, 2, 8), A(6, 2, 3), A(6, 2, 5), A(8, 8), A(8, 3),
        A(8, 5), A(24), A(8, 8), A(8), A(4, 6, 4), A(4, 6, 4), double=False),
]


@pytest.mark.parametrize("case", FUNCTIONAL_MHA, ids=[c.name for c in FUNCTIONAL_MHA])
def test_multi_head_attention_forward(case):
    oracle.check_forward(case)
    oracle.check_graph(case)
    oracle.check_backward(case)


FUNCTIONAL_MHA_ERRORS = [
    ("static_k_batch", lambda T: _functional_mha(T, *(_t(T, *s) for s in (
        (4, 2, 8), (6, 2, 3), (6, 2, 5), (8, 8), (8, 3), (8, 5), (24,), (8, 8), (8,), (3, 6, 4), (4, 6, 4))))),
    ("static_v_width", lambda T: _functional_mha(T, *(_t(T, *s) for s in (
        (4, 2, 8), (6, 2, 3), (6, 2, 5), (8, 8), (8, 3), (8, 5), (24,), (8, 8), (8,), (4, 6, 4), (4, 6, 3))))),
    ("q_weight_shape", lambda T: _functional_mha(T, *(_t(T, *s) for s in (
        (4, 2, 8), (6, 2, 3), (6, 2, 5), (8, 7), (8, 3), (8, 5), (24,), (8, 8), (8,), (4, 6, 4), (4, 6, 4))))),
    ("key_value_lengths", lambda T: _functional_mha(T, *(_t(T, *s) for s in (
        (4, 2, 8), (6, 2, 3), (5, 2, 5), (8, 8), (8, 3), (8, 5), (24,), (8, 8), (8,), (4, 6, 4), (4, 6, 4))))),
]


@pytest.mark.parametrize("name,fn", FUNCTIONAL_MHA_ERRORS, ids=[e[0] for e in FUNCTIONAL_MHA_ERRORS])
def test_multi_head_attention_forward_errors(name, fn):
    test_errors(name, fn)
