# Lessons in the style of Karpathy's makemore series: a bigram count model and its
# one-hot neural twin, the MLP with an embedding table, batch norm by hand with running
# statistics, "backprop ninja" gradients checked against autograd, and a WaveNet-like
# stack of hand-written layers, on a handful of made-up names.
# Seeds are set with torch.random.manual_seed, which record.py does not shift: the values
# drawn after them are compared too, so they check PyTorch's random streams as well.
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper", "eva", "ella"]
chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
V = len(stoi)

# %%
N = torch.zeros((V, V), dtype=torch.int32)
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        N[stoi[ch1], stoi[ch2]] += 1
print(N[0], N.dtype, N.sum())
P = (N + 1).float()
P /= P.sum(1, keepdims=True)
g = torch.Generator().manual_seed(2147483647)
p = torch.rand(3, generator=g)
p = p / p.sum()
print(p, torch.multinomial(p, num_samples=20, replacement=True, generator=g))
names = []
for _ in range(3):
    out, ix = [], 0
    while True:
        ix = torch.multinomial(P[ix], num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0 or len(out) > 12:
            break
    names.append(''.join(out))
print(names)
log_likelihood, n = 0.0, 0
for w in words[:3]:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        log_likelihood += torch.log(P[stoi[ch1], stoi[ch2]])
        n += 1
nll = -log_likelihood
print(f'{log_likelihood=}', f'{nll=}', f'{nll/n}')
P

# %%
xs, ys = [], []
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs = torch.tensor(xs)
ys = torch.tensor(ys)
num = xs.nelement()
print('number of examples: ', num)
g = torch.Generator().manual_seed(2147483647)
W = torch.randn((V, V), generator=g, requires_grad=True)
for k in range(5):
    xenc = F.one_hot(xs, num_classes=V).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W ** 2).mean()
    print(f'{loss.item():.4f}')
    W.grad = None
    loss.backward()
    W.data += -10 * W.grad
print(xenc.dtype, xenc.shape, logits.grad_fn, probs.grad_fn, loss.grad_fn)
W, loss

# %%
block_size = 3


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + '.':
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(X), torch.tensor(Y)


Xtr, Ytr = build_dataset(words[:8])
Xdev, Ydev = build_dataset(words[8:])
print(Xtr.shape, Xtr.dtype, Ytr.shape, Ytr.dtype)
g = torch.Generator().manual_seed(2147483647)
C = torch.randn((V, 2), generator=g)
W1 = torch.randn((6, 20), generator=g)
b1 = torch.randn(20, generator=g)
W2 = torch.randn((20, V), generator=g)
b2 = torch.randn(V, generator=g)
parameters = [C, W1, b1, W2, b2]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True
emb = C[Xtr]
print(emb.shape, torch.cat([emb[:, 0, :], emb[:, 1, :], emb[:, 2, :]], 1).shape,
      torch.cat(torch.unbind(emb, 1), 1).shape, emb.view(-1, 6).shape)
lre = torch.linspace(-3, 0, 5)
lrs = 10 ** lre
print(lre, lrs)
lossi = []
for i in range(20):
    ix = torch.randint(0, Xtr.shape[0], (8,), generator=g)
    emb = C[Xtr[ix]]
    h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Ytr[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 10 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    lossi.append(loss.log10().item())
print(f'{lossi[0]:.4f} {lossi[-1]:.4f}')
emb = C[Xdev]
h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
dev_loss = F.cross_entropy(h @ W2 + b2, Ydev)
print(emb.grad_fn, h.grad_fn, dev_loss.grad_fn)
W1_grad = W1.grad

# %%
n_embd, n_hidden = 4, 16
g = torch.Generator().manual_seed(2147483647)
C = torch.randn((V, n_embd), generator=g)
W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / ((n_embd * block_size) ** 0.5)
W2 = torch.randn((n_hidden, V), generator=g) * 0.01
b2 = torch.randn(V, generator=g) * 0
bngain = torch.ones((1, n_hidden))
bnbias = torch.zeros((1, n_hidden))
bnmean_running = torch.zeros((1, n_hidden))
bnstd_running = torch.ones((1, n_hidden))
parameters = [C, W1, W2, b2, bngain, bnbias]
for p in parameters:
    p.requires_grad = True
for i in range(3):
    ix = torch.randint(0, Xtr.shape[0], (10,), generator=g)
    Xb, Yb = Xtr[ix], Ytr[ix]
    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1
    bnmeani = hpreact.mean(0, keepdim=True)
    bnstdi = hpreact.std(0, keepdim=True)
    hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
    with torch.no_grad():
        bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
        bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Yb)
    for p in parameters:
        p.grad = None
    loss.backward()
    for p in parameters:
        p.data += -0.1 * p.grad
print((h.abs() > 0.99).float().mean(), h.mean(), h.std())
with torch.no_grad():
    emb = C[Xtr]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1
    bnmean = hpreact.mean(0, keepdim=True)
    bnstd = hpreact.std(0, keepdim=True)
print(torch.nn.init.calculate_gain('tanh'), bnmean.requires_grad)
bngain_grad, bnbias_grad = bngain.grad, bnbias.grad

# %%
n = 6
torch.random.manual_seed(5)
g = torch.Generator().manual_seed(2147483647)
C = torch.randn((V, n_embd), generator=g)
W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / ((n_embd * block_size) ** 0.5)
b1 = torch.randn(n_hidden, generator=g) * 0.1
W2 = torch.randn((n_hidden, V), generator=g) * 0.1
b2 = torch.randn(V, generator=g) * 0.1
bngain = torch.randn((1, n_hidden)) * 0.1 + 1.0
bnbias = torch.randn((1, n_hidden)) * 0.1
parameters = [C, W1, b1, W2, b2, bngain, bnbias]
for p in parameters:
    p.requires_grad = True
