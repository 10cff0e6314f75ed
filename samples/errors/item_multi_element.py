# gradviz explain sample: item_multi_element
import torch
per_sample = torch.randn(5, requires_grad=True).abs()
print(per_sample.item())            # 5 elements
