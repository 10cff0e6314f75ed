# Four reasons a parameter gets no gradient: an unused head, a detached branch, a frozen
# layer and a ReLU that never fires. Run: gradviz run samples/why_no_grad.py
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.head = nn.Linear(4, 2)      # never used
        self.side = nn.Linear(4, 4)      # its output is detached
        self.frozen = nn.Linear(4, 4)
        self.frozen.requires_grad_(False)
        self.dead = nn.Linear(4, 4)

    def forward(self, x):
        h = self.frozen(self.body(x))
        s = self.side(x).detach()
        d = torch.relu(self.dead(x) - 100.0)   # never fires
        return (h + s + d).sum()


net = Net()
x = torch.randn(3, 4)
hidden = net.body(x).tanh()
loss = net(x) + hidden.sum()
loss.backward()
