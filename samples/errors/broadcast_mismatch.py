# gradviz explain sample: broadcast_mismatch
import torch
pred = torch.randn(4, 3, requires_grad=True)
target = torch.randn(4, 2)
loss = ((pred - target) ** 2).mean()
