# Lessons in the style of fast.ai's from-the-foundations course (part 2): matmul from
# loops to broadcasting and einsum, the forward and backward pass by hand and as Module
# classes checked against autograd, log_softmax / nll from scratch and the fit loop, a
# hand-made optimizer and callbacks, initialisation (GeneralRelu, LSUV with forward
# hooks, BatchNorm written with buffers and lerp_), accelerated SGD (momentum, RMSProp,
# Adam as SGD subclasses) and PyTorch's schedulers.
# Seeds are set with torch.random.manual_seed, which record.py does not shift: the values
# drawn after them are compared too, so they check PyTorch's random streams as well.
import math
from functools import partial
import torch
from torch import nn, tensor
import torch.nn.functional as F
from torch import optim
from torch.optim import lr_scheduler

# %%
rnd_state = None


def seed(a):
    global rnd_state
    a, x = divmod(a, 30268)
    a, y = divmod(a, 30306)
    a, z = divmod(a, 30322)
    rnd_state = int(x) + 1, int(y) + 1, int(z) + 1


def rand():
    global rnd_state
    x, y, z = rnd_state
    x = (171 * x) % 30269
    y = (172 * y) % 30307
    z = (170 * z) % 30323
    rnd_state = x, y, z
    return (x / 30269 + y / 30307 + z / 30323) % 1.0


seed(457428938475)
print(rnd_state, rand(), rand(), rand())
torch.random.manual_seed(1)
rands = torch.rand(8)
print(rands, torch.randn(3))
rands.sum(), torch.randint(0, 10, (5,))

# %%
torch.random.manual_seed(1)
weights = torch.randn(6, 4)
bias = torch.zeros(4)
m1 = torch.randn(3, 6)
m2 = weights


def matmul(a, b):
    (ar, ac), (br, bc) = a.shape, b.shape
    c = torch.zeros(ar, bc)
    for i in range(ar):
        for j in range(bc):
            for k in range(ac):
                c[i, j] += a[i, k] * b[k, j]
    return c


def matmul_ew(a, b):
    (ar, ac), (br, bc) = a.shape, b.shape
    c = torch.zeros(ar, bc)
    for i in range(ar):
        for j in range(bc):
            c[i, j] = (a[i, :] * b[:, j]).sum()
    return c


def matmul_bc(a, b):
    (ar, ac), (br, bc) = a.shape, b.shape
    c = torch.zeros(ar, bc)
    for i in range(ar):
        c[i] = (a[i, :, None] * b).sum(dim=0)
    return c


t1 = matmul(m1, m2)
t2 = matmul_ew(m1, m2)
t3 = matmul_bc(m1, m2)
t4 = torch.einsum('ik,kj->ij', m1, m2)
t5 = m1 @ m2
print(torch.allclose(t1, t5, rtol=1e-3, atol=1e-5), torch.allclose(t2, t5), torch.allclose(t3, t4))
mr = torch.einsum('ik,kj->ikj', m1, m2)
print(mr.shape, torch.allclose(mr.sum(1), t5))
t1, t3, t5, (t1 - t5).abs().max()

# %%
a = tensor([10., 6, -4])
b = tensor([2., 8, 7])
m = tensor([[1., 2, 3], [4, 5, 6], [7, 8, 9]])
c = tensor([10., 20, 30])
print(a + b, (a < b).float().mean(), (m * m).sum().sqrt(), m[2, :], m[:, 2])
t = c.expand_as(m)
print(t, t.stride(), t.shape, c[None, :].shape, c[:, None].shape, c[None].shape, c[..., None].shape)
print(c[:, None] * m, c[None, :] * m, c[None, :] * c[:, None], c[None] > c[:, None])
m.untyped_storage().nbytes(), t.untyped_storage().nbytes(), m.stride(), m.t().stride(), m.T.is_contiguous()

# %%
def lin(x, w, b):
    return x @ w + b


def relu(x):
    return x.clamp_min(0.)


def mse(output, targ):
    return (output.squeeze(-1) - targ).pow(2).mean()


def lin_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = (inp.unsqueeze(-1) * out.g.unsqueeze(1)).sum(0)
    b.g = out.g.sum(0)


