# gradviz explain sample: tensor_copy_construct_warning (a warning, not an error)
import torch
w = torch.randn(3, requires_grad=True)
scaled = torch.tensor(w * 10)       # the copy has no history
