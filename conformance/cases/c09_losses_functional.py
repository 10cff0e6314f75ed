# Functional forms (relu gelu softmax log_softmax cross_entropy nll_loss mse_loss l1_loss
# binary_cross_entropy(_with_logits) conv2d max_pool2d avg_pool2d dropout linear) and the
# loss modules (MSELoss CrossEntropyLoss NLLLoss BCELoss BCEWithLogitsLoss), values and grads.
import torch
import torch.nn as nn
import torch.nn.functional as F

# %%
z = torch.tensor([[-2.0, -0.5, 0.0, 0.5, 2.0], [1.0, -1.0, 3.0, -3.0, 0.25]], requires_grad=True)
outs = {
    "relu": F.relu(z), "gelu": F.gelu(z), "gelu_tanh": F.gelu(z, approximate="tanh"),
    "softmax": F.softmax(z, dim=1), "log_softmax": F.log_softmax(z, dim=1),
    "silu": F.silu(z), "elu": F.elu(z), "leaky": F.leaky_relu(z, 0.05), "softplus": F.softplus(z),
    "sigmoid": torch.sigmoid(z), "tanh": F.tanh(z), "hardtanh": F.hardtanh(z, -1.0, 1.0),
}
for k, v in outs.items():
    print(f"{k:12s}", type(v.grad_fn).__name__, [round(x, 4) + 0.0 for x in v[0].tolist()])
sum(v.sum() for v in outs.values()).backward()
z.grad

# %%
logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0], [0.0, 0.0, 3.0], [1.0, -2.0, 0.5]], requires_grad=True)
target = torch.tensor([0, 1, 2, 2])
ce = F.cross_entropy(logits, target)
ce_sum = F.cross_entropy(logits, target, reduction="sum")
ce_none = F.cross_entropy(logits, target, reduction="none")
ce_w = F.cross_entropy(logits, target, weight=torch.tensor([1.0, 2.0, 0.5]))
ce_ls = F.cross_entropy(logits, target, label_smoothing=0.1)
ce_ign = F.cross_entropy(logits, torch.tensor([0, -100, 2, 1]))
ce_prob = F.cross_entropy(logits, torch.tensor([[0.7, 0.2, 0.1]] * 4))
nll = F.nll_loss(F.log_softmax(logits, dim=1), target)
print(ce, ce_sum, ce_none, ce_w, ce_ls, ce_ign, ce_prob, nll, sep="\n")
print([type(t.grad_fn).__name__ for t in (ce, ce_sum, ce_none, ce_w, ce_ls, ce_prob, nll)])
(ce + ce_sum + ce_none.sum() + ce_w + ce_ls + ce_ign + ce_prob + nll).backward()
logits.grad

# %%
F.cross_entropy(logits, torch.tensor([0, 1, 3, 2]))

# %%
F.cross_entropy(logits, torch.tensor([0.0, 1.0, 2.0, 2.0]))

# %%
F.nll_loss(logits, target.view(2, 2))

# %%
pred = torch.tensor([0.5, 1.5, -2.0, 4.0], requires_grad=True)
tgt = torch.tensor([1.0, 1.0, -1.0, 2.0])
mse = F.mse_loss(pred, tgt)
mse_s = F.mse_loss(pred, tgt, reduction="sum")
l1 = F.l1_loss(pred, tgt)
l1_n = F.l1_loss(pred, tgt, reduction="none")
sl1 = F.smooth_l1_loss(pred, tgt)
hub = F.huber_loss(pred, tgt, delta=0.5)
print(mse, mse_s, l1, l1_n, sl1, hub, sep="\n")
print([type(t.grad_fn).__name__ for t in (mse, mse_s, l1, l1_n, sl1, hub)])
(mse + mse_s + l1 + l1_n.sum() + sl1 + hub).backward()
pred.grad

# %%
F.mse_loss(pred, torch.ones(3))

# %%
# a broadcasting MSE warns (warning not shown) and still computes
F.mse_loss(torch.ones(3, 1), torch.zeros(3))