def forward_and_backward(inp, targ):
    l1 = lin(inp, w1, b1)
    l2 = relu(l1)
    out = lin(l2, w2, b2)
    diff = out[:, 0] - targ
    loss = diff.pow(2).mean()
    out.g = 2. * diff[:, None] / inp.shape[0]
    lin_grad(l2, out, w2, b2)
    l1.g = (l1 > 0).float() * l2.g
    lin_grad(inp, l1, w1, b1)
    return loss


torch.random.manual_seed(2)
n, m, nh = 8, 5, 4
x_train = torch.randn(n, m)
y_train = torch.randn(n)
w1 = torch.randn(m, nh)
b1 = torch.zeros(nh)
w2 = torch.randn(nh, 1)
b2 = torch.zeros(1)
loss = forward_and_backward(x_train, y_train)
w1g, b1g, w2g, b2g, ig = w1.g.clone(), b1.g.clone(), w2.g.clone(), b2.g.clone(), x_train.g.clone()
ptgrads = w12, x_train2, b12, w22, b22 = [o.clone().requires_grad_(True) for o in [w1, x_train, b1, w2, b2]]


def model(inp):
    l1 = lin(inp, w12, b12)
    l2 = relu(l1)
    return lin(l2, w22, b22)


loss2 = mse(model(x_train2), y_train)
loss2.backward()
print(loss, loss2, loss2.grad_fn, [torch.allclose(a, b.grad, atol=1e-5) for a, b in zip([w1g, ig, b1g, w2g, b2g], ptgrads)])
w1g, b2g, w12.grad, x_train2.grad

# %%
class Module():
    def __call__(self, *args):
        self.args = args
        self.out = self.forward(*args)
        return self.out

    def forward(self):
        raise Exception('not implemented')

    def backward(self):
        self.bwd(self.out, *self.args)

    def bwd(self):
        raise Exception('not implemented')


class Relu(Module):
    def forward(self, inp):
        return inp.clamp_min(0.)

    def bwd(self, out, inp):
        inp.g = (inp > 0).float() * out.g


class Lin(Module):
    def __init__(self, w, b):
        self.w, self.b = w, b

    def forward(self, inp):
        return inp @ self.w + self.b

    def bwd(self, out, inp):
        inp.g = self.out.g @ self.w.t()
        self.w.g = inp.t() @ self.out.g
        self.b.g = self.out.g.sum(0)


class Mse(Module):
    def forward(self, inp, targ):
        return (inp.squeeze() - targ).pow(2).mean()

    def bwd(self, out, inp, targ):
        inp.g = 2 * (inp.squeeze() - targ).unsqueeze(-1) / targ.shape[0]


class Model():
    def __init__(self, w1, b1, w2, b2):
        self.layers = [Lin(w1, b1), Relu(), Lin(w2, b2)]
        self.loss = Mse()

    def __call__(self, x, targ):
        for l in self.layers:
            x = l(x)
        return self.loss(x, targ)

    def backward(self):
        self.loss.backward()
        for l in reversed(self.layers):
            l.backward()


mdl = Model(w1, b1, w2, b2)
l = mdl(x_train, y_train)
mdl.backward()
print(l, torch.allclose(w1.g, w1g, atol=1e-5), torch.allclose(x_train.g, ig, atol=1e-5))
try:
    Module().backward()
except Exception as e:
    print(type(e).__name__, e)
w1.g, b1.g, x_train.g[:2]

# %%
class LinFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp, w, b):
        ctx.save_for_backward(inp, w)
        return inp @ w + b

    @staticmethod
    def backward(ctx, out_g):
        inp, w = ctx.saved_tensors
        return out_g @ w.t(), inp.t() @ out_g, out_g.sum(0)


class ReluFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        ctx.save_for_backward(inp)
        return inp.clamp_min(0.)

    @staticmethod
    def backward(ctx, out_g):
        inp, = ctx.saved_tensors
        return (inp > 0).float() * out_g


xs, ws1, bs1, ws2, bs2 = [o.clone().requires_grad_(True) for o in [x_train, w1, b1, w2, b2]]
out = LinFn.apply(ReluFn.apply(LinFn.apply(xs, ws1, bs1)), ws2, bs2)
loss3 = F.mse_loss(out.squeeze(-1), y_train)
loss3.backward()
print(out.grad_fn, out.grad_fn.next_functions[0][0], loss3.grad_fn, torch.allclose(ws1.grad, w1g, atol=1e-5))
loss3, ws1.grad, bs2.grad

