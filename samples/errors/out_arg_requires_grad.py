# gradviz explain sample: out_arg_requires_grad
import torch
w = torch.randn(4, requires_grad=True)
buf = torch.empty(4)
torch.add(w, w, out=buf)
