# Autograd's classic mistakes, one per cell. An exception ends its cell only, as in a
# notebook, so every cell runs. Run it with:  gradviz run samples/errors_demo.py
import torch

# %% backward through a graph twice: the saved tensors were freed by the first call
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()
y.backward()
y.backward()

# %% backward of a non-scalar needs an explicit gradient
z = x * 2
z.backward()

# %% the fix: pass the gradient, or reduce to a scalar first
z.backward(torch.ones_like(z))
x.grad
