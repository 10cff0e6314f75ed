"""nn.TransformerDecoderLayer, nn.TransformerDecoder and nn.Transformer on gradviz.torch
against real PyTorch 2.13.

Modules are built on both sides from the same seed: their state_dicts (keys in order,
values bit for bit) must agree before anything runs, so the registration order and the
initialisers (each submodule's own, then Transformer's xavier_uniform_ over every
parameter of two or more dimensions) are PyTorch's. Then outputs, the whole grad_fn graph
and every gradient (inputs and parameters) are compared in train mode with grad and in
eval mode under no_grad, over masks, causal hints, padding, norm_first, batch_first,
activations, unbatched inputs; warnings and errors verbatim.
"""
import warnings

import numpy as np
import pytest

import gradviz.torch as gt
import oracle
from test_attention_oracle import PAD_MASK, _arr, _run_module

torch = pytest.importorskip("torch")

CAUSAL_FLOAT = np.triu(np.full((4, 4), -np.inf, dtype=np.float32), 1)
CAUSAL_BOOL = np.triu(np.ones((4, 4), dtype=bool), 1)
MEMORY_MASK = np.where(np.random.default_rng(5).random((4, 6)) < 0.3, -np.inf, 0).astype(np.float32)
MEMORY_PAD = np.array([[False, False, False, False, True, True], [False] * 6])
TGT, MEM = _arr(4, 2, 8), _arr(6, 2, 8, seed=4)
TGT_BF, MEM_BF = _arr(2, 4, 8), _arr(2, 6, 8, seed=4)


def _tensors(T, kw):
    return {k: T.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}


def _call(**kw):
    return lambda T, m, *xs: m(*xs, **_tensors(T, kw))


def _dec_layer(**kw):
    return lambda T: T.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **kw)


def _decoder(layers=2, norm=True, **kw):
    return lambda T: T.nn.TransformerDecoder(_dec_layer(**kw)(T), layers, norm=T.nn.LayerNorm(8) if norm else None)


def _transformer(**kw):
    return lambda T: T.nn.Transformer(8, 2, 2, 2, 16, 0.0, **kw)


DECODERS = [
    ("layer", _dec_layer(), _call(), (TGT, MEM)),
    ("layer_norm_first_gelu", _dec_layer(norm_first=True, activation="gelu"), _call(), (TGT, MEM)),
    ("layer_batch_first", _dec_layer(batch_first=True), _call(), (TGT_BF, MEM_BF)),
    ("layer_no_bias_eps", _dec_layer(bias=False, layer_norm_eps=1e-3), _call(), (TGT, MEM)),
    ("layer_callable_activation", _dec_layer(activation=lambda x: x.tanh()), _call(), (TGT, MEM)),
    ("layer_module_activation", lambda T: T.nn.TransformerDecoderLayer(8, 2, 16, 0.0, activation=T.nn.GELU()),
     _call(), (TGT, MEM)),
    ("layer_tgt_mask", _dec_layer(), _call(tgt_mask=CAUSAL_FLOAT), (TGT, MEM)),
    ("layer_tgt_bool_mask", _dec_layer(), _call(tgt_mask=CAUSAL_BOOL), (TGT, MEM)),
    ("layer_tgt_is_causal", _dec_layer(), _call(tgt_mask=CAUSAL_FLOAT, tgt_is_causal=True), (TGT, MEM)),
    ("layer_memory_mask", _dec_layer(), _call(memory_mask=MEMORY_MASK), (TGT, MEM)),
    ("layer_padding_masks", _dec_layer(), _call(tgt_key_padding_mask=PAD_MASK, memory_key_padding_mask=MEMORY_PAD),
     (TGT, MEM)),
    ("layer_all_masks", _dec_layer(), _call(tgt_mask=CAUSAL_BOOL, memory_mask=MEMORY_MASK < 0,
                                            tgt_key_padding_mask=PAD_MASK, memory_key_padding_mask=MEMORY_PAD),
     (TGT, MEM)),
    ("layer_unbatched", _dec_layer(), _call(), (_arr(4, 8), _arr(6, 8, seed=4))),
    ("decoder", _decoder(norm=False), _call(), (TGT, MEM)),
    ("decoder_causal_detected", _decoder(), _call(tgt_mask=CAUSAL_FLOAT), (TGT, MEM)),
    ("decoder_causal_declined", _decoder(), _call(tgt_mask=CAUSAL_FLOAT, tgt_is_causal=False), (TGT, MEM)),
    ("decoder_causal_padding", _decoder(batch_first=True), _call(tgt_mask=CAUSAL_FLOAT, tgt_key_padding_mask=PAD_MASK),
     (TGT_BF, MEM_BF)),
    ("decoder_three_layers_norm_first", _decoder(3, norm_first=True, activation="gelu"), _call(), (TGT, MEM)),
    ("decoder_memory_is_causal", _decoder(), _call(memory_mask=np.triu(np.full((4, 6), -np.inf, np.float32), 1),
                                                   memory_is_causal=True), (TGT, MEM)),
]

