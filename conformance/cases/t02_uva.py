# Lessons in the style of the UvA deep learning course notebooks: the PyTorch intro (a
# dataset and loader, a small classifier trained on XOR), activation functions and their
# gradients, initialisation and hand-written optimizers, Inception / ResNet / DenseNet
# blocks, the transformer's attention and a warm-up scheduler, an energy-based model's
# Langevin sampler, and a normalizing flow's coupling layer with its log-determinant.
# Seeds are set with torch.random.manual_seed, which record.py does not shift: the values
# drawn after them are compared too, so they check PyTorch's random streams as well.
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data as data

# %%
torch.random.manual_seed(42)
x = torch.arange(3, dtype=torch.float32, requires_grad=True)
a = x + 2
b = a ** 2
c = b + 3
y = c.mean()
y.backward()
print(x.requires_grad, a.grad_fn, b.grad_fn, c.grad_fn, y.grad_fn)
w = torch.arange(6).view(2, 3)
print(w, w.permute(1, 0), torch.matmul(w, w.T))
x.grad, torch.rand(2, 3), torch.randn(1, 2)

# %%
class XORDataset(data.Dataset):
    def __init__(self, size, std=0.1):
        super().__init__()
        self.size = size
        self.std = std
        self.generate_continuous_xor()

    def generate_continuous_xor(self):
        data = torch.randint(low=0, high=2, size=(self.size, 2), dtype=torch.float32)
        label = (data.sum(dim=1) == 1).to(torch.long)
        data += self.std * torch.randn(data.shape)
        self.data = data
        self.label = label

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        return self.data[idx], self.label[idx]


class SimpleClassifier(nn.Module):
    def __init__(self, num_inputs, num_hidden, num_outputs):
        super().__init__()
        self.linear1 = nn.Linear(num_inputs, num_hidden)
        self.act_fn = nn.Tanh()
        self.linear2 = nn.Linear(num_hidden, num_outputs)

    def forward(self, x):
        x = self.linear1(x)
        x = self.act_fn(x)
        x = self.linear2(x)
        return x


torch.random.manual_seed(42)
dataset = XORDataset(size=16)
print("Size of dataset:", len(dataset), "Data point 0:", dataset[0])
model = SimpleClassifier(num_inputs=2, num_hidden=4, num_outputs=1)
print(model)
for name, param in model.named_parameters():
    print(f"Parameter {name}, shape {param.shape}")
loss_module = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data_loader = data.DataLoader(dataset, batch_size=4, shuffle=False)
model.train()
for epoch in range(3):
    for data_inputs, data_labels in data_loader:
        preds = model(data_inputs)
        preds = preds.squeeze(dim=1)
        loss = loss_module(preds, data_labels.float())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
model.eval()
true_preds, num_preds = 0.0, 0.0
with torch.no_grad():
    for data_inputs, data_labels in data_loader:
        preds = torch.sigmoid(model(data_inputs).squeeze(dim=1))
        pred_labels = (preds >= 0.5).long()
        true_preds += (pred_labels == data_labels).sum()
        num_preds += data_labels.shape[0]
acc = true_preds / num_preds
print(f"Accuracy of the model: {100.0*acc:4.2f}%", type(true_preds))
loss, preds, model.linear1.weight, model.linear2.bias.grad, acc

# %%
class ActivationFunction(nn.Module):
    def __init__(self):
        super().__init__()
        self.name = self.__class__.__name__
        self.config = {"name": self.name}


class Sigmoid(ActivationFunction):
    def forward(self, x):
        return 1 / (1 + torch.exp(-x))


class Tanh(ActivationFunction):
    def forward(self, x):
        x_exp, neg_x_exp = torch.exp(x), torch.exp(-x)
        return (x_exp - neg_x_exp) / (x_exp + neg_x_exp)


class ReLU(ActivationFunction):
    def forward(self, x):
        return x * (x > 0).float()


class LeakyReLU(ActivationFunction):
    def __init__(self, alpha=0.1):
        super().__init__()
        self.config["alpha"] = alpha

    def forward(self, x):
        return torch.where(x > 0, x, self.config["alpha"] * x)


class ELU(ActivationFunction):
    def forward(self, x):
        return torch.where(x > 0, x, torch.exp(x) - 1)


