# gradviz explain sample: grad_input_no_requires_grad
import torch
w = torch.randn(3, requires_grad=True)
data = torch.randn(3)
f = (w * data).sum()
torch.autograd.grad(f, [w, data])   # data does not require grad
