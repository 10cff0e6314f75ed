# nn modules: printed forms, children / modules / named_modules, train / eval, zero_grad,
# requires_grad_, apply, state_dict / load_state_dict, Sequential (indexing), ModuleList,
# Linear, Conv1d / Conv2d (stride, padding, dilation, groups), pools, activations,
# Dropout in eval, Flatten, Embedding, LayerNorm, BatchNorm running stats, RNNCell, LSTMCell.
import torch
import torch.nn as nn


def fill(module, lo=-0.5, hi=0.5):
    """Deterministic weights: every parameter gets evenly spaced values."""
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.linspace(lo, hi - 0.05 * i, p.numel() + 1)[1:].reshape(p.shape))
    return module

# %%
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.act = nn.Tanh()
        self.blocks = nn.ModuleList([nn.Linear(3, 3), nn.Linear(3, 3, bias=False)])
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(3, 2), nn.Sigmoid())

    def forward(self, x):
        x = self.act(self.fc1(x))
        for b in self.blocks:
            x = x + b(x)
        return self.head(x)


net = fill(Net())
print(net)
print([name for name, _ in net.named_children()])
print([name for name, _ in net.named_modules()])
print([type(m).__name__ for m in net.modules()])
print([(name, tuple(p.shape)) for name, p in net.named_parameters()])
print(sum(p.numel() for p in net.parameters()), len(list(net.children())))
print(net.head[1], net.head[-1], len(net.head), net.blocks[1])

# %%
inp = torch.linspace(-1.0, 1.0, 8).reshape(2, 4)
out = net(inp)
out.sum().backward()
print(out)
print(net.fc1.weight.grad)

# %%
net.zero_grad()
print([p.grad for p in net.parameters()][:2])
print(net.training, net.head.training)
net.eval()
print(net.training, net.head[0].training)
net.train()
print(net.training)
net.requires_grad_(False)
print([p.requires_grad for p in net.parameters()])
net.fc1.requires_grad_(True)
print([p.requires_grad for p in net.parameters()])

# %%
visited = []
net.apply(lambda m: visited.append(type(m).__name__))
print(visited)
sd = net.state_dict()
print(list(sd.keys()))
net2 = Net()
res = net2.load_state_dict(sd)
print(res)
print(torch.equal(net2.fc1.weight, net.fc1.weight), net2.fc1.weight.requires_grad)

# %%
bad = {k: v for k, v in sd.items() if k != "fc1.bias"}
net2.load_state_dict(bad)

# %%
print(net2.load_state_dict(bad, strict=False))

# %%
lin = fill(nn.Linear(3, 2))
print(lin, lin.weight.shape, lin.bias.shape, lin.in_features, lin.out_features)
y = lin(torch.tensor([[1.0, 2.0, 3.0]]))
print(y, type(y.grad_fn).__name__)
y3 = lin(torch.ones(2, 5, 3))
print(y3.shape, type(y3.grad_fn).__name__)
lin(torch.ones(2, 4))

# %%
conv1 = fill(nn.Conv1d(2, 4, kernel_size=3, stride=2, padding=1, dilation=1, groups=2))
print(conv1, conv1.weight.shape)
c1 = conv1(torch.linspace(-1, 1, 2 * 2 * 7).reshape(2, 2, 7))
c1.pow(2).sum().backward()
(c1, conv1.weight.grad, conv1.bias.grad)

# %%
conv2 = fill(nn.Conv2d(2, 4, kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2)))
img = torch.linspace(-2, 2, 1 * 2 * 5 * 5).reshape(1, 2, 5, 5).requires_grad_()
c2 = conv2(img)
print(conv2)
print(c2.shape, type(c2.grad_fn).__name__)
(c2 * torch.linspace(0, 1, c2.numel()).reshape(c2.shape)).sum().backward()
(c2, img.grad, conv2.weight.grad)

# %%
convg = fill(nn.Conv2d(4, 4, 3, padding=1, groups=4, bias=False))
print(convg)
cg = convg(torch.arange(64.0).reshape(1, 4, 4, 4) / 64)
cg

# %%
pool_in = torch.tensor([[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]]],
                       requires_grad=True)