Xb, Yb = Xtr[:n], Ytr[:n]
emb = C[Xb]
embcat = emb.view(emb.shape[0], -1)
hprebn = embcat @ W1 + b1
bnmeani = 1 / n * hprebn.sum(0, keepdim=True)
bndiff = hprebn - bnmeani
bndiff2 = bndiff ** 2
bnvar = 1 / (n - 1) * (bndiff2).sum(0, keepdim=True)
bnvar_inv = (bnvar + 1e-5) ** -0.5
bnraw = bndiff * bnvar_inv
hpreact = bngain * bnraw + bnbias
h = torch.tanh(hpreact)
logits = h @ W2 + b2
logit_maxes = logits.max(1, keepdim=True).values
norm_logits = logits - logit_maxes
counts = norm_logits.exp()
counts_sum = counts.sum(1, keepdims=True)
counts_sum_inv = counts_sum ** -1
probs = counts * counts_sum_inv
logprobs = probs.log()
loss = -logprobs[range(n), Yb].mean()
for p in parameters:
    p.grad = None
for t in [logprobs, probs, counts, counts_sum, counts_sum_inv, norm_logits, logit_maxes, logits, h, hpreact, bnraw,
          bnvar_inv, bnvar, bndiff2, bndiff, hprebn, bnmeani, embcat, emb]:
    t.retain_grad()
loss.backward()


def cmp(s, dt, t):
    app = torch.allclose(dt, t.grad)
    maxdiff = (dt - t.grad).abs().max().item()
    print(f'{s:15s} | approximate: {str(app):5s} | maxdiff small: {maxdiff < 1e-6}')


dlogprobs = torch.zeros_like(logprobs)
dlogprobs[range(n), Yb] = -1.0 / n
dprobs = (1.0 / probs) * dlogprobs
dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
dcounts = counts_sum_inv * dprobs
dcounts_sum = (-counts_sum ** -2) * dcounts_sum_inv
dcounts += torch.ones_like(counts) * dcounts_sum
dnorm_logits = counts * dcounts
dlogits = dnorm_logits.clone()
dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes
dh = dlogits @ W2.T
dW2 = h.T @ dlogits
db2 = dlogits.sum(0)
dhpreact = (1.0 - h ** 2) * dh
dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
dbnraw = bngain * dhpreact
dbnbias = dhpreact.sum(0, keepdim=True)
for name, d, t in [('logprobs', dlogprobs, logprobs), ('probs', dprobs, probs), ('counts_sum_inv', dcounts_sum_inv, counts_sum_inv),
                   ('counts_sum', dcounts_sum, counts_sum), ('logits', dlogits, logits),
                   ('h', dh, h), ('W2', dW2, W2), ('b2', db2, b2), ('hpreact', dhpreact, hpreact), ('bngain', dbngain, bngain),
                   ('bnbias', dbnbias, bnbias), ('bnraw', dbnraw, bnraw)]:
    cmp(name, d, t)
dlogits_fast = F.softmax(logits, 1)
dlogits_fast[range(n), Yb] -= 1
dlogits_fast /= n
loss_fast = F.cross_entropy(logits, Yb)
print(loss_fast.item() - loss.item() < 1e-6, torch.allclose(dlogits_fast, logits.grad, atol=1e-6))
print(logit_maxes.grad_fn, counts_sum_inv.grad_fn, bnvar_inv.grad_fn, logprobs.grad_fn, loss.grad_fn)
logits_grad, emb_grad, bnvar_inv_grad = logits.grad, emb.grad, bnvar_inv.grad

# %%
class Linear:
    def __init__(self, fan_in, fan_out, bias=True):
        self.weight = torch.randn((fan_in, fan_out)) / fan_in ** 0.5
        self.bias = torch.zeros(fan_out) if bias else None

    def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
            self.out += self.bias
        return self.out

    def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])


class Tanh:
    def __call__(self, x):
        self.out = torch.tanh(x)
        return self.out

    def parameters(self):
        return []


class Embedding:
    def __init__(self, num_embeddings, embedding_dim):
        self.weight = torch.randn((num_embeddings, embedding_dim))

    def __call__(self, IX):
        self.out = self.weight[IX]
        return self.out

    def parameters(self):
        return [self.weight]


class FlattenConsecutive:
    def __init__(self, n):
        self.n = n

    def __call__(self, x):
        B, T, C = x.shape
        x = x.view(B, T // self.n, C * self.n)
        if x.shape[1] == 1:
            x = x.squeeze(1)
        self.out = x
        return self.out

    def parameters(self):
        return []


class Sequential:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        self.out = x
        return self.out

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


torch.random.manual_seed(42)
Xw = torch.randint(0, V, (4, 8))
Yw = torch.randint(0, V, (4,))
model = Sequential([Embedding(V, 3), FlattenConsecutive(2), Linear(6, 8, bias=False), Tanh(),
                    FlattenConsecutive(2), Linear(16, 8, bias=False), Tanh(),
                    FlattenConsecutive(2), Linear(16, V)])
with torch.no_grad():
    model.layers[-1].weight *= 0.1
parameters = model.parameters()
for p in parameters:
    p.requires_grad = True
logits = model(Xw)
loss = F.cross_entropy(logits, Yw)
loss.backward()
for layer in model.layers:
    print(layer.__class__.__name__, ':', tuple(layer.out.shape))
e = torch.randn(4, 4, 6)
print(e.mean((0, 1), keepdim=True).shape, torch.squeeze(torch.zeros(4, 1, 5), dim=1).shape)
emb_table_grad, head_bias_grad = model.layers[0].weight.grad, model.layers[-1].bias.grad