class Swish(ActivationFunction):
    def forward(self, x):
        return x * torch.sigmoid(x)


act_fn_by_name = {"sigmoid": Sigmoid, "tanh": Tanh, "relu": ReLU, "leakyrelu": LeakyReLU,
                  "elu": ELU, "swish": Swish}


def get_grads(act_fn, x):
    x = x.clone().requires_grad_()
    out = act_fn(x)
    out.sum().backward()
    return x.grad


x = torch.linspace(-5, 5, 11)
act_grads = {}
for name, cls in act_fn_by_name.items():
    act_fn = cls()
    y = act_fn(x)
    act_grads[name] = get_grads(act_fn, x)
    print(act_fn.config, y.grad_fn, act_grads[name][3:6])
act_grads["sigmoid"], act_grads["elu"], act_grads["swish"], act_grads["leakyrelu"]

# %%
class BaseNetwork(nn.Module):
    def __init__(self, act_fn, input_size=12, num_classes=3, hidden_sizes=[8, 6, 4]):
        super().__init__()
        layers = []
        layer_sizes = [input_size] + hidden_sizes
        for layer_index in range(1, len(layer_sizes)):
            layers += [nn.Linear(layer_sizes[layer_index - 1], layer_sizes[layer_index]), act_fn]
        layers += [nn.Linear(layer_sizes[-1], num_classes)]
        self.layers = nn.Sequential(*layers)
        self.config = {"act_fn": act_fn.config, "input_size": input_size, "num_classes": num_classes,
                       "hidden_sizes": hidden_sizes}

    def forward(self, x):
        x = x.view(x.size(0), -1)
        out = self.layers(x)
        return out


def visualize_gradients(net, imgs, labels):
    net.eval()
    net.zero_grad()
    preds = net(imgs)
    loss = F.cross_entropy(preds, labels)
    loss.backward()
    grads = {name: params.grad.data.view(-1).cpu().clone()
             for name, params in net.named_parameters() if "weight" in name}
    net.zero_grad()
    return grads


torch.random.manual_seed(42)
imgs = torch.randn(6, 3, 2, 2)
labels = torch.tensor([0, 1, 2, 0, 1, 2])
stds = {}
for name in ["sigmoid", "relu", "swish"]:
    net = BaseNetwork(act_fn=act_fn_by_name[name]())
    grads = visualize_gradients(net, imgs, labels)
    stds[name] = [round(g.std().item(), 5) for g in grads.values()]
print(stds)
print(net.layers[0].weight.grad, [n for n, _ in net.named_parameters()][:3])
grads["layers.0.weight"], grads["layers.6.weight"]

# %%
def const_init(model, fill=0.0):
    for name, param in model.named_parameters():
        param.data.fill_(fill)


def constant_variance_init(model, std=0.01):
    for name, param in model.named_parameters():
        param.data.normal_(mean=0.0, std=std)


def equal_var_init(model):
    for name, param in model.named_parameters():
        if name.endswith(".bias"):
            param.data.fill_(0)
        else:
            param.data.normal_(std=1.0 / math.sqrt(param.shape[1]))


def xavier_init(model):
    for name, param in model.named_parameters():
        if name.endswith(".bias"):
            param.data.fill_(0)
        else:
            bound = math.sqrt(6) / math.sqrt(param.shape[0] + param.shape[1])
            param.data.uniform_(-bound, bound)


def kaiming_init(model):
    for name, param in model.named_parameters():
        if name.endswith(".bias"):
            param.data.fill_(0)
        elif name.startswith("layers.0"):
            param.data.normal_(0, 1 / math.sqrt(param.shape[1]))
        else:
            param.data.normal_(0, math.sqrt(2) / math.sqrt(param.shape[1]))


def activation_stats(net, imgs):
    feats = imgs.view(imgs.shape[0], -1)
    stats = []
    with torch.no_grad():
        for layer_index, layer in enumerate(net.layers):
            feats = layer(feats)
            if isinstance(layer, nn.Linear):
                stats.append(round(feats.view(-1).var().item(), 4))
    return stats


class Identity(ActivationFunction):
    def forward(self, x):
        return x


