"""torch.nn.functional's attention: scaled_dot_product_attention and
multi_head_attention_forward, with the helpers nn.MultiheadAttention and the transformer
layers call (_canonical_mask, _none_or_dtype, _mha_shape_check, _in_projection*).

On CPU, PyTorch runs scaled_dot_product_attention as one fused op
(ScaledDotProductFlashAttentionForCpuBackward0) when its constraints hold (4-D inputs, no
dropout, a 2-D or 4-D mask that needs no gradient, ...), and otherwise as the composite
"math" path, whose every step records its own node. Both are reproduced here.
"""
import math
import warnings

from .. import _dtypes
from .._namespace import F as _F
from .. import _ops_nn as ops
from ..autograd.graph import apply as _apply_op

# dtype names as ATen prints them in its messages
_ATEN_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
               "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
               "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _apply(op, inputs, **params):
    return _apply_op(op, inputs, params)


def _aten_name(t):
    return _ATEN_NAMES.get(t.dtype.name, t.dtype.name)


# =======================================================================================
# scaled_dot_product_attention
def _validate(query, key, value, attn_mask):
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_aten_name(query)} key.dtype: {_aten_name(key)} and value.dtype: {_aten_name(value)} "
                           "instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None and attn_mask.dtype not in (_dtypes.bool, _dtypes.float32, query.dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {_aten_name(attn_mask)} and  query.dtype: {_aten_name(query)} instead.")


def _additive_mask(mask, dtype):
    """A boolean mask (True = take part) as the additive mask PyTorch builds: 0 and -inf."""
    if mask is None or mask.dtype != _dtypes.bool:
        return mask
    return _F.zeros_like(mask, dtype=dtype).masked_fill_(mask.logical_not(), -math.inf)


def _mask_fits_fused(mask, query, key):
    if mask is None:
        return True
    if mask.requires_grad or mask.dim() not in (2, 4):
        return False
    if mask.shape[-2] not in (1, query.shape[2]) or mask.shape[-1] not in (1, key.shape[2]):
        return False
    return mask.dim() == 2 or (mask.shape[0] in (1, query.shape[0]) and mask.shape[1] in (1, query.shape[1]))


def _heads_fit_fused(query, key, value, enable_gqa):
    if not (query.shape[0] == key.shape[0] == value.shape[0]):
        return False
    q, k, v = query.shape[1], key.shape[1], value.shape[1]
    if enable_gqa:
        return k == v and q % k == 0
    return q == k == v


def _uses_fused_kernel(query, key, value, mask, dropout_p, enable_gqa):
    """sdp::select_sdp_backend_cpp: the fused kernel when all its constraints hold."""
    return (dropout_p == 0.0 and query.dim() == key.dim() == value.dim() == 4
            and _heads_fit_fused(query, key, value, enable_gqa) and _mask_fits_fused(mask, query, key)
            and query.shape[-1] == key.shape[-1] == value.shape[-1]
            # PyTorch's kernel reads a value with other sequence length than the key's anyway (its result
            # is then undefined); the composite below raises instead.
            and key.shape[-2] == value.shape[-2]
            and all(t.stride(-1) == 1 for t in (query, key, value))
            and query.dtype in (_dtypes.float32, _dtypes.float64, _dtypes.float16))


def _repeat_heads(x, repeats):
    """repeat_interleave(repeats, dim=-3) as ATen composes it: unsqueeze, expand, clone, view."""
    dim = x.dim() - 3
    shape = list(x.shape)
    grown = x.unsqueeze(dim + 1).expand(shape[:dim + 1] + [repeats] + shape[dim + 1:]).clone(
        memory_format="torch.contiguous_format")
    return grown.view(shape[:dim] + [shape[dim] * repeats] + shape[dim + 1:])


