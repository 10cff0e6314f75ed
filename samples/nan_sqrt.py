# A NaN that appears only in backward: sqrt is finite at 0, its gradient is not, and a
# zero mask turns 0 * inf into NaN. Find where it starts with:
#   gradviz run samples/nan_sqrt.py --nan
import torch

x = torch.tensor([0.0, 1.0, 4.0, 9.0], requires_grad=True)
mask = torch.tensor([0.0, 1.0, 1.0, 1.0])
y = torch.sqrt(x) * mask
loss = y.sum()
loss.backward()
print(x.grad)
