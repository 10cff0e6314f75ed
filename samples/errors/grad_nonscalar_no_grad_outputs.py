# gradviz explain sample: grad_nonscalar_no_grad_outputs
import torch
x = torch.randn(4, requires_grad=True)
y = x.exp()                         # 4 elements
torch.autograd.grad(y, x)
