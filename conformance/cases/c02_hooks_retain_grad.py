# Tensor hooks (see, replace, remove, order), Node hooks and pre-hooks,
# retain_grad / retains_grad on leaves and non-leaves, and module forward hooks.
import torch

# %%
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
y.retain_grad()
z = y * y
order = []


def see(g):
    order.append("see")
    print("see:", g)


def times10(g):
    order.append("times10")
    return g * 10


hs = y.register_hook(see)
ht = y.register_hook(times10)
z.sum().backward()
print(order)
print(x.retains_grad, y.retains_grad, z.retains_grad)
(x.grad, y.grad)

# %%
# removing a hook: the replacement no longer applies
ht.remove()
hs.remove()
x.grad = None
y2 = x * 2
y2.retain_grad()
y2.register_hook(lambda g: print("y2 hook", g))
(y2 * y2).sum().backward()
(x.grad, y2.grad)

# %%
# hooks on a leaf: the returned value is what accumulates into .grad
w = torch.tensor([0.5, -1.0], requires_grad=True)
hw = w.register_hook(lambda g: g * 3)
w.register_hook(lambda g: print("second leaf hook sees", g))
(w * torch.tensor([2.0, 4.0])).sum().backward()
w.grad

# %%
# the order in which hooks on different tensors fire during one backward
fired = []
a = torch.tensor([0.25, 0.75], requires_grad=True)
b = a.exp()
c = b.sin()
d = c * 3
a.register_hook(lambda g: fired.append("a"))
b.register_hook(lambda g: fired.append("b"))
c.register_hook(lambda g: fired.append("c"))
d.register_hook(lambda g: fired.append("d"))
d.sum().backward()
print(fired)
a.grad

# %%
# retain_grad on a leaf is a no-op; on a tensor without grad it raises
leaf = torch.ones(2, requires_grad=True)
leaf.retain_grad()
print(leaf.retains_grad, leaf.is_leaf)
torch.ones(2).retain_grad()

# %%
torch.ones(3).register_hook(lambda g: g)

# %%
# retain_grad accumulates across backward calls
m = torch.tensor([1.0, 2.0], requires_grad=True)
n = m * m
n.retain_grad()
n.sum().backward(retain_graph=True)
n.sum().backward()
(m.grad, n.grad)

# %%
# Node hooks: register_prehook sees grad_outputs, register_hook sees grad_inputs too
events = []
p = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
q = p.tanh()
r = (q * 4).sum()


def pre(grad_outputs):
    events.append(("pre", [g.tolist() for g in grad_outputs]))


def post(grad_inputs, grad_outputs):
    events.append(("post", len(grad_inputs), len(grad_outputs)))


hp = q.grad_fn.register_prehook(pre)
hq = q.grad_fn.register_hook(post)
r.backward()
for e in events:
    print(e)
p.grad

# %%
# a hook that returns a tensor of the wrong shape
s = torch.ones(3, requires_grad=True)
t = s * 2
t.register_hook(lambda g: torch.ones(2))
t.sum().backward()

# %%
# a hook that changes the gradient in place
k = torch.tensor([1.0, 2.0], requires_grad=True)
kk = k * 5


def inplace_hook(g):
    g.mul_(0.5)


kk.register_hook(inplace_hook)
kk.sum().backward()
k.grad

# %%
# module forward hooks and forward pre-hooks
import torch.nn as nn

lin = nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -1.0]]))
    lin.bias.fill_(0.5)
calls = []
h1 = lin.register_forward_pre_hook(lambda mod, inp: calls.append(("pre", inp[0].tolist())))
h2 = lin.register_forward_hook(lambda mod, inp, out: out * 2)
out = lin(torch.tensor([[3.0, 1.0]]))
h1.remove()
h2.remove()
out2 = lin(torch.tensor([[3.0, 1.0]]))
print(calls)
(out, out2)