torch.random.manual_seed(7)
net = BaseNetwork(act_fn=Identity())
const_init(net, fill=0.005)
print(activation_stats(net, imgs), visualize_gradients(net, imgs, labels)["layers.2.weight"][:4])
for init in (constant_variance_init, equal_var_init, xavier_init):
    init(net)
    print(init.__name__, activation_stats(net, imgs))
net = BaseNetwork(act_fn=ReLU())
kaiming_init(net)
print(activation_stats(net, imgs))
net.layers[0].weight, net.layers[4].weight

# %%
class OptimizerTemplate:
    def __init__(self, params, lr):
        self.params = list(params)
        self.lr = lr

    def zero_grad(self):
        for p in self.params:
            if p.grad is not None:
                p.grad.detach_()
                p.grad.zero_()

    @torch.no_grad()
    def step(self):
        for p in self.params:
            if p.grad is None:
                continue
            self.update_param(p)

    def update_param(self, p):
        raise NotImplementedError


class SGD(OptimizerTemplate):
    def update_param(self, p):
        p_update = -self.lr * p.grad
        p.add_(p_update)


class SGDMomentum(OptimizerTemplate):
    def __init__(self, params, lr, momentum=0.0):
        super().__init__(params, lr)
        self.momentum = momentum
        self.param_momentum = {p: torch.zeros_like(p.data) for p in self.params}

    def update_param(self, p):
        self.param_momentum[p] = (1 - self.momentum) * p.grad + self.momentum * self.param_momentum[p]
        p_update = -self.lr * self.param_momentum[p]
        p.add_(p_update)


class Adam(OptimizerTemplate):
    def __init__(self, params, lr, beta1=0.9, beta2=0.999, eps=1e-8):
        super().__init__(params, lr)
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.param_step = {p: 0 for p in self.params}
        self.param_momentum = {p: torch.zeros_like(p.data) for p in self.params}
        self.param_2nd_momentum = {p: torch.zeros_like(p.data) for p in self.params}

    def update_param(self, p):
        self.param_step[p] += 1
        self.param_momentum[p] = (1 - self.beta1) * p.grad + self.beta1 * self.param_momentum[p]
        self.param_2nd_momentum[p] = (1 - self.beta2) * (p.grad) ** 2 + self.beta2 * self.param_2nd_momentum[p]
        bias_correction_1 = 1 - self.beta1 ** self.param_step[p]
        bias_correction_2 = 1 - self.beta2 ** self.param_step[p]
        p_2nd_mom = self.param_2nd_momentum[p] / bias_correction_2
        p_mom = self.param_momentum[p] / bias_correction_1
        p_lr = self.lr / (torch.sqrt(p_2nd_mom) + self.eps)
        p_update = -p_lr * p_mom
        p.add_(p_update)


def pathological_curve_loss(w1, w2):
    x1_loss = torch.tanh(w1) ** 2 + 0.01 * torch.abs(w1)
    x2_loss = torch.sigmoid(w2)
    return x1_loss + x2_loss


