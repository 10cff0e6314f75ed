# gradviz explain sample: grad_outputs_mismatch_masked
import torch
x = torch.randn(3, 2, requires_grad=True)
total, doubled = x.sum(), x * 2
torch.autograd.grad([total, doubled], x, grad_outputs=[torch.tensor(1.0), torch.ones(2)])
