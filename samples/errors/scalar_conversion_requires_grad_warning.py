# gradviz explain sample: scalar_conversion_requires_grad_warning (a warning, not an error)
import torch
w = torch.randn(1, requires_grad=True)
loss = (w * 3).sum()
logged = float(loss)                # use loss.item() for logging
