# gradviz explain sample: grad_assign_wrong_shape
import torch
w = torch.randn(2, 3, requires_grad=True)
w.grad = torch.zeros(3, 2)
