# gradviz explain sample: backward_in_no_grad (inference_mode)
import torch
layer = torch.nn.Linear(3, 1)
with torch.inference_mode():
    out = layer(torch.randn(2, 3))
out.sum().backward()
