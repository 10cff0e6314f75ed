# gradviz explain sample: inference_tensor_inplace
import torch
with torch.inference_mode():
    stats = torch.zeros(3)
stats.add_(1.0)
