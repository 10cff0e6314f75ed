# A two-layer network, one SGD step. Run it with:  gradviz run samples/tiny_mlp.py --cells
import torch
import torch.nn as nn
import torch.nn.functional as F

# %% a model: its parameters show up in the table as net.fc1.weight, ...
torch.manual_seed(0)


class TinyMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.fc2 = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


net = TinyMLP()
x = torch.randn(8, 4)
target = torch.randn(8, 1)

# %% forward and backward
loss = ((net(x) - target) ** 2).mean()
loss.backward()
print("loss:", loss.item())

# %% one step of gradient descent
opt = torch.optim.SGD(net.parameters(), lr=0.1)
opt.step()
new_loss = ((net(x) - target) ** 2).mean()
print("lower after the step:", new_loss.item() < loss.item())
