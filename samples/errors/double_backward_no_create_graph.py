# gradviz explain sample: double_backward_no_create_graph
import torch
x = torch.randn(3, requires_grad=True)
y = (x ** 4).sum()
(dy,) = torch.autograd.grad(y, x)   # no create_graph=True
penalty = dy.pow(2).sum()
penalty.backward()
