# Lessons in the style of d2l's "from scratch" chapters: linear regression with a
# hand-written minibatch SGD, softmax regression with its own cross-entropy and accuracy,
# an MLP with a hand-written ReLU, dropout, weight decay, batch norm and a 2-D
# cross-correlation, all on small made-up data.
# Seeds are set with torch.random.manual_seed, which record.py does not shift: the values
# drawn after them are compared too, so they check PyTorch's random streams as well.
import random
import torch
from torch import nn


def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()

# %%
torch.random.manual_seed(0)
random.seed(0)
true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 40)
print('features:', features[0], '\nlabel:', labels[0])
w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for epoch in range(3):
    for X, y in data_iter(10, features, labels):
        l = squared_loss(linreg(X, w, b), y)
        l.sum().backward()
        sgd([w, b], 0.03, 10)
    with torch.no_grad():
        train_l = squared_loss(linreg(features, w, b), labels)
        print(f'epoch {epoch + 1}, loss {float(train_l.mean()):f}')
print(f'error in estimating w: {true_w - w.reshape(true_w.shape)}')
print(f'error in estimating b: {true_b - b}')
w, b

# %%
X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(X.sum(0, keepdim=True), X.sum(1, keepdim=True))


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition


torch.random.manual_seed(1)
X = torch.rand((2, 5))
X_prob = softmax(X)
X_prob, X_prob.sum(1)

# %%
y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y])


def cross_entropy(y_hat, y):
    return - torch.log(y_hat[range(len(y_hat)), y])


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


print(cross_entropy(y_hat, y), accuracy(y_hat, y) / len(y))


class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


torch.random.manual_seed(2)
num_inputs, num_outputs = 8, 3
W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)
Xs = torch.randn(12, 2, 4)
ys = torch.randint(0, 3, (12,))


def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)


metric = Accumulator(3)
for i in range(0, 12, 4):
    X, y = Xs[i:i + 4], ys[i:i + 4]
    y_hat = net(X)
    l = cross_entropy(y_hat, y)
    l.sum().backward()
    sgd([W, b], 0.1, X.shape[0])
    metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
print(f'{metric[0] / metric[2]:.4f} {metric[1] / metric[2]:.4f}')
W, b

# %%
def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)


def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)


torch.random.manual_seed(3)
X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print(dropout_layer(X, 0.), dropout_layer(X, 1.))
dropped = dropout_layer(X, 0.5)
W1 = nn.Parameter(torch.randn(8, 6, requires_grad=True) * 0.01)
b1 = nn.Parameter(torch.zeros(6, requires_grad=True))
H = relu(X @ W1 + b1)
print(H.grad_fn, H.shape)


def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2


pen = l2_penalty(W1)
(H.sum() + 3 * pen).backward()
W1.grad, b1.grad, dropped

# %%
def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta
    return Y, moving_mean.data, moving_var.data


torch.random.manual_seed(4)
Xb = torch.randn(4, 3, 2, 2)
gamma = torch.ones((1, 3, 1, 1), requires_grad=True)
beta = torch.zeros((1, 3, 1, 1), requires_grad=True)
Yb, mm, mv = batch_norm(Xb, gamma, beta, torch.zeros(1, 3, 1, 1), torch.ones(1, 3, 1, 1), 1e-5, 0.1)
(Yb * torch.arange(48.).reshape(Yb.shape)).sum().backward()
with torch.no_grad():
    Ye, _, _ = batch_norm(Xb, gamma, beta, mm, mv, 1e-5, 0.1)
gamma_grad, beta_grad = gamma.grad, beta.grad

# %%
def corr2d(X, K):
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y


def pool2d(X, pool_size, mode='max'):
    p_h, p_w = pool_size
    Y = torch.zeros((X.shape[0] - p_h + 1, X.shape[1] - p_w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            if mode == 'max':
                Y[i, j] = X[i: i + p_h, j: j + p_w].max()
            elif mode == 'avg':
                Y[i, j] = X[i: i + p_h, j: j + p_w].mean()
    return Y


X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
K = torch.tensor([[0.0, 1.0], [2.0, 3.0]], requires_grad=True)
Yc = corr2d(X, K)
Yc.sum().backward()
print(Yc.grad_fn, pool2d(X, (2, 2)), pool2d(X, (2, 2), 'avg'))
conv2d = nn.Conv2d(1, 1, kernel_size=(1, 2), bias=False)
print(conv2d.weight.shape, conv2d)
Yc, K.grad

# %%
torch.random.manual_seed(5)
net = nn.Sequential(nn.Flatten(), nn.Linear(8, 6), nn.ReLU(), nn.Dropout(0.2), nn.Linear(6, 3))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)
        nn.init.zeros_(m.bias)


net.apply(init_weights)
print(net)
print(net[1].weight.data.shape, net[1].bias.data[0], net[1].state_dict().keys())
print(*[(name, param.shape) for name, param in net.named_parameters()])
loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=0.1, weight_decay=1e-3)
net.train()
out = net(torch.randn(5, 2, 4))
l = loss(out, torch.tensor([0, 1, 2, 1, 0]))
trainer.zero_grad()
l.mean().backward()
trainer.step()
net.eval()
print(net(torch.ones(1, 8)).shape, l.grad_fn)
net[4].weight.grad
