# gradviz explain sample: requires_grad_nonleaf
import torch
x = torch.randn(3, requires_grad=True)
feat = x.exp()
feat.requires_grad_(False)          # feat has a grad_fn: not a leaf
