# gradviz explain sample: saved_tensor_detached_inplace
import torch
x = torch.randn(3, requires_grad=True)
h = x.sigmoid()
loss = (h * h).sum()                # MulBackward0 saves h
h.detach_()
loss.backward()
