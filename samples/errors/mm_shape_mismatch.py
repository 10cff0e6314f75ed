# gradviz explain sample: mm_shape_mismatch
import torch
x = torch.randn(4, 6)
layer = torch.nn.Linear(5, 2)       # expects 5 input features
layer(x)