def _math_attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """_scaled_dot_product_attention_math: q and k^T each scaled by sqrt(scale), then
    matmul, the additive mask, _safe_softmax, dropout and matmul."""
    negative = scale is not None and scale < 0
    softmax_scale = abs(scale) if scale is not None else 1.0 / math.sqrt(query.shape[-1])
    factor = math.sqrt(softmax_scale)
    query = _apply(ops.mul_scalar, (query,), other=(0.0 - factor) if negative else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        length, source = query.shape[-2], key.shape[-2]
        attn_mask = _additive_mask(_F.ones(length, source, dtype=_dtypes.bool).tril(), query.dtype)
    if enable_gqa:
        heads, key_heads, value_heads = query.shape[-3], key.shape[-3], value.shape[-3]
        if heads % key_heads or heads % value_heads:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
        key, value = _repeat_heads(key, heads // key_heads), _repeat_heads(value, heads // value_heads)
    attn = query.matmul(_apply(ops.mul_scalar, (key.transpose(-2, -1),), other=factor))
    if attn_mask is not None:
        attn = attn.add_(attn_mask)
    attn = _apply(ops.safe_softmax, (attn,), dim=-1)
    if dropout_p > 0.0:
        from . import functional as F
        attn = F.dropout(attn, dropout_p, True)
    return attn.matmul(value)


def _empty_attention(query, key, value):
    """Inputs without elements: a zero result that still reaches every input."""
    shape = tuple(query.shape[:-1]) + (value.shape[-1],)
    reach = query.sum() + key.sum() + value.sum()
    return _F.zeros(shape, dtype=query.dtype) + _apply(ops.mul_scalar, (reach,), other=0.0)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None,
                                 enable_gqa=False):
    _validate(query, key, value, attn_mask)
    if query.numel() == 0 or key.numel() == 0 or value.numel() == 0:
        return _empty_attention(query, key, value)
    if _uses_fused_kernel(query, key, value, attn_mask, dropout_p, enable_gqa):
        mask = _additive_mask(attn_mask, query.dtype)
        outputs = _apply(ops.sdpa_flash, (query, key, value, mask), dropout_p=float(dropout_p),
                         is_causal=bool(is_causal), scale=None if scale is None else float(scale))
        return outputs[0]
    return _math_attention(query, key, value, _additive_mask(attn_mask, query.dtype), dropout_p, is_causal, scale,
                           enable_gqa)


# =======================================================================================
# multi-head attention
def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the input is batched; AssertionErrors as PyTorch's for the wrong ranks."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                         "tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A boolean mask as an additive float mask (True = masked out: -inf); float masks pass."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != _dtypes.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if not is_float:
        mask = _F.zeros_like(mask, dtype=target_type).masked_fill_(mask, -math.inf)
    return mask


def _none_or_dtype(input):
    if input is None:
        return None
    from .._tensor import Tensor
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _packed_heads(projection, count, width):
    """(..., count*E) -> count tensors (..., E) through one contiguous (count, ..., E) copy."""
    stacked = projection.unflatten(-1, (count, width)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
    return [stacked[i] for i in range(count)]


def _in_projection_packed(q, k, v, w, b=None):
    from . import functional as F
    width = q.shape[-1]
    if k is v:
        if q is k:  # self-attention: one projection for all three
            return _packed_heads(F.linear(q, w, b), 3, width)
        w_q, w_kv = w.split([width, width * 2])
        b_q, b_kv = (None, None) if b is None else b.split([width, width * 2])
        key_value = _packed_heads(F.linear(k, w_kv, b_kv), 2, width)
        return [F.linear(q, w_q, b_q)] + key_value
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return [F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)]


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    from . import functional as F
    eq, ek, ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for name, w, shape in (("query", w_q, (eq, eq)), ("key", w_k, (eq, ek)), ("value", w_v, (eq, ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {w.shape}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (eq,):
            raise AssertionError(f"expecting {name} bias shape of {(eq,)}, but got {b.shape}")
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def _prepared_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads):
    """The attention mask as 3-D (1 or bsz*num_heads, L, S), with PyTorch's shape errors."""
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                               f"{(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                               f"{(bsz * num_heads, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _static_projection(static, bsz, num_heads, head_dim, name):
    if static.shape[0] != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static


# This function mirrors PyTorch's torch.nn.functional.multi_head_attention_forward statement for
# statement (checks, projections, masks, attention, averaging), so each line can be read
# against PyTorch's source; split, it would lose that one-to-one reading.
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    from . import functional as F
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the hint alone tells scaled_dot_product_attention
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # merged with the padding mask, it is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        biases = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, *biases)

    if attn_mask is not None:
        attn_mask = _prepared_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _F.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _F.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # batch-first per head: (bsz * num_heads, length, head_dim)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_k is None else \
        _static_projection(static_k, bsz, num_heads, head_dim, "static_k")
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_v is None else \
        _static_projection(static_v, bsz, num_heads, head_dim, "static_v")
    if add_zero_attn:
        zeros = (bsz * num_heads, 1, head_dim)
        k = _F.cat([k, _F.zeros(zeros, dtype=k.dtype)], dim=1)
        v = _F.cat([v, _F.zeros(zeros, dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(
            bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[2]))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = _F.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = _F.bmm(q_scaled, k.transpose(-2, -1))
        weights = F.softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        attn_output = _F.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = F.linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.shape[1])
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            attn_output, weights = attn_output.squeeze(1), weights.squeeze(0)
        return attn_output, weights

    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    attn_output = F.linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.shape[1])
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None