# %%
p = torch.tensor([0.1, 0.4, 0.8, 0.99], requires_grad=True)
y = torch.tensor([0.0, 1.0, 1.0, 0.0])
bce = F.binary_cross_entropy(p, y)
bce_w = F.binary_cross_entropy(p, y, weight=torch.tensor([1.0, 2.0, 3.0, 4.0]), reduction="sum")
lg = torch.tensor([-2.0, 0.0, 1.5, 4.0], requires_grad=True)
bcel = F.binary_cross_entropy_with_logits(lg, y)
bcel_pw = F.binary_cross_entropy_with_logits(lg, y, pos_weight=torch.tensor(3.0), reduction="none")
print(bce, bce_w, bcel, bcel_pw, sep="\n")
print([type(t.grad_fn).__name__ for t in (bce, bce_w, bcel, bcel_pw)])
(bce + bce_w + bcel + bcel_pw.sum()).backward()
(p.grad, lg.grad)

# %%
F.binary_cross_entropy(torch.tensor([0.5, 1.5]), torch.tensor([1.0, 0.0]))

# %%
# the loss modules
crit = {
    "mse": nn.MSELoss(), "mse_sum": nn.MSELoss(reduction="sum"), "ce": nn.CrossEntropyLoss(),
    "ce_ls": nn.CrossEntropyLoss(label_smoothing=0.2), "nll": nn.NLLLoss(), "bce": nn.BCELoss(),
    "bcel": nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 1.0, 1.0, 0.5])), "l1": nn.L1Loss(),
}
for k, c in crit.items():
    print(k, c)
x4 = torch.tensor([[0.2, 0.4, 0.6, 0.8], [0.9, 0.1, 0.5, 0.3]], requires_grad=True)
t4 = torch.tensor([[0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 1.0]])
cls = torch.tensor([3, 0])
vals = [crit["mse"](x4, t4), crit["mse_sum"](x4, t4), crit["ce"](x4, cls), crit["ce_ls"](x4, cls),
        crit["nll"](x4.log_softmax(1), cls), crit["bce"](x4, t4), crit["bcel"](x4, t4), crit["l1"](x4, t4)]
print([round(v.item(), 5) for v in vals])
sum(vals).backward()
x4.grad

# %%
F.nll_loss(torch.tensor([[-0.5, -1.0]]), torch.tensor([1]), reduction="mean_all")

# %%
# functional conv / pool / linear / dropout
inp = torch.linspace(-1.0, 1.0, 2 * 3 * 4 * 4).reshape(2, 3, 4, 4).requires_grad_()
wt = torch.linspace(-0.3, 0.3, 2 * 3 * 2 * 2).reshape(2, 3, 2, 2).requires_grad_()
bs = torch.tensor([0.1, -0.1], requires_grad=True)
cv = F.conv2d(inp, wt, bs, stride=1, padding=1)
cvs = F.conv2d(inp, wt, stride=2)
mp = F.max_pool2d(cv, 2)
ap = F.avg_pool2d(cv, kernel_size=2, stride=1)
print(cv.shape, cvs.shape, mp.shape, ap.shape)
lw = torch.tensor([[0.5, -0.5, 1.0], [0.25, 0.75, -1.0]], requires_grad=True)
ln = F.linear(torch.tensor([[1.0, 2.0, 3.0]]), lw, torch.tensor([0.0, 1.0]))
dr_eval = F.dropout(ln, p=0.3, training=False)
print(ln, dr_eval, torch.equal(ln, dr_eval))
(mp.sum() + ap.sum() + cvs.sum() * 0.5 + ln.sum()).backward()
(wt.grad, bs.grad, lw.grad, inp.grad.sum())

# %%
F.conv2d(torch.ones(1, 2, 4, 4), torch.ones(3, 3, 2, 2))

# %%
F.dropout(torch.ones(3), p=1.5)

# %%
# one_hot, pad, normalize, pairwise helpers used by tutorials
oh = F.one_hot(torch.tensor([0, 2, 1]), num_classes=4)
pd = F.pad(torch.arange(6.0).reshape(2, 3), (1, 2), value=-1.0)
nm = F.normalize(torch.tensor([[3.0, 4.0], [0.0, 2.0]], requires_grad=True), dim=1)
cs = F.cosine_similarity(torch.tensor([[1.0, 0.0], [1.0, 1.0]]), torch.tensor([[0.0, 1.0], [2.0, 2.0]]))
print(oh, pd, nm, cs, sep="\n")
