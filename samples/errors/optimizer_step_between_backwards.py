# gradviz explain sample: optimizer_step_between_backwards
import torch
model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
out = model(torch.randn(4, 2))
out.abs().mean().backward(retain_graph=True)
opt.step()                          # in-place update of the weights
(out ** 2).mean().backward()        # still needs the old weights
