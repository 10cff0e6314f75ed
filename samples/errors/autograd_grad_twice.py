# gradviz explain sample: autograd_grad_twice
import torch
x = torch.randn(4, requires_grad=True)
energy = x.exp().sum()
(force,) = torch.autograd.grad(energy, x)
(again,) = torch.autograd.grad(energy, x)   # the first call freed the buffers