def train_curve(optimizer_func, curve_func=pathological_curve_loss, num_updates=20, init=[5, 5]):
    weights = nn.Parameter(torch.FloatTensor(init), requires_grad=True)
    optimizer = optimizer_func([weights])
    list_points = []
    for _ in range(num_updates):
        loss = curve_func(weights[0], weights[1])
        list_points.append(torch.cat([weights.data.detach(), loss.unsqueeze(dim=0).detach()], dim=0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    points = torch.stack(list_points, dim=0)
    return points


SGD_points = train_curve(lambda params: SGD(params, lr=10))
SGDMom_points = train_curve(lambda params: SGDMomentum(params, lr=10, momentum=0.9))
Adam_points = train_curve(lambda params: Adam(params, lr=1))
torch_adam_points = train_curve(lambda params: optim.Adam(params, lr=1))
print(torch.allclose(Adam_points, torch_adam_points, atol=1e-5), SGD_points.shape)
SGD_points[-3:], SGDMom_points[-3:], Adam_points[-3:], torch_adam_points[-1]

# %%
class InceptionBlock(nn.Module):
    def __init__(self, c_in, c_red: dict, c_out: dict, act_fn):
        super().__init__()
        self.conv_1x1 = nn.Sequential(nn.Conv2d(c_in, c_out["1x1"], kernel_size=1), nn.BatchNorm2d(c_out["1x1"]), act_fn())
        self.conv_3x3 = nn.Sequential(
            nn.Conv2d(c_in, c_red["3x3"], kernel_size=1), nn.BatchNorm2d(c_red["3x3"]), act_fn(),
            nn.Conv2d(c_red["3x3"], c_out["3x3"], kernel_size=3, padding=1), nn.BatchNorm2d(c_out["3x3"]), act_fn())
        self.conv_5x5 = nn.Sequential(
            nn.Conv2d(c_in, c_red["5x5"], kernel_size=1), nn.BatchNorm2d(c_red["5x5"]), act_fn(),
            nn.Conv2d(c_red["5x5"], c_out["5x5"], kernel_size=5, padding=2), nn.BatchNorm2d(c_out["5x5"]), act_fn())
        self.max_pool = nn.Sequential(
            nn.MaxPool2d(kernel_size=3, padding=1, stride=1),
            nn.Conv2d(c_in, c_out["max"], kernel_size=1), nn.BatchNorm2d(c_out["max"]), act_fn())

    def forward(self, x):
        x_1x1 = self.conv_1x1(x)
        x_3x3 = self.conv_3x3(x)
        x_5x5 = self.conv_5x5(x)
        x_max = self.max_pool(x)
        x_out = torch.cat([x_1x1, x_3x3, x_5x5, x_max], dim=1)
        return x_out


torch.random.manual_seed(8)
block = InceptionBlock(3, c_red={"3x3": 2, "5x5": 2}, c_out={"1x1": 2, "3x3": 3, "5x5": 1, "max": 1}, act_fn=nn.ReLU)
inp = torch.randn(2, 3, 5, 5)
out = block(inp)
out.pow(2).mean().backward()
print(out.shape, out.grad_fn, block.conv_3x3[1].running_mean, block.conv_1x1[1].num_batches_tracked)
out[0, :, 0], block.conv_5x5[3].weight.grad[0], block.max_pool[2].bias.grad

# %%
class ResNetBlock(nn.Module):
    def __init__(self, c_in, act_fn, subsample=False, c_out=-1):
        super().__init__()
        if not subsample:
            c_out = c_in
        self.net = nn.Sequential(
            nn.Conv2d(c_in, c_out, kernel_size=3, padding=1, stride=1 if not subsample else 2, bias=False),
            nn.BatchNorm2d(c_out), act_fn(),
            nn.Conv2d(c_out, c_out, kernel_size=3, padding=1, bias=False), nn.BatchNorm2d(c_out))
        self.downsample = nn.Conv2d(c_in, c_out, kernel_size=1, stride=2) if subsample else None
        self.act_fn = act_fn()

    def forward(self, x):
        z = self.net(x)
        if self.downsample is not None:
            x = self.downsample(x)
        out = z + x
        out = self.act_fn(out)
        return out


class PreActResNetBlock(nn.Module):
    def __init__(self, c_in, act_fn, subsample=False, c_out=-1):
        super().__init__()
        if not subsample:
            c_out = c_in
        self.net = nn.Sequential(
            nn.BatchNorm2d(c_in), act_fn(),
            nn.Conv2d(c_in, c_out, kernel_size=3, padding=1, stride=1 if not subsample else 2, bias=False),
            nn.BatchNorm2d(c_out), act_fn(),
            nn.Conv2d(c_out, c_out, kernel_size=3, padding=1, bias=False))
        self.downsample = nn.Sequential(nn.BatchNorm2d(c_in), act_fn(),
                                        nn.Conv2d(c_in, c_out, kernel_size=1, stride=2, bias=False)) if subsample else None

    def forward(self, x):
        z = self.net(x)
        if self.downsample is not None:
            x = self.downsample(x)
        return z + x


class DenseLayer(nn.Module):
    def __init__(self, c_in, bn_size, growth_rate, act_fn):
        super().__init__()
        self.net = nn.Sequential(
            nn.BatchNorm2d(c_in), act_fn(), nn.Conv2d(c_in, bn_size * growth_rate, kernel_size=1, bias=False),
            nn.BatchNorm2d(bn_size * growth_rate), act_fn(),
            nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, padding=1, bias=False))

    def forward(self, x):
        out = self.net(x)
        out = torch.cat([out, x], dim=1)
        return out


torch.random.manual_seed(9)
x = torch.randn(2, 4, 6, 6)
res = ResNetBlock(4, nn.ReLU, subsample=True, c_out=6)
pre = PreActResNetBlock(4, nn.ReLU, subsample=True, c_out=6)
dense = DenseLayer(4, bn_size=2, growth_rate=3, act_fn=nn.ReLU)
head = nn.Sequential(nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(6, 3))
r, p, d = res(x), pre(x), dense(x)
loss = F.cross_entropy(head(r) + head(p), torch.tensor([0, 2])) + d.mean()
loss.backward()
print(r.shape, p.shape, d.shape, r.grad_fn, p.grad_fn, d.grad_fn, head(r).grad_fn)
loss, res.downsample.weight.grad[0], pre.net[2].weight.grad[0, 0], dense.net[5].weight.grad[0, 0], head[2].weight.grad

# %%
def scaled_dot_product(q, k, v, mask=None):
    d_k = q.size()[-1]
    attn_logits = torch.matmul(q, k.transpose(-2, -1))
    attn_logits = attn_logits / math.sqrt(d_k)
    if mask is not None:
        attn_logits = attn_logits.masked_fill(mask == 0, -9e15)
    attention = F.softmax(attn_logits, dim=-1)
    values = torch.matmul(attention, v)
    return values, attention


torch.random.manual_seed(42)
seq_len, d_k = 3, 2
q = torch.randn(seq_len, d_k, requires_grad=True)
k = torch.randn(seq_len, d_k)
v = torch.randn(seq_len, d_k)
mask = torch.tril(torch.ones(seq_len, seq_len))
values, attention = scaled_dot_product(q, k, v, mask=mask)
values.sum().backward()
print("Q\n", q, "\nK\n", k, "\nV\n", v)
print("Values\n", values, "\nAttention\n", attention)
attention.grad_fn, values.grad_fn, q.grad

# %%
class MultiheadAttention(nn.Module):
    def __init__(self, input_dim, embed_dim, num_heads):
        super().__init__()
        assert embed_dim % num_heads == 0, "Embedding dimension must be 0 modulo number of heads."
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.qkv_proj = nn.Linear(input_dim, 3 * embed_dim)
        self.o_proj = nn.Linear(embed_dim, embed_dim)
        self._reset_parameters()

    def _reset_parameters(self):
        nn.init.xavier_uniform_(self.qkv_proj.weight)
        self.qkv_proj.bias.data.fill_(0)
        nn.init.xavier_uniform_(self.o_proj.weight)
        self.o_proj.bias.data.fill_(0)

    def forward(self, x, mask=None, return_attention=False):
        batch_size, seq_length, _ = x.size()
        qkv = self.qkv_proj(x)
        qkv = qkv.reshape(batch_size, seq_length, self.num_heads, 3 * self.head_dim)
        qkv = qkv.permute(0, 2, 1, 3)
        q, k, v = qkv.chunk(3, dim=-1)
        values, attention = scaled_dot_product(q, k, v, mask=mask)
        values = values.permute(0, 2, 1, 3)
        values = values.reshape(batch_size, seq_length, self.embed_dim)
        o = self.o_proj(values)
        if return_attention:
            return o, attention
        return o


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=16):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, x):
        x = x + self.pe[:, : x.size(1)]
        return x


