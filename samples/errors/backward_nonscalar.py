# gradviz explain sample: backward_nonscalar
import torch
w = torch.randn(2, 3, requires_grad=True)
errors = w * w                      # shape [2, 3]: not a scalar
errors.backward()
