# gradviz explain sample: resize_requires_grad
import torch
w = torch.randn(4, requires_grad=True)
w.resize_(2, 2)