torch.random.manual_seed(10)
mha = MultiheadAttention(input_dim=4, embed_dim=4, num_heads=2)
pos = PositionalEncoding(d_model=4)
x = torch.randn(2, 5, 4)
o, attn = mha(pos(x), return_attention=True)
o.sum().backward()
print(o.shape, attn.shape, o.grad_fn, attn.grad_fn, list(pos.state_dict().keys()), [b[0] for b in pos.named_buffers()])
try:
    MultiheadAttention(4, 6, 4)
except AssertionError as e:
    print("AssertionError:", e)
o, attn[0, 0], mha.qkv_proj.weight.grad, pos.pe[0, :4]

# %%
class CosineWarmupScheduler(optim.lr_scheduler._LRScheduler):
    def __init__(self, optimizer, warmup, max_iters):
        self.warmup = warmup
        self.max_num_iters = max_iters
        super().__init__(optimizer)

    def get_lr(self):
        lr_factor = self.get_lr_factor(epoch=self.last_epoch)
        return [base_lr * lr_factor for base_lr in self.base_lrs]

    def get_lr_factor(self, epoch):
        lr_factor = 0.5 * (1 + np.cos(np.pi * epoch / self.max_num_iters))
        if epoch <= self.warmup:
            lr_factor *= epoch * 1.0 / self.warmup
        return lr_factor


