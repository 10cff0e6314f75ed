# Lessons in the style of Stanford's CS231n assignments in PyTorch: the barebones
# two-layer and three-layer conv nets with hand-made weights and a no_grad SGD loop, the
# nn.Module and nn.Sequential versions, batch normalisation and dropout written by hand
# and checked against autograd and numeric gradients, an RNN's step and a temporal
# softmax loss, and network visualisation (saliency maps, fooling images, class
# visualisation by gradient ascent on the image).
# Seeds are set with torch.random.manual_seed, which record.py does not shift: the values
# drawn after them are compared too, so they check PyTorch's random streams as well.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

dtype = torch.float32
device = torch.device("cpu")

# %%
def flatten(x):
    N = x.shape[0]
    return x.view(N, -1)


def random_weight(shape):
    if len(shape) == 2:
        fan_in = shape[0]
    else:
        fan_in = np.prod(shape[1:])
    w = torch.randn(shape, device=device, dtype=dtype) * np.sqrt(2. / fan_in)
    w.requires_grad = True
    return w


def zero_weight(shape):
    return torch.zeros(shape, device=device, dtype=dtype, requires_grad=True)


torch.random.manual_seed(0)
x = torch.arange(12).view(2, 1, 3, 2)
print('Before flattening: ', x)
print('After flattening: ', flatten(x))
w = random_weight((3, 5))
print(w.requires_grad, w.is_leaf, w.grad_fn, type(np.prod((3, 4))).__name__)
w, random_weight((2, 3, 2, 2))[0, 0], zero_weight(4)

# %%
def two_layer_fc(x, params):
    x = flatten(x)
    w1, w2 = params
    x = F.relu(x.mm(w1))
    x = x.mm(w2)
    return x


def three_layer_convnet(x, params):
    conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b = params
    x = F.relu(F.conv2d(x, conv_w1, conv_b1, padding=2))
    x = F.relu(F.conv2d(x, conv_w2, conv_b2, padding=1))
    scores = flatten(x).mm(fc_w) + fc_b
    return scores


torch.random.manual_seed(1)
x = torch.zeros((4, 3, 4, 4), dtype=dtype)
w1 = torch.zeros((3 * 4 * 4, 6), dtype=dtype)
w2 = torch.zeros((6, 5), dtype=dtype)
print(two_layer_fc(x, [w1, w2]).size())
conv_params = [random_weight((4, 3, 5, 5)), zero_weight((4,)), random_weight((3, 4, 3, 3)), zero_weight((3,)),
               random_weight((3 * 4 * 4, 5)), zero_weight((5,))]
x = torch.randn(2, 3, 4, 4)
scores = three_layer_convnet(x, conv_params)
print(scores.size(), scores.grad_fn, scores.grad_fn.next_functions)
scores

# %%
def check_accuracy_part2(loader, model_fn, params):
    num_correct, num_samples = 0, 0
    with torch.no_grad():
        for x, y in loader:
            scores = model_fn(x, params)
            _, preds = scores.max(1)
            num_correct += (preds == y).sum()
            num_samples += preds.size(0)
        acc = float(num_correct) / num_samples
        print('Got %d / %d correct (%.2f%%)' % (num_correct, num_samples, 100 * acc))
    return acc


def train_part2(model_fn, params, learning_rate, loader):
    losses = []
    for t, (x, y) in enumerate(loader):
        scores = model_fn(x, params)
        loss = F.cross_entropy(scores, y)
        loss.backward()
        with torch.no_grad():
            for w in params:
                w -= learning_rate * w.grad
                w.grad.zero_()
        losses.append(loss.item())
        if t % 2 == 0:
            print('Iteration %d, loss = %.4f' % (t, loss.item()))
    return losses