# %%
def log_softmax(x):
    return x - x.exp().sum(-1, keepdim=True).log()


def logsumexp(x):
    m = x.max(-1)[0]
    return m + (x - m[:, None]).exp().sum(-1).log()


def log_softmax2(x):
    return x - x.logsumexp(-1, keepdim=True)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


torch.random.manual_seed(3)
pred = torch.randn(5, 10, requires_grad=True)
y = tensor([3, 0, 9, 1, 4])
sm_pred = log_softmax(pred)
loss = nll(sm_pred, y)
loss.backward()
print(sm_pred.grad_fn, loss.grad_fn, torch.allclose(logsumexp(pred), pred.logsumexp(-1)))
print(torch.allclose(F.nll_loss(F.log_softmax(pred, -1), y), loss), torch.allclose(F.cross_entropy(pred, y), loss))
accuracy = (torch.argmax(pred, dim=1) == y).float().mean()
big = tensor([[1000., 1001., 1002.]])
loss, pred.grad, sm_pred[0], accuracy, log_softmax(big), log_softmax2(big), logsumexp(big)

# %%
class MLP(nn.Module):
    def __init__(self, n_in, nh, n_out):
        super().__init__()
        self.layers = [nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out)]

    def forward(self, x):
        for l in self.layers:
            x = l(x)
        return x


class MyModule:
    def __init__(self, n_in, nh, n_out):
        self._modules = {}
        self.l1 = nn.Linear(n_in, nh)
        self.l2 = nn.Linear(nh, n_out)

    def __setattr__(self, k, v):
        if not k.startswith("_"):
            self._modules[k] = v
        super().__setattr__(k, v)

    def __repr__(self):
        return f'{self._modules}'

    def parameters(self):
        for l in self._modules.values():
            yield from l.parameters()

    def __call__(self, x):
        return self.l2(F.relu(self.l1(x)))


torch.random.manual_seed(4)
mlp = MLP(6, 5, 3)
print(list(mlp.parameters()), len(list(nn.ModuleList(mlp.layers).parameters())))
mdl = MyModule(6, 5, 3)
print(mdl, [o.shape for o in mdl.parameters()])
layers = [nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3)]


