# gradviz explain sample: data_silent_wrong (silent: no error, wrong gradient)
import torch
x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
y = x.exp()                         # ExpBackward0 saves y
y.data.mul_(0)                      # .data is invisible to the version check
y.sum().backward()
print(x.grad)                       # zeros instead of exp(x)
