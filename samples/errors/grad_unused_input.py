# gradviz explain sample: grad_unused_input
import torch
a = torch.randn(3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
f = (a * 2).sum()                   # b is not used
torch.autograd.grad(f, [a, b])
