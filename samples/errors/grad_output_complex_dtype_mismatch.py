# gradviz explain sample: grad_output_complex_dtype_mismatch
import torch
z = torch.randn(2, dtype=torch.complex64, requires_grad=True)
out = z * 3
out.backward(gradient=torch.ones(2))     # real gradient for a complex output
