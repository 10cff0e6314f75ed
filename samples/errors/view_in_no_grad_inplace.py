# gradviz explain sample: view_in_no_grad_inplace
import torch
h = torch.randn(4, requires_grad=True) * 1.0     # non-leaf
with torch.no_grad():
    head = h[:2]
head.zero_()
