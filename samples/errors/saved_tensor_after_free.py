# gradviz explain sample: saved_tensor_after_free
import torch
x = torch.randn(3, requires_grad=True)
y = x.cos()
y.sum().backward()
print(y.grad_fn._saved_self)        # released by the backward above
