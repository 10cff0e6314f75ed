# gradviz explain sample: hook_no_requires_grad
import torch
t = torch.randn(4)
t.register_hook(lambda grad: grad.clamp(-1, 1))