torch.random.manual_seed(2)
loader = [(torch.randn(4, 3, 4, 4), torch.randint(0, 5, (4,))) for _ in range(4)]
params = [random_weight((3 * 4 * 4, 8)), random_weight((8, 5))]
losses = train_part2(two_layer_fc, params, 1e-2, loader)
acc = check_accuracy_part2(loader, two_layer_fc, params)
print([round(l, 4) for l in losses], params[0].grad.abs().sum(), params[1].is_leaf, params[1].grad_fn)
params[1], acc

# %%
class TwoLayerFC(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super().__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        nn.init.kaiming_normal_(self.fc1.weight)
        self.fc2 = nn.Linear(hidden_size, num_classes)
        nn.init.kaiming_normal_(self.fc2.weight)

    def forward(self, x):
        x = flatten(x)
        scores = self.fc2(F.relu(self.fc1(x)))
        return scores


class ThreeLayerConvNet(nn.Module):
    def __init__(self, in_channel, channel_1, channel_2, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channel, channel_1, 5, padding=2)
        nn.init.kaiming_normal_(self.conv1.weight)
        self.conv2 = nn.Conv2d(channel_1, channel_2, 3, padding=1)
        nn.init.kaiming_normal_(self.conv2.weight)
        self.fc = nn.Linear(channel_2 * 16, num_classes)
        nn.init.kaiming_normal_(self.fc.weight)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.fc(flatten(x))


def train_part34(model, optimizer, loader, epochs=1):
    for e in range(epochs):
        for t, (x, y) in enumerate(loader):
            model.train()
            scores = model(x)
            loss = F.cross_entropy(scores, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return loss


torch.random.manual_seed(3)
fc = TwoLayerFC(3 * 4 * 4, 10, 5)
print(fc(torch.zeros((4, 3, 4, 4), dtype=dtype)).size())
conv = ThreeLayerConvNet(3, 4, 2, 5)
optimizer = optim.SGD(conv.parameters(), lr=1e-2, momentum=0.9, nesterov=True)
loss = train_part34(conv, optimizer, loader, epochs=2)
print(conv, loss.grad_fn)
loss, conv.conv1.weight[0, 0], conv.fc.bias, conv.conv2.bias.grad

# %%
class Flatten(nn.Module):
    def forward(self, x):
        return flatten(x)


torch.random.manual_seed(4)
model = nn.Sequential(
    nn.Conv2d(3, 4, kernel_size=3, padding=1),
    nn.BatchNorm2d(4),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Dropout(0.25),
    Flatten(),
    nn.Linear(4 * 2 * 2, 5),
)
optimizer = optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), weight_decay=1e-4)
loss = train_part34(model, optimizer, loader)
model.eval()
with torch.no_grad():
    out_eval = model(loader[0][0])
print(model, loss.grad_fn, model[1].running_var, out_eval.requires_grad)
loss, out_eval, model[6].weight.grad, model[1].weight

# %%
def rel_error(x, y):
    return np.max(np.abs(x - y) / (np.maximum(1e-8, np.abs(x) + np.abs(y))))


def batchnorm_forward(x, gamma, beta, bn_param):
    mode = bn_param['mode']
    eps = bn_param.get('eps', 1e-5)
    momentum = bn_param.get('momentum', 0.9)
    N, D = x.shape
    running_mean = bn_param.get('running_mean', torch.zeros(D, dtype=x.dtype))
    running_var = bn_param.get('running_var', torch.zeros(D, dtype=x.dtype))
    if mode == 'train':
        sample_mean = x.mean(dim=0)
        sample_var = x.var(dim=0, unbiased=False)
        x_hat = (x - sample_mean) / torch.sqrt(sample_var + eps)
        out = gamma * x_hat + beta
        running_mean = momentum * running_mean + (1 - momentum) * sample_mean
        running_var = momentum * running_var + (1 - momentum) * sample_var
        cache = (x, x_hat, sample_mean, sample_var, gamma, eps)
    else:
        x_hat = (x - running_mean) / torch.sqrt(running_var + eps)
        out = gamma * x_hat + beta
        cache = None
    bn_param['running_mean'] = running_mean
    bn_param['running_var'] = running_var
    return out, cache


