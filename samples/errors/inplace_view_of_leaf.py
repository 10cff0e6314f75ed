# gradviz explain sample: inplace_view_of_leaf
import torch
bias = torch.zeros(4, requires_grad=True)
bias[1:3] = 0.5                     # writes into a slice of a leaf
