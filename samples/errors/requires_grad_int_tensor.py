# gradviz explain sample: requires_grad_int_tensor
import torch
labels = torch.tensor([0, 1, 1])    # int64
labels.requires_grad_()
