# gradviz explain sample: optimizer_nonleaf
import torch
w = torch.randn(3, requires_grad=True).double()   # the cast makes a non-leaf
opt = torch.optim.SGD([w], lr=0.01)
