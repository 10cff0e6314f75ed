# gradviz explain sample: tensor_int_list_requires_grad
import torch
coeffs = torch.tensor([2, 4, 8], requires_grad=True)   # int literals -> int64