p = nn.Parameter(torch.empty(4, 4))
optimizer = optim.Adam([p], lr=1e-3)
lr_scheduler = CosineWarmupScheduler(optimizer=optimizer, warmup=10, max_iters=50)
lrs = []
for epoch in range(14):
    optimizer.step()
    lr_scheduler.step()
    lrs.append(lr_scheduler.get_last_lr()[0])
print([round(float(l), 8) for l in lrs], lr_scheduler.last_epoch, type(lrs[0]).__name__)
optimizer.param_groups[0]["lr"], lr_scheduler.base_lrs

# %%
class Swish(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)


class CNNModel(nn.Module):
    def __init__(self, hidden_features=4, out_dim=1):
        super().__init__()
        c_hid1 = hidden_features // 2
        self.cnn_layers = nn.Sequential(
            nn.Conv2d(1, c_hid1, kernel_size=3, stride=2, padding=1), Swish(),
            nn.Conv2d(c_hid1, hidden_features, kernel_size=3, stride=2, padding=1), Swish(),
            nn.Flatten(), nn.Linear(hidden_features * 4, hidden_features), Swish(),
            nn.Linear(hidden_features, out_dim))

    def forward(self, x):
        x = self.cnn_layers(x).squeeze(dim=-1)
        return x


def generate_samples(model, inp_imgs, steps=4, step_size=10):
    is_training = model.training
    model.eval()
    for p in model.parameters():
        p.requires_grad = False
    inp_imgs.requires_grad = True
    had_gradients_enabled = torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    noise = torch.randn(inp_imgs.shape, device=inp_imgs.device)
    for _ in range(steps):
        noise.normal_(0, 0.005)
        inp_imgs.data.add_(noise.data)
        inp_imgs.data.clamp_(min=-1.0, max=1.0)
        out_imgs = -model(inp_imgs)
        out_imgs.sum().backward()
        inp_imgs.grad.data.clamp_(-0.03, 0.03)
        inp_imgs.data.add_(-step_size * inp_imgs.grad.data)
        inp_imgs.grad.detach_()
        inp_imgs.grad.zero_()
        inp_imgs.data.clamp_(min=-1.0, max=1.0)
    for p in model.parameters():
        p.requires_grad = True
    model.train(is_training)
    torch.set_grad_enabled(had_gradients_enabled)
    return inp_imgs


torch.random.manual_seed(11)
cnn = CNNModel()
real_imgs = torch.rand(3, 1, 8, 8) * 2 - 1
real_imgs = real_imgs + 0.005 * torch.randn_like(real_imgs)
real_imgs = real_imgs.clamp(min=-1.0, max=1.0)
fake_imgs = torch.rand((3, 1, 8, 8)) * 2 - 1
fake_imgs = generate_samples(cnn, fake_imgs)
print(fake_imgs.requires_grad, fake_imgs.is_leaf, fake_imgs.grad.abs().sum(), torch.is_grad_enabled())
inp_imgs = torch.cat([real_imgs, fake_imgs.detach()], dim=0)
real_out, fake_out = cnn(inp_imgs).chunk(2, dim=0)
reg_loss = 0.1 * (real_out ** 2 + fake_out ** 2).mean()
cdiv_loss = fake_out.mean() - real_out.mean()
loss = reg_loss + cdiv_loss
cnn_opt = optim.Adam(cnn.parameters(), lr=1e-3, betas=(0.0, 0.999))
cnn_opt.zero_grad()
loss.backward()
cnn_opt.step()
print(real_out.grad_fn, loss.grad_fn)
fake_imgs[0, 0, :2], real_out, fake_out, reg_loss, cdiv_loss, cnn.cnn_layers[5].weight.grad

# %%
def create_checkerboard_mask(h, w, invert=False):
    x, y = torch.arange(h, dtype=torch.int32), torch.arange(w, dtype=torch.int32)
    xx, yy = torch.meshgrid(x, y, indexing="ij")
    mask = torch.fmod(xx + yy, 2)
    mask = mask.to(torch.float32).view(1, 1, h, w)
    if invert:
        mask = 1 - mask
    return mask


