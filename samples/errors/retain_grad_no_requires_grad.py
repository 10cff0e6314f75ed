# gradviz explain sample: retain_grad_no_requires_grad
import torch
w = torch.randn(3, requires_grad=True)
with torch.no_grad():
    h = w * 2
h.retain_grad()
