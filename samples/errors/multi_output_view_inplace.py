# gradviz explain sample: multi_output_view_inplace
import torch
x = torch.randn(4, 2, requires_grad=True)
first, second = (x * 2).chunk(2, dim=0)
first.add_(1)
