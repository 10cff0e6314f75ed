# gradviz explain sample: backward_twice
import torch
params = torch.randn(5, requires_grad=True)
loss = params.tanh().sum()          # TanhBackward0 saves its result
loss.backward()
loss.backward()                     # the first call freed the graph's buffers