def batchnorm_backward_alt(dout, cache):
    x, x_hat, mean, var, gamma, eps = cache
    N = x.shape[0]
    dgamma = (dout * x_hat).sum(dim=0)
    dbeta = dout.sum(dim=0)
    dx_hat = dout * gamma
    dx = (1. / N) / torch.sqrt(var + eps) * (N * dx_hat - dx_hat.sum(dim=0) - x_hat * (dx_hat * x_hat).sum(dim=0))
    return dx, dgamma, dbeta


torch.random.manual_seed(5)
N, D = 6, 3
x = (5 * torch.randn(N, D, dtype=torch.float64) + 12).requires_grad_()
gamma = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
beta = torch.tensor([11.0, 12.0, 13.0], dtype=torch.float64, requires_grad=True)
bn_param = {'mode': 'train'}
out, cache = batchnorm_forward(x, gamma, beta, bn_param)
print('Means: ', out.mean(dim=0), '\nStds: ', out.std(dim=0, unbiased=False))
dout = torch.randn(N, D, dtype=torch.float64)
out.backward(dout)
dx, dgamma, dbeta = batchnorm_backward_alt(dout, tuple(c.detach() if torch.is_tensor(c) else c for c in cache))
print('dx error: ', rel_error(dx.numpy(), x.grad.numpy()) < 1e-10, 'dgamma error: ', rel_error(dgamma.numpy(), gamma.grad.numpy()) < 1e-10)
bn_ref = F.batch_norm(x.detach(), None, None, gamma.detach(), beta.detach(), training=True, eps=1e-5)
print(torch.allclose(bn_ref, out.detach()), bn_param['running_mean'].grad_fn)
out_test, _ = batchnorm_forward(x.detach(), gamma.detach(), beta.detach(), dict(bn_param, mode='test'))
out, x.grad, gamma.grad, beta.grad, bn_param['running_var'], out_test

# %%
def eval_numerical_gradient_array(f, x, df, h=1e-5):
    grad = torch.zeros_like(x)
    flat_x, flat_grad = x.view(-1), grad.view(-1)
    for ix in range(flat_x.numel()):
        oldval = flat_x[ix].item()
        flat_x[ix] = oldval + h
        pos = f(x).clone()
        flat_x[ix] = oldval - h
        neg = f(x).clone()
        flat_x[ix] = oldval
        flat_grad[ix] = torch.sum((pos - neg) * df) / (2 * h)
    return grad


torch.random.manual_seed(6)
x = torch.randn(4, 3, dtype=torch.float64)
g = torch.randn(3, dtype=torch.float64)
b = torch.randn(3, dtype=torch.float64)
dout = torch.randn(4, 3, dtype=torch.float64)
fx = lambda x: batchnorm_forward(x, g, b, {'mode': 'train'})[0]
dx_num = eval_numerical_gradient_array(fx, x.clone(), dout)
xr = x.clone().requires_grad_()
fx(xr).backward(dout)
print(rel_error(dx_num.numpy(), xr.grad.numpy()) < 1e-6, dx_num.dtype)
dx_num, xr.grad

# %%
def dropout_forward(x, dropout_param):
    p, mode = dropout_param['p'], dropout_param['mode']
    if 'seed' in dropout_param:
        torch.random.manual_seed(dropout_param['seed'])
    mask = None
    if mode == 'train':
        mask = (torch.rand(*x.shape) < p) / p
        out = x * mask
    elif mode == 'test':
        out = x
    return out, mask


x = torch.randn(50, 20) + 10
for p in [0.25, 0.4, 0.7]:
    out, _ = dropout_forward(x, {'mode': 'train', 'p': p, 'seed': 123})
    out_test, _ = dropout_forward(x, {'mode': 'test', 'p': p})
    print('Running tests with p = ', p)
    print('Fraction of train-time output set to zero: ', (out == 0).float().mean())
    print('Fraction of test-time output set to zero: ', (out_test == 0).float().mean())
