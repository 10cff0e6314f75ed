# gradviz explain sample: saved_tensor_hooks_after_free
import torch
x = torch.randn(3, requires_grad=True)
y = x.exp()
y.sum().backward()
y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
