# gradviz explain sample: nonleaf_grad_access (a warning, not an error)
import torch
x = torch.randn(3, requires_grad=True)
hidden = x * 4
hidden.sum().backward()
print(hidden.grad)                  # None: hidden is not a leaf