xs = torch.ones(3, 4, requires_grad=True)
out, mask = dropout_forward(xs, {'mode': 'train', 'p': 0.5, 'seed': 7})
out.sum().backward()
torch.random.manual_seed(7)
ref = F.dropout(torch.ones(3, 4), p=0.5)
mask, xs.grad, out.grad_fn, ref, mask.dtype

# %%
def rnn_step_forward(x, prev_h, Wx, Wh, b):
    next_h = torch.tanh(x.mm(Wx) + prev_h.mm(Wh) + b)
    cache = (x, prev_h, Wx, Wh, next_h)
    return next_h, cache


def rnn_forward(x, h0, Wx, Wh, b):
    N, T, D = x.shape
    h, prev_h = [], h0
    for t in range(T):
        prev_h, _ = rnn_step_forward(x[:, t, :], prev_h, Wx, Wh, b)
        h.append(prev_h)
    return torch.stack(h, dim=1)


def word_embedding_forward(x, W):
    return W[x]


def temporal_affine_forward(x, w, b):
    N, T, D = x.shape
    M = b.shape[0]
    return x.reshape(N * T, D).mm(w).reshape(N, T, M) + b


def temporal_softmax_loss(x, y, mask):
    N, T, V = x.shape
    x_flat = x.reshape(N * T, V)
    y_flat = y.reshape(N * T)
    mask_flat = mask.reshape(N * T)
    probs = torch.exp(x_flat - x_flat.max(dim=1, keepdim=True).values)
    probs = probs / probs.sum(dim=1, keepdim=True)
    loss = -torch.sum(mask_flat * torch.log(probs[torch.arange(N * T), y_flat])) / N
    return loss


N, D, H, T, V, W = 2, 3, 4, 3, 5, 3
x = torch.linspace(-0.4, 0.1, steps=N * T * D).reshape(N, T, D)
h0 = torch.linspace(-0.3, 0.7, steps=N * H).reshape(N, H)
Wx = torch.linspace(-0.2, 0.4, steps=D * H).reshape(D, H).requires_grad_()
Wh = torch.linspace(-0.4, 0.1, steps=H * H).reshape(H, H).requires_grad_()
b = torch.linspace(-0.7, 0.1, steps=H).requires_grad_()
h = rnn_forward(x, h0, Wx, Wh, b)
words = torch.tensor([[0, 3, 1], [2, 2, 4]])
W_embed = torch.linspace(0, 1, steps=V * D).reshape(V, D).requires_grad_()
emb = word_embedding_forward(words, W_embed)
w_vocab = torch.linspace(-0.5, 0.5, steps=H * V).reshape(H, V).requires_grad_()
b_vocab = torch.zeros(V, requires_grad=True)
scores = temporal_affine_forward(h + emb.sum(-1, keepdim=True), w_vocab, b_vocab)
mask = torch.tensor([[True, True, False], [True, True, True]])
loss = temporal_softmax_loss(scores, words, mask)
loss.backward()
ref = (F.cross_entropy(scores.reshape(-1, V), words.reshape(-1), reduction='none') * mask.reshape(-1)).sum() / N
print(h.grad_fn, emb.grad_fn, scores.grad_fn, loss.grad_fn, torch.allclose(loss, ref))
h, loss, Wx.grad, Wh.grad, W_embed.grad, b_vocab.grad

# %%
torch.random.manual_seed(8)
model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(16, 5))
for param in model.parameters():
    param.requires_grad = False
model.eval()


def compute_saliency_maps(X, y, model):
    model.eval()
    X.requires_grad_()
    scores = model(X)
    scores = scores.gather(1, y.view(-1, 1)).squeeze()
    scores.backward(torch.ones_like(scores))
    saliency, _ = torch.max(X.grad.data.abs(), dim=1)
    return saliency


