"""transformers' GPT-2 with 2 layers (small widths), random weights."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel

from _common import Model, main

LAYERS = 2


def build(layers=LAYERS, width=64, heads=4, vocab=1000):
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(n_layer=layers, n_embd=width, n_head=heads, vocab_size=vocab,
                                       n_positions=64))
    tokens = torch.randint(0, vocab, (2, 16))
    return Model(f"GPT-2, {layers} layers", model, (tokens,), lambda out: out.logits.logsumexp(-1).mean())


if __name__ == "__main__":
    main(build)