class SequentialModel(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        for l in self.layers:
            x = l(x)
        return x


smodel = SequentialModel(layers)
print(smodel, [n for n, _ in smodel.named_parameters()])
xb, yb = torch.randn(4, 6), tensor([0, 2, 1, 2])
lr = 0.5
for epoch in range(3):
    preds = smodel(xb)
    loss = F.cross_entropy(preds, yb)
    loss.backward()
    with torch.no_grad():
        for p in smodel.parameters():
            p -= p.grad * lr
        smodel.zero_grad()
print(loss.item(), smodel.layers[0].weight.grad, (smodel(xb).argmax(dim=1) == yb).float().mean())
loss, smodel.layers[2].weight, mdl(xb)

# %%
class Optimizer():
    def __init__(self, params, lr=0.5):
        self.params, self.lr = list(params), lr

    def step(self):
        with torch.no_grad():
            for p in self.params:
                p -= p.grad * self.lr

    def zero_grad(self):
        for p in self.params:
            p.grad.data.zero_()


class Dataset():
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def collate(b):
    xs, ys = zip(*b)
    return torch.stack(xs), torch.stack(ys)


class DataLoader():
    def __init__(self, ds, bs, shuffle=False):
        self.ds, self.bs, self.shuffle = ds, bs, shuffle

    def __iter__(self):
        idxs = torch.randperm(len(self.ds)).tolist() if self.shuffle else list(range(len(self.ds)))
        for i in range(0, len(self.ds), self.bs):
            yield collate([self.ds[j] for j in idxs[i:i + self.bs]])


torch.random.manual_seed(5)
x_train, y_train = torch.randn(10, 6), torch.randint(0, 3, (10,))
train_ds = Dataset(x_train, y_train)
train_dl = DataLoader(train_ds, bs=4, shuffle=True)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
opt = Optimizer(model.parameters())
for epoch in range(2):
    for xb, yb in train_dl:
        preds = model(xb)
        loss = F.cross_entropy(preds, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
print(len(train_ds), train_ds[0:2][1], xb.shape, yb, model[0].weight.grad.abs().sum())
loss, model[2].weight, torch.randperm(6)

# %%
class CancelFitException(Exception): pass


class CancelBatchException(Exception): pass


class Callback():
    order = 0


def run_cbs(cbs, method_nm, learn=None):
    for cb in sorted(cbs, key=lambda c: c.order):
        method = getattr(cb, method_nm, None)
        if method is not None:
            method(learn)


class MetricsCB(Callback):
    def __init__(self):
        self.losses, self.accs, self.ns = [], [], []

    def after_batch(self, learn):
        n = len(learn.batch[0])
        self.ns.append(n)
        self.losses.append(learn.loss.item() * n)
        self.accs.append((learn.preds.argmax(dim=1) == learn.batch[1]).float().sum().item())

    def after_epoch(self, learn):
        print(learn.epoch, learn.model.training, round(sum(self.losses) / sum(self.ns), 4), sum(self.accs) / sum(self.ns))
        self.losses, self.accs, self.ns = [], [], []


class SingleBatchCB(Callback):
    order = 1

    def after_batch(self, learn):
        if learn.epoch == 2:
            raise CancelFitException()


class Learner():
    def __init__(self, model, dls, loss_func, lr, cbs, opt_func=optim.SGD):
        self.model, self.dls, self.loss_func, self.lr, self.cbs, self.opt_func = model, dls, loss_func, lr, cbs, opt_func

    def one_batch(self):
        self.preds = self.model(self.batch[0])
        self.loss = self.loss_func(self.preds, self.batch[1])
        if self.model.training:
            self.loss.backward()
            self.opt.step()
            self.opt.zero_grad()
        run_cbs(self.cbs, 'after_batch', self)

    def one_epoch(self, train):
        self.model.train(train)
        for self.batch in self.dls:
            self.one_batch()
        run_cbs(self.cbs, 'after_epoch', self)

    def fit(self, n_epochs):
        self.opt = self.opt_func(self.model.parameters(), self.lr)
        try:
            for self.epoch in range(n_epochs):
                self.one_epoch(True)
                with torch.no_grad():
                    self.one_epoch(False)
        except CancelFitException:
            print('cancelled at epoch', self.epoch)


torch.random.manual_seed(6)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
learn = Learner(model, [(x_train[:5], y_train[:5]), (x_train[5:], y_train[5:])], F.cross_entropy, 0.2, [MetricsCB(), SingleBatchCB()])
learn.fit(4)
print(learn.preds.requires_grad, learn.loss.grad_fn, learn.opt.param_groups[0]['lr'])
learn.loss, model[0].bias, model[2].weight

# %%
class GeneralRelu(nn.Module):
    def __init__(self, leak=None, sub=None, maxv=None):
        super().__init__()
        self.leak, self.sub, self.maxv = leak, sub, maxv

    def forward(self, x):
        x = F.leaky_relu(x, self.leak) if self.leak is not None else F.relu(x)
        if self.sub is not None:
            x -= self.sub
        if self.maxv is not None:
            x.clamp_max_(self.maxv)
        return x


def init_weights(m, leaky=0.):
    if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Linear)):
        nn.init.kaiming_normal_(m.weight, a=leaky)


torch.random.manual_seed(7)
act_gr = partial(GeneralRelu, leak=0.1, sub=0.4)
x = torch.linspace(-3, 3, 9, requires_grad=True)
y = GeneralRelu(leak=0.1, sub=0.4, maxv=1.5)(x)
y.sum().backward()
print(y.grad_fn, y.grad_fn.next_functions[0][0], x.grad)
model = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), act_gr(), nn.Conv2d(4, 8, 3, stride=2, padding=1), act_gr(),
                      nn.Flatten(), nn.Linear(8, 3))
model.apply(partial(init_weights, leaky=0.1))
print(model[0].weight.std(), model[2].weight.std())
xb = torch.randn(6, 1, 4, 4)
model(xb), y, model[5].weight

# %%
class Hook():
    def __init__(self, m, f):
        self.hook = m.register_forward_hook(partial(f, self))

    def remove(self):
        self.hook.remove()

    def __del__(self):
        self.remove()


