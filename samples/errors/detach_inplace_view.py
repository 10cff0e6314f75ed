# gradviz explain sample: detach_inplace_view
import torch
m = torch.randn(3, 3)
row = m[0]
row.detach_()
