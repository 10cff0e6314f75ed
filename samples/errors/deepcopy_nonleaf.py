# gradviz explain sample: deepcopy_nonleaf
import copy
import torch
w = torch.randn(3, requires_grad=True)
history = [w * 2]
snapshot = copy.deepcopy(history)
