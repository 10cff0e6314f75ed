# gradviz explain sample: inplace_modified_input
import torch
w = torch.randn(2, 4, requires_grad=True)
batch = torch.randn(4, 3)           # plain data, saved by mm for dL/dw
out = w @ batch
batch.mul_(0.5)                     # modified before backward
out.sum().backward()
