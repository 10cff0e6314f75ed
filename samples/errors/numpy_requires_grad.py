# gradviz explain sample: numpy_requires_grad
import torch
w = torch.randn(2, 2, requires_grad=True)
pred = w.sigmoid()
values = pred.numpy()
