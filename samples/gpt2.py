"""GPT-2 small (12 layers, 768 wide, 124M parameters) from its config, with random
weights: nothing is downloaded. Needs transformers; run it on real PyTorch:

    gradviz run samples/gpt2.py --engine torch --graph gpt2.png --tree
"""
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config())
tokens = torch.randint(0, 50257, (2, 16))
loss = model(tokens, labels=tokens).loss
loss.backward()
