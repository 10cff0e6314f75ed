# gradviz explain sample: inference_tensor_saved
import torch
with torch.inference_mode():
    features = torch.randn(4)
w = torch.randn(4, requires_grad=True)
loss = (w * features).sum()