def _lsuv_stats(hook, mod, inp, outp):
    acts = outp.detach()
    hook.mean = acts.mean()
    hook.std = acts.std()


def lsuv_init(model, m, m_in, xb):
    h = Hook(m, _lsuv_stats)
    with torch.no_grad():
        while model(xb) is not None and (abs(h.std - 1) > 1e-3 or abs(h.mean) > 1e-3):
            m_in.bias -= h.mean
            m_in.weight.data /= h.std
    h.remove()
    return h


torch.random.manual_seed(8)
model = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), GeneralRelu(leak=0.1, sub=0.4), nn.Conv2d(4, 8, 3, stride=2, padding=1),
                      GeneralRelu(leak=0.1, sub=0.4), nn.Flatten(), nn.Linear(8, 3))
relus = [o for o in model if isinstance(o, GeneralRelu)]
convs = [o for o in model if isinstance(o, nn.Conv2d)]
hooks = [lsuv_init(model, r, c, xb) for r, c in zip(relus, convs)]
print([(round(h.mean.item(), 3), round(h.std.item(), 3)) for h in hooks], len(model[1]._forward_hooks))
acts = []
hook = model[3].register_forward_hook(lambda m, i, o: acts.append(o.abs().histc(10, 0, 2)))
model(xb)
hook.remove()
model(xb)
print(len(acts), acts[0], acts[0].sum())
convs[0].weight, convs[1].bias

# %%
class BatchNorm(nn.Module):
    def __init__(self, nf, mom=0.1, eps=1e-5):
        super().__init__()
        self.mom, self.eps = mom, eps
        self.mults = nn.Parameter(torch.ones(nf, 1, 1))
        self.adds = nn.Parameter(torch.zeros(nf, 1, 1))
        self.register_buffer('vars', torch.ones(1, nf, 1, 1))
        self.register_buffer('means', torch.zeros(1, nf, 1, 1))

    def update_stats(self, x):
        m = x.mean((0, 2, 3), keepdim=True)
        v = x.var((0, 2, 3), keepdim=True)
        self.means.lerp_(m, self.mom)
        self.vars.lerp_(v, self.mom)
        return m, v

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                m, v = self.update_stats(x)
        else:
            m, v = self.means, self.vars
        x = (x - m) / (v + self.eps).sqrt()
        return x * self.mults + self.adds


