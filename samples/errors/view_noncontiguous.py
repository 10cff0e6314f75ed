# gradviz explain sample: view_noncontiguous
import torch
img = torch.randn(3, 4, 5, requires_grad=True)
flat = img.permute(2, 0, 1).view(-1)
