# gradviz explain sample: inplace_leaf
import torch
w = torch.randn(3, requires_grad=True)
(w ** 2).sum().backward()
w -= 0.1 * w.grad                   # manual SGD step outside torch.no_grad()
