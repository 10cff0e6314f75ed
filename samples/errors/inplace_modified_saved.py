# gradviz explain sample: inplace_modified_saved
import torch
x = torch.randn(4, requires_grad=True)
act = torch.tanh(x)                 # TanhBackward0 saves its output
act += 1                            # in-place: act's version goes 0 -> 1
act.sum().backward()
