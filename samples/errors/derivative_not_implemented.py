# gradviz explain sample: derivative_not_implemented
import torch
x = torch.randn(4, requires_grad=True)
buckets = torch.floor_divide(x, 0.5)
buckets.sum().backward()
