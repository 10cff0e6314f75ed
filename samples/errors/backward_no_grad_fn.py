# gradviz explain sample: backward_no_grad_fn
import torch
weights = torch.randn(4)            # forgot requires_grad=True
score = (weights * 3).sum()
score.backward()