def create_channel_mask(c_in, invert=False):
    mask = torch.cat([torch.ones(c_in // 2, dtype=torch.float32),
                      torch.zeros(c_in - c_in // 2, dtype=torch.float32)])
    mask = mask.view(1, c_in, 1, 1)
    if invert:
        mask = 1 - mask
    return mask


class CouplingLayer(nn.Module):
    def __init__(self, network, mask, c_in):
        super().__init__()
        self.network = network
        self.scaling_factor = nn.Parameter(torch.zeros(c_in))
        self.register_buffer("mask", mask)

    def forward(self, z, ldj, reverse=False, orig_img=None):
        z_in = z * self.mask
        if orig_img is None:
            nn_out = self.network(z_in)
        else:
            nn_out = self.network(torch.cat([z_in, orig_img], dim=1))
        s, t = nn_out.chunk(2, dim=1)
        s_fac = self.scaling_factor.exp().view(1, -1, 1, 1)
        s = torch.tanh(s / s_fac) * s_fac
        s = s * (1 - self.mask)
        t = t * (1 - self.mask)
        if not reverse:
            z = (z + t) * torch.exp(s)
            ldj += s.sum(dim=[1, 2, 3])
        else:
            z = (z * torch.exp(-s)) - t
            ldj -= s.sum(dim=[1, 2, 3])
        return z, ldj


torch.random.manual_seed(12)
print(create_checkerboard_mask(3, 4), create_channel_mask(3, invert=True).flatten())
net = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ELU(), nn.Conv2d(4, 4, 3, padding=1))
layer = CouplingLayer(net, create_checkerboard_mask(4, 4), c_in=2)
z0 = torch.randn(3, 2, 4, 4)
ldj0 = torch.zeros(3)
z1, ldj1 = layer(z0, ldj0.clone())
z_back, ldj_back = layer(z1, ldj1.clone(), reverse=True)
prior = torch.distributions.Normal(loc=0.0, scale=1.0)
log_pz = prior.log_prob(z1).sum(dim=[1, 2, 3])
log_px = ldj1 + log_pz
nll = -log_px
bpd = nll * np.log2(np.exp(1)) / np.prod(z1.shape[1:])
bpd.mean().backward()
print(torch.allclose(z_back, z0, atol=1e-5), ldj_back.abs().max() < 1e-5, ldj1.grad_fn, bpd.grad_fn, log_pz.grad_fn)
ldj1, bpd, layer.scaling_factor.grad, net[0].bias.grad

# %%
def dequant(z, ldj, quants=256, alpha=1e-5):
    z = z.to(torch.float32)
    z = z + torch.rand_like(z).detach()
    z = z / quants
    ldj -= np.log(quants) * np.prod(z.shape[1:])
    z = z * (1 - alpha) + 0.5 * alpha
    ldj += np.log(1 - alpha) * np.prod(z.shape[1:])
    ldj += (-torch.log(z) - torch.log(1 - z)).sum(dim=[1, 2, 3])
    z = torch.log(z) - torch.log(1 - z)
    return z, ldj


class SqueezeFlow(nn.Module):
    def forward(self, z, ldj, reverse=False):
        B, C, H, W = z.shape
        if not reverse:
            z = z.reshape(B, C, H // 2, 2, W // 2, 2)
            z = z.permute(0, 1, 3, 5, 2, 4)
            z = z.reshape(B, 4 * C, H // 2, W // 2)
        else:
            z = z.reshape(B, C // 4, 2, 2, H, W)
            z = z.permute(0, 1, 4, 2, 5, 3)
            z = z.reshape(B, C // 4, H * 2, W * 2)
        return z, ldj


torch.random.manual_seed(13)
imgs = torch.randint(0, 256, (2, 1, 4, 4))
z, ldj = dequant(imgs, torch.zeros(2))
sq = SqueezeFlow()
zs, _ = sq(z, ldj)
zb, _ = sq(zs, ldj, reverse=True)
print(imgs.dtype, z.dtype, zs.shape, torch.equal(zb, z), zs.is_contiguous())
z, ldj, zs[0, :, 0, 0]
