# gradviz explain sample: backward_gradient_shape_mismatch
import torch
x = torch.randn(2, 3, requires_grad=True)
y = x.sin()
y.backward(gradient=torch.ones(3))  # must have y's shape [2, 3]