SRC, SRC_BF = _arr(6, 2, 8, seed=6), _arr(2, 6, 8, seed=6)
SRC_PAD = np.array([[False, False, False, False, False, True], [False, False, False, True, True, True]])
TRANSFORMERS = [
    ("transformer", _transformer(), _call(), (SRC, TGT)),
    ("transformer_tgt_mask", _transformer(), _call(tgt_mask=CAUSAL_FLOAT), (SRC, TGT)),
    ("transformer_translation_masks", _transformer(), _call(
        tgt_mask=CAUSAL_FLOAT, src_key_padding_mask=SRC_PAD, tgt_key_padding_mask=PAD_MASK,
        memory_key_padding_mask=SRC_PAD), (SRC, TGT)),
    ("transformer_batch_first_padding", _transformer(batch_first=True), _call(
        tgt_mask=CAUSAL_FLOAT, src_key_padding_mask=SRC_PAD, memory_key_padding_mask=SRC_PAD), (SRC_BF, TGT_BF)),
    ("transformer_src_mask", _transformer(), _call(src_mask=np.triu(np.full((6, 6), -np.inf, np.float32), 1),
                                                   tgt_mask=CAUSAL_BOOL), (SRC, TGT)),
    ("transformer_norm_first_gelu", _transformer(norm_first=True, activation="gelu"), _call(), (SRC, TGT)),
    ("transformer_no_bias", _transformer(bias=False), _call(tgt_mask=CAUSAL_FLOAT), (SRC, TGT)),
    ("transformer_unbatched", _transformer(), _call(tgt_mask=CAUSAL_FLOAT), (_arr(6, 8, seed=6), _arr(4, 8))),
]
MODULES = DECODERS + TRANSFORMERS


@pytest.mark.parametrize("name,make,call,arrays", MODULES, ids=[m[0] for m in MODULES])
def test_decoder_train(name, make, call, arrays):
    _run_module(make, call, arrays)


@pytest.mark.parametrize("name,make,call,arrays", MODULES, ids=[m[0] for m in MODULES])
def test_decoder_eval_without_grad(name, make, call, arrays):
    """Eval under no_grad: the encoder of nn.Transformer may take PyTorch's nested-tensor
    path (batch_first with a source padding mask), the decoder never has a fused path."""
    _run_module(make, call, arrays, train=False, grad=False)


# ---------------------------------------------------------------------------------------
# construction: parameters, initial values, reprs, warnings
BUILDS = [
    ("decoder_layer", lambda T: T.nn.TransformerDecoderLayer(8, 2, 16)),
    ("decoder_layer_no_bias", lambda T: T.nn.TransformerDecoderLayer(8, 4, 12, bias=False, norm_first=True)),
    ("decoder", lambda T: T.nn.TransformerDecoder(T.nn.TransformerDecoderLayer(8, 2, 16), 3, T.nn.LayerNorm(8))),
    ("transformer", lambda T: T.nn.Transformer(8, 2, 2, 3, 16)),
    ("transformer_default_sizes", lambda T: T.nn.Transformer(num_encoder_layers=1, num_decoder_layers=1,
                                                             dim_feedforward=32)),
    ("transformer_batch_first_odd_heads", lambda T: T.nn.Transformer(9, 3, 1, 1, 16, batch_first=True)),
    ("transformer_batch_first", lambda T: T.nn.Transformer(8, 2, 1, 2, 16, batch_first=True, activation="gelu")),
    ("transformer_norm_first", lambda T: T.nn.Transformer(8, 2, 1, 1, 16, batch_first=True, norm_first=True)),
    ("transformer_callable", lambda T: T.nn.Transformer(8, 2, 1, 1, 16, batch_first=True, activation=T.tanh)),
    ("transformer_no_bias", lambda T: T.nn.Transformer(8, 2, 1, 1, 16, batch_first=True, bias=False)),
    ("transformer_float64", lambda T: T.nn.Transformer(8, 2, 1, 1, 16, dtype=T.float64)),
    ("transformer_custom_encoder", lambda T: T.nn.Transformer(
        8, 2, 1, 1, 16, custom_encoder=T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(8, 2, 16), 1,
                                                               enable_nested_tensor=False))),
    ("transformer_custom_decoder", lambda T: T.nn.Transformer(
        8, 2, 1, 1, 16, custom_decoder=T.nn.TransformerDecoder(T.nn.TransformerDecoderLayer(8, 2, 16), 2))),
]


def _build(T, make, seed):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        T.manual_seed(seed)
        module = make(T)
    state = module.state_dict()
    return (repr(module), [(w.category.__name__, str(w.message)) for w in seen], list(state),
            [(tuple(v.shape), str(v.dtype)) for v in state.values()], [v.numpy().copy() for v in state.values()],
            [n for n, _ in module.named_modules()], [type(m).__name__ for m in module.modules()],
            T.randn(3).numpy().tolist())


