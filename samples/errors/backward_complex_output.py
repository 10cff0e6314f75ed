# gradviz explain sample: backward_complex_output
import torch
x = torch.randn(3, dtype=torch.complex64, requires_grad=True)
z = (x * x).sum()
z.backward()