X = torch.randn(3, 3, 4, 4)
y = torch.tensor([1, 4, 0])
saliency = compute_saliency_maps(X, y, model)
print(saliency.shape, X.grad.shape, model[0].weight.grad, X.is_leaf)
saliency

# %%
def make_fooling_image(X, target_y, model, max_iter=20):
    X_fooling = X.clone()
    X_fooling = X_fooling.requires_grad_()
    learning_rate = 1
    for it in range(max_iter):
        scores = model(X_fooling)
        _, index = scores.max(dim=1)
        if index[0] == target_y:
            break
        target_score = scores[0, target_y]
        target_score.backward()
        g = X_fooling.grad
        dX = learning_rate * g / g.norm()
        X_fooling.data += dX.data
        X_fooling.grad.zero_()
    return X_fooling, it


X_fooling, iters = make_fooling_image(X[:1].detach(), 2, model)
scores = model(X_fooling)
print(iters, scores.argmax(dim=1), X_fooling.requires_grad, X_fooling.grad_fn)
X_fooling - X[:1].detach(), scores

# %%
def jitter(X, ox, oy):
    if ox != 0:
        left = X[:, :, :, :-ox]
        right = X[:, :, :, -ox:]
        X = torch.cat([right, left], dim=3)
    if oy != 0:
        top = X[:, :, :-oy]
        bottom = X[:, :, -oy:]
        X = torch.cat([bottom, top], dim=2)
    return X


def create_class_visualization(target_y, model, l2_reg=1e-3, learning_rate=5, num_iterations=6, max_jitter=1):
    img = torch.randn(1, 3, 4, 4).mul_(1.0).requires_grad_()
    for t in range(num_iterations):
        ox, oy = np.random.randint(0, max_jitter + 1, 2)
        img.data.copy_(jitter(img.data, ox, oy))
        scores = model(img)
        target_score = scores[0, target_y] - l2_reg * img.norm() ** 2
        target_score.backward()
        img.data += learning_rate * img.grad / img.grad.norm()
        img.grad.zero_()
        img.data.copy_(jitter(img.data, -ox, -oy))
        for c in range(3):
            lo, hi = float(-img.data[:, c].abs().max()), float(img.data[:, c].abs().max())
            img.data[:, c].clamp_(min=lo * 0.9, max=hi * 0.9)
    return img


torch.random.manual_seed(9)
np.random.seed(0)
img = create_class_visualization(3, model)
print(img.is_leaf, img.requires_grad, jitter(torch.arange(8.).view(1, 1, 2, 4), 1, 1))
img, model(img), torch.roll(torch.arange(6).view(2, 3), shifts=(1, -1), dims=(0, 1))

# %%
torch.random.manual_seed(10)
scores = torch.randn(4, 5, requires_grad=True)
y = torch.tensor([1, 0, 4, 2])
shifted = scores - scores.max(dim=1, keepdim=True)[0]
log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
loss = -log_probs[torch.arange(4), y].mean()
loss.backward()
margins = (scores - scores[torch.arange(4), y].unsqueeze(1) + 1.0).clamp(min=0)
margins[torch.arange(4), y] = 0
svm_loss = margins.sum() / 4
print(shifted.grad_fn, log_probs.grad_fn, loss.grad_fn, margins.grad_fn, svm_loss.grad_fn)
loss, scores.grad, svm_loss, torch.allclose(loss, F.cross_entropy(scores, y))

# %%
w = torch.randn(3, 3)
w -= 0.1

# %%
w = torch.randn(3, 3, requires_grad=True)
w -= 0.1

# %%
x = torch.randn(2, 3)
flatten(x.t())

# %%
x = torch.zeros(2, 3, 4)
torch.zeros((3 * 4, 5)).mm(x)