@pytest.mark.parametrize("seed", (0, 1, 7))
@pytest.mark.parametrize("name,make", BUILDS, ids=[b[0] for b in BUILDS])
def test_construction_matches(name, make, seed):
    """Same reprs, warnings, state_dict keys, shapes, dtypes and values bit for bit (so
    the same random draws in the same order), the same module tree, and the generator
    left at the same place."""
    ours, theirs = _build(gt, make, seed), _build(torch, make, seed)
    assert ours[:4] == theirs[:4]
    assert ours[5:] == theirs[5:]
    for key, a, b in zip(ours[2], ours[4], theirs[4]):
        assert np.array_equal(a, b), key


def test_transformer_attributes_and_activation():
    for T in (gt, torch):
        m = T.nn.Transformer(8, 2, 1, 1, 16, batch_first=True)
        assert (m.d_model, m.nhead, m.batch_first) == (8, 2, True)
        assert m.encoder.layers[0].activation is T.nn.functional.relu
        assert m.decoder.layers[0].activation is T.nn.functional.relu
        assert not hasattr(m.decoder.layers[0], "activation_relu_or_gelu")
        layer = T.nn.TransformerDecoderLayer(8, 2, 16, activation="gelu")
        assert layer.activation is T.nn.functional.gelu
        assert m.encoder.use_nested_tensor and m.decoder.num_layers == 1


@pytest.mark.parametrize("size,kw", [(1, {}), (4, {}), (5, {"dtype": "float64"}), (3, {"dtype": "bool"}),
                                     (0, {}), (3, {"device": "cpu"})])
def test_generate_square_subsequent_mask(size, kw):
    masks = []
    for T in (gt, torch):
        args = {k: getattr(T, v) if k == "dtype" else v for k, v in kw.items()}
        mask = T.nn.Transformer.generate_square_subsequent_mask(size, **args)
        masks.append((repr(mask), str(mask.dtype), tuple(mask.shape), mask.requires_grad))
    assert masks[0] == masks[1]


def test_dropout_graph():
    """With dropout the values depend on the generator, the graph does not."""
    graphs = []
    for T in (gt, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            T.manual_seed(0)
            m = T.nn.Transformer(8, 2, 1, 1, 16)
        src, tgt = T.tensor(SRC, requires_grad=True), T.tensor(TGT, requires_grad=True)
        out = m(src, tgt, tgt_mask=T.nn.Transformer.generate_square_subsequent_mask(4))
        graphs.append(oracle.graph_signature(T, out, [src, tgt]))
    assert graphs[0] == graphs[1]


# ---------------------------------------------------------------------------------------
# errors
def _t(T, *shape):
    return T.ones(*shape)


def _quiet(make):
    def build(T):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return make(T)
    return build


_small = _quiet(lambda T: T.nn.Transformer(8, 2, 1, 1, 16))
_small_bf = _quiet(lambda T: T.nn.Transformer(8, 2, 1, 1, 16, batch_first=True))
ERRORS = [
    ("decoder_layer_activation", lambda T: T.nn.TransformerDecoderLayer(8, 2, activation="tanh")),
    ("transformer_activation", lambda T: T.nn.Transformer(8, 2, 1, 1, 16, activation="silu")),
    ("transformer_heads", lambda T: T.nn.Transformer(8, 3, 1, 1, 16)),
    ("transformer_batch", lambda T: _small(T)(_t(T, 5, 2, 8), _t(T, 4, 3, 8))),
    ("transformer_batch_first_batch", lambda T: _small_bf(T)(_t(T, 2, 5, 8), _t(T, 3, 4, 8))),
    ("transformer_src_features", lambda T: _small(T)(_t(T, 5, 2, 6), _t(T, 4, 2, 8))),
    ("transformer_tgt_features", lambda T: _small(T)(_t(T, 5, 2, 8), _t(T, 4, 2, 6))),
    ("transformer_mask_shape", lambda T: _small(T)(_t(T, 5, 2, 8), _t(T, 4, 2, 8), tgt_mask=_t(T, 3, 3))),
    ("transformer_causal_without_mask", lambda T: _small(T)(_t(T, 5, 2, 8), _t(T, 4, 2, 8), tgt_is_causal=True)),
    ("decoder_memory_features", lambda T: _quiet(_decoder())(T)(_t(T, 4, 2, 8), _t(T, 6, 2, 5))),
    ("decoder_memory_batch", lambda T: _quiet(_decoder())(T)(_t(T, 4, 2, 8), _t(T, 6, 3, 8))),
    ("decoder_padding_shape", lambda T: _quiet(_decoder())(T)(_t(T, 4, 2, 8), _t(T, 6, 2, 8),
                                                            memory_key_padding_mask=T.zeros(2, 5, dtype=T.bool))),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, fn):
    oracle.check_error(name, fn)


def test_mismatched_mask_warning_through_the_decoder():
    """A bool padding mask with a float causal mask: MultiheadAttention's deprecation
    warning, raised from inside the decoder as in PyTorch."""
    messages = []
    for T in (gt, torch):
        m = _quiet(_transformer())(T)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            m(T.tensor(SRC), T.tensor(TGT), tgt_mask=T.tensor(CAUSAL_FLOAT), tgt_key_padding_mask=T.tensor(PAD_MASK))
        messages.append([(w.category.__name__, str(w.message)) for w in seen])
    assert messages[0] == messages[1] and messages[0]
