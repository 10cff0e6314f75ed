# gradviz explain sample: float_of_multi_element
import torch
scores = torch.randn(2, 2)
best = float(scores)
