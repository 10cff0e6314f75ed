# A transformer-style block: attention, layer norms, an MLP, residuals. It runs on
# gradviz's engine and on the installed PyTorch alike, with the same numbers:
#   gradviz run samples/transformer_block.py --graph block.svg
#   gradviz run samples/transformer_block.py --engine torch --graph block.svg
import torch
import torch.nn as nn

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d_model=8, heads=2):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 2 * d_model), nn.GELU(), nn.Linear(2 * d_model, d_model))

    def forward(self, x):
        h = self.norm1(x)
        attended, _ = self.attn(h, h, h, need_weights=False)
        x = x + attended
        return x + self.mlp(self.norm2(x))


block = Block()
x = torch.randn(2, 4, 8)
out = block(x)
loss = out.pow(2).mean()
loss.backward()
print(f"loss {loss.item():.4f}")
