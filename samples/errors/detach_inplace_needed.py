# gradviz explain sample: detach_inplace_needed
import torch
x = torch.randn(4, requires_grad=True)
probs = x.sigmoid()                 # SigmoidBackward0 saves probs
shown = probs.detach()              # shares memory and version counter
shown.mul_(100)
probs.sum().backward()
