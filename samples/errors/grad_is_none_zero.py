# gradviz explain sample: grad_is_none_zero
import torch
w = torch.randn(3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
loss = (w * 2).sum()                # b is not part of the loss
loss.backward()
b.grad.zero_()
