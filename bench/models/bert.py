"""transformers' BERT (4 layers, small widths) for masked LM, random weights."""
import torch
from transformers import BertConfig, BertForMaskedLM

from _common import Model, main


def build():
    torch.manual_seed(0)
    config = BertConfig(num_hidden_layers=4, hidden_size=128, num_attention_heads=4, intermediate_size=256,
                        vocab_size=1000, max_position_embeddings=64)
    model = BertForMaskedLM(config)
    tokens = torch.randint(0, 1000, (2, 16))
    return Model("BERT, 4 layers", model, (tokens,), lambda out: out.logits.logsumexp(-1).mean())


if __name__ == "__main__":
    main(build)
