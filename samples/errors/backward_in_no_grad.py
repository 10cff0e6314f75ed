# gradviz explain sample: backward_in_no_grad
import torch
w = torch.randn(3, requires_grad=True)
with torch.no_grad():
    loss = (w * w).sum()            # no graph is recorded here
loss.backward()