class LayerNorm(nn.Module):
    def __init__(self, dummy, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.mult = nn.Parameter(tensor(1.))
        self.add = nn.Parameter(tensor(0.))

    def forward(self, x):
        m = x.mean((1, 2, 3), keepdim=True)
        v = x.var((1, 2, 3), keepdim=True)
        x = (x - m) / ((v + self.eps).sqrt())
        return x * self.mult + self.add


torch.random.manual_seed(9)
x = torch.randn(4, 3, 2, 2) * 3 + 1
bn = BatchNorm(3)
ln = LayerNorm(3)
out = bn(x) + ln(x)
out.pow(2).sum().backward()
ref = nn.BatchNorm2d(3)
ref(x)
print(bn.means.flatten(), ref.running_mean, torch.allclose(bn.vars.flatten(), ref.running_var), list(bn.state_dict()))
bn.eval()
print(out.grad_fn, bn(x).grad_fn, torch.lerp(tensor([0., 10.]), tensor([10., 20.]), 0.25))
out[0, 0], bn.mults.grad.flatten(), ln.mult.grad, ln.add.grad, bn.vars

# %%
class SGD:
    def __init__(self, params, lr, wd=0.):
        params = list(params)
        self.params, self.lr, self.wd = params, lr, wd
        self.i = 0

    def step(self):
        with torch.no_grad():
            for p in self.params:
                self.reg_step(p)
                self.opt_step(p)
        self.i += 1

    def opt_step(self, p):
        p -= p.grad * self.lr

    def reg_step(self, p):
        if self.wd != 0:
            p *= 1 - self.lr * self.wd

    def zero_grad(self):
        for p in self.params:
            p.grad.data.zero_()


class Momentum(SGD):
    def __init__(self, params, lr, wd=0., mom=0.9):
        super().__init__(params, lr=lr, wd=wd)
        self.mom = mom

    def opt_step(self, p):
        if not hasattr(p, 'grad_avg'):
            p.grad_avg = torch.zeros_like(p.grad)
        p.grad_avg = p.grad_avg * self.mom + p.grad * (1 - self.mom)
        p -= self.lr * p.grad_avg


class RMSProp(SGD):
    def __init__(self, params, lr, wd=0., sqr_mom=0.99, eps=1e-5):
        super().__init__(params, lr=lr, wd=wd)
        self.sqr_mom, self.eps = sqr_mom, eps

    def opt_step(self, p):
        if not hasattr(p, 'sqr_avg'):
            p.sqr_avg = p.grad ** 2
        p.sqr_avg = p.sqr_avg * self.sqr_mom + p.grad ** 2 * (1 - self.sqr_mom)
        p -= self.lr * p.grad / (p.sqr_avg.sqrt() + self.eps)


class Adam(SGD):
    def __init__(self, params, lr, wd=0., beta1=0.9, beta2=0.99, eps=1e-5):
        super().__init__(params, lr=lr, wd=wd)
        self.beta1, self.beta2, self.eps = beta1, beta2, eps

    def opt_step(self, p):
        if not hasattr(p, 'avg'):
            p.avg = torch.zeros_like(p.grad.data)
        if not hasattr(p, 'sqr_avg'):
            p.sqr_avg = torch.zeros_like(p.grad.data)
        p.avg = self.beta1 * p.avg + (1 - self.beta1) * p.grad
        unbias_avg = p.avg / (1 - (self.beta1 ** (self.i + 1)))
        p.sqr_avg = self.beta2 * p.sqr_avg + (1 - self.beta2) * (p.grad ** 2)
        unbias_sqr_avg = p.sqr_avg / (1 - (self.beta2 ** (self.i + 1)))
        p -= self.lr * unbias_avg / (unbias_sqr_avg + self.eps).sqrt()


def fit(opt_func, steps=4):
    torch.random.manual_seed(10)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = opt_func(model.parameters())
    for _ in range(steps):
        loss = F.cross_entropy(model(x_train), y_train)
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss, model


results = {}
for name, f in [('sgd', partial(SGD, lr=0.4, wd=1e-2)), ('mom', partial(Momentum, lr=0.4)),
                ('rms', partial(RMSProp, lr=3e-2)), ('adam', partial(Adam, lr=3e-2, wd=1e-3))]:
    loss, model = fit(f)
    results[name] = model[0].weight.detach().clone()
    print(name, round(loss.item(), 5), hasattr(model[0].weight, 'grad_avg'), hasattr(model[2].bias, 'sqr_avg'))
p = model[2].bias
results['sgd'], results['adam'], p.avg, p.sqr_avg

# %%
torch.random.manual_seed(11)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
opt = optim.SGD(model.parameters(), lr=0.1)
print(opt, opt.param_groups[0].keys(), len(opt.state))
sched = lr_scheduler.CosineAnnealingLR(opt, 10)
lrs = []
for i in range(12):
    lrs.append(sched.get_last_lr()[0])
    opt.step()
    sched.step()
print([round(l, 6) for l in lrs], sched.base_lrs, sched.last_epoch)
opt2 = optim.Adam(model.parameters(), lr=1e-3)
one = lr_scheduler.OneCycleLR(opt2, max_lr=6e-2, total_steps=8)
lrs2, moms = [], []
for i in range(8):
    loss = F.cross_entropy(model(x_train), y_train)
    loss.backward()
    opt2.step()
    opt2.zero_grad()
    lrs2.append(opt2.param_groups[0]['lr'])
    moms.append(opt2.param_groups[0]['betas'][0])
    one.step()
print([round(l, 6) for l in lrs2], [round(m, 5) for m in moms])
st = opt2.state[model[0].weight]
print(sorted(st.keys()), st['step'], sorted(opt2.state_dict().keys()), opt2.state_dict()['param_groups'][0]['params'])
loss, st['exp_avg'][0], model[2].bias

# %%
opt = optim.SGD(model.parameters(), lr=0.1)
lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=3).step()
sched = lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=2)
for i in range(4):
    opt.step()
    sched.step()

# %%
optim.SGD(model.parameters(), lr=-0.1)

# %%
optim.Adam(model.parameters(), lr=1e-3, betas=(1.0, 0.999))
