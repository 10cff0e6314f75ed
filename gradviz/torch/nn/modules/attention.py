"""MultiheadAttention (and the Linear subclass PyTorch gives it as out_proj)."""
from ..._namespace import F as _F
from .. import functional as F, init
from ..parameter import Parameter
from .linear import Linear
from .module import Module, torch_module_name


class NonDynamicallyQuantizableLinear(Linear):
    """A plain Linear; PyTorch names it so that quantization leaves out_proj alone."""


torch_module_name(globals(), "torch.nn.modules.linear")


class MultiheadAttention(Module):
    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_F.empty((3 * embed_dim, embed_dim), dtype=dtype, device=device))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(_F.empty((embed_dim, embed_dim), dtype=dtype, device=device))
            self.k_proj_weight = Parameter(_F.empty((embed_dim, self.kdim), dtype=dtype, device=device))
            self.v_proj_weight = Parameter(_F.empty((embed_dim, self.vdim), dtype=dtype, device=device))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_F.empty(3 * embed_dim, dtype=dtype, device=device))
        else:
            self.register_parameter("in_proj_bias", None)
        # Linear draws its own initial values here, before _reset_parameters, as in PyTorch.
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(_F.empty((1, 1, embed_dim), dtype=dtype, device=device))
            self.bias_v = Parameter(_F.empty((1, 1, embed_dim), dtype=dtype, device=device))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        # PyTorch's fused inference path (eval mode, no gradient needed) computes the same
        # values; the composite below is the one it takes whenever a graph is recorded.
        is_batched = query.dim() == 3
        key_padding_mask = F._canonical_mask(key_padding_mask, "key_padding_mask", F._none_or_dtype(attn_mask),
                                             "attn_mask", query.dtype)
        attn_mask = F._canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and is_batched:
            # transposed together, so the identities (query is key is value) still hold
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = {} if self._qkv_same_embed_dim else {
            "use_separate_proj_weight": True, "q_proj_weight": self.q_proj_weight,
            "k_proj_weight": self.k_proj_weight, "v_proj_weight": self.v_proj_weight}
        attn_output, attn_output_weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal, **separate)
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_output_weights
        return attn_output, attn_output_weights

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """(merged mask, mask type) as PyTorch's fused path takes them: 1 = padding only, 2 = merged."""
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        else:
            mask_type, merged = None, None
        if attn_mask is not None:
            batch, length = query.shape[0], query.shape[1]
            mask_type = 2
            if attn_mask.dim() == 3:
                expanded = attn_mask.view(batch, -1, length, length)
            else:
                expanded = attn_mask.view(1, 1, length, length).expand(batch, self.num_heads, -1, -1)
            merged = expanded
            if key_padding_mask is not None:
                merged = expanded + key_padding_mask.view(batch, 1, 1, length).expand(-1, self.num_heads, -1, -1)
        return merged, mask_type


torch_module_name(globals(), "torch.nn.modules.activation")