mp = nn.MaxPool2d(2)
ap = nn.AvgPool2d(kernel_size=3, stride=1, padding=1)
mp2 = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
print(mp, ap, mp2, sep="\n")
pm = mp(pool_in)
pa = ap(pool_in)
pm2 = mp2(pool_in)
print([type(t.grad_fn).__name__ for t in (pm, pa, pm2)])
(pm.sum() + pa.sum() * 10 + pm2.sum() * 100).backward()
(pm, pa, pm2, pool_in.grad)

# %%
acts = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.GELU(), nn.LeakyReLU(0.2), nn.ELU(), nn.Softplus(),
                     nn.Softmax(dim=-1), nn.LogSoftmax(dim=-1), nn.Identity())
print(acts)
ain = torch.linspace(-2.0, 2.0, 6).reshape(2, 3).requires_grad_()
aout = acts(ain)
aout.sum().backward()
(aout, ain.grad)

# %%
drop = nn.Dropout(p=0.5)
print(drop, drop.training)
drop.eval()
din = torch.arange(6.0)
dout = drop(din)
print(dout, dout is din, torch.equal(dout, din))
drop.train()
dtrain = drop(torch.ones(1000))
print(sorted(set(dtrain.tolist())), bool((dtrain == 0).any()))

# %%
flat = nn.Flatten()
unflat = nn.Unflatten(1, (2, 3))
print(flat, unflat)
fx = flat(torch.arange(24.0).reshape(2, 3, 4))
print(fx.shape, nn.Flatten(0, 1)(torch.ones(2, 3, 4)).shape, unflat(torch.ones(4, 6)).shape)

# %%
emb = nn.Embedding(5, 3, padding_idx=0)
print(emb, emb.weight[0])
fill(emb)
ids = torch.tensor([[1, 2, 1], [4, 0, 3]])
e = emb(ids)
print(e.shape, type(e.grad_fn).__name__)
e.sum().backward()
emb.weight.grad

# %%
ln = nn.LayerNorm(4)
print(ln, ln.weight, ln.bias)
lx = torch.tensor([[1.0, 2.0, 4.0, 8.0], [0.0, -1.0, 1.0, 3.0]], requires_grad=True)
lo = ln(lx)
(lo * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
print(type(lo.grad_fn).__name__)
(lo, lx.grad, ln.weight.grad)

# %%
bn = nn.BatchNorm1d(3)
print(bn)
print([n for n, _ in bn.named_buffers()])
bx = torch.tensor([[1.0, 2.0, 3.0], [3.0, 6.0, 9.0], [5.0, 1.0, 0.0], [7.0, 3.0, -2.0]], requires_grad=True)
bo = bn(bx)
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)
bo2 = bn(bx * 2)
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)
(bo * torch.arange(12.0).reshape(4, 3)).sum().backward()
print(type(bo.grad_fn).__name__)
(bo, bn.weight.grad, bn.bias.grad)

# %%
bn.eval()
beval = bn(torch.tensor([[1.0, 1.0, 1.0]]))
beval

# %%
bn2 = nn.BatchNorm2d(2, momentum=0.5, affine=False)
print(bn2)
b2in = torch.arange(16.0).reshape(2, 2, 2, 2)
b2out = bn2(b2in)
print(bn2.running_mean, bn2.running_var)
b2out

# %%
bn(torch.ones(1, 3)) if bn.train() else None

# %%
rnn = fill(nn.RNNCell(3, 2))
print(rnn)
h = torch.zeros(1, 2)
seq = torch.linspace(-1, 1, 12).reshape(4, 1, 3)
for t in range(4):
    h = rnn(seq[t], h)
h.sum().backward()
print(type(h.grad_fn).__name__)
(h, rnn.weight_ih.grad, rnn.weight_hh.grad)

# %%
lstm = fill(nn.LSTMCell(3, 2))
print(lstm)
hx, cx = torch.zeros(1, 2), torch.zeros(1, 2)
for t in range(3):
    hx, cx = lstm(seq[t], (hx, cx))
(hx.sum() + cx.sum()).backward()
(hx, cx, lstm.weight_ih.grad, lstm.bias_hh.grad)

# %%
class WithBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.tensor([2.0, 3.0]))
        self.w = nn.Parameter(torch.tensor([1.0, -1.0]))

    def forward(self, x):
        return x * self.w * self.scale

    def extra_repr(self):
        return "custom=True"


wb = WithBuffer()
print(wb, list(wb.state_dict().keys()), isinstance(wb.w, nn.Parameter), wb.w)
wb(torch.tensor([1.0, 1.0])).sum().backward()
wb.w.grad
