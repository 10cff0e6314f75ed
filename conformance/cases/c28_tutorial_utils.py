# Lessons in the style of the PyTorch, CS231n, fast.ai and d2l tutorials' utilities: saving a
# model's state_dict and optimizer to a checkpoint and training on from it, a label histogram
# with unique / bincount, bucketing with searchsorted / bucketize and quantiles, image patches
# with unfold / fold, and a spatial transformer's step (affine_grid + grid_sample) with its
# gradient. Seeds are set with torch.random.manual_seed, which record.py does not shift: the
# values drawn after them are compared too.
import argparse
import io
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

# %%
torch.random.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(16, 4)
y = torch.randint(0, 3, (16,))
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
checkpoint_dir = tempfile.mkdtemp()
path = os.path.join(checkpoint_dir, "checkpoint.pt")
torch.save({"epoch": 3, "model_state_dict": model.state_dict(), "optimizer_state_dict": opt.state_dict(),
            "loss": loss.item()}, path)
print(sorted(os.listdir(checkpoint_dir)), loss)

# %%
checkpoint = torch.load(path)
print(checkpoint["epoch"], round(checkpoint["loss"], 4), list(checkpoint["model_state_dict"].keys()))
restored = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
print(restored.load_state_dict(checkpoint["model_state_dict"]))
restored_opt = torch.optim.SGD(restored.parameters(), lr=0.1, momentum=0.9)
restored_opt.load_state_dict(checkpoint["optimizer_state_dict"])
w_saved = checkpoint["model_state_dict"]["0.weight"]
print(w_saved.requires_grad, w_saved.is_leaf, torch.equal(w_saved, model[0].weight))

# %%
for net, optimizer in ((model, opt), (restored, restored_opt)):
    for step in range(2):
        optimizer.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        optimizer.step()
    print(loss)
resumed_loss = loss
print(all(torch.equal(a, b) for a, b in zip(model.parameters(), restored.parameters())))

# %%
buffer = io.BytesIO()
torch.save([model[0].weight, model[0].weight[:2], {"bias": model[0].bias.detach()}], buffer)
buffer.seek(0)
weight, rows, extra = torch.load(buffer)
print(type(weight).__name__, weight.requires_grad, rows.storage_offset(), rows.shape, extra["bias"].shape)

# %%
buffer = io.BytesIO()
torch.save({"args": argparse.Namespace(lr=0.1, epochs=3), "model": model.state_dict()}, buffer)
buffer.seek(0)
torch.load(buffer)

# %%
buffer.seek(0)
print(torch.load(buffer, weights_only=False)["args"])

# %%
torch.random.manual_seed(1)
labels = torch.randint(0, 5, (40,))
classes, counts = labels.unique(return_counts=True)
hist = torch.bincount(labels, minlength=6)
class_weights = counts.sum() / (len(classes) * counts.float())
sorted_classes, inverse = torch.unique(labels, sorted=True, return_inverse=True)
runs = torch.unique_consecutive(labels.sort().values)
print(classes, counts, hist, class_weights, inverse[:8], runs)

# %%
torch.random.manual_seed(2)
ages = torch.rand(12) * 80
edges = torch.tensor([18.0, 30.0, 45.0, 65.0])
buckets = torch.bucketize(ages, edges)
right_buckets = torch.searchsorted(edges, ages, right=True)
per_bucket = torch.bincount(buckets, minlength=len(edges) + 1)
q = torch.quantile(ages, torch.tensor([0.25, 0.5, 0.75]))
median_low = torch.quantile(ages, 0.5, interpolation="lower")
print(buckets, right_buckets, per_bucket, q, median_low)

# %%
torch.random.manual_seed(3)
images = torch.randn(2, 3, 8, 8, requires_grad=True)
patches = F.unfold(images, kernel_size=4, stride=4)
tokens = patches.transpose(1, 2)
rebuilt = F.fold(patches, output_size=(8, 8), kernel_size=4, stride=4)
print(patches.shape, tokens.shape, patches.grad_fn, rebuilt.grad_fn, torch.equal(rebuilt, images))
overlap = nn.Fold(output_size=(4, 4), kernel_size=2, stride=1)(nn.Unfold(kernel_size=2)(images[:, :, :4, :4]))
overlap.sum().backward()
print(nn.Unfold(kernel_size=2), images.grad[0, 0, :4, :4])

# %%
class SpatialTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.localization = nn.Sequential(nn.Flatten(), nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 6))
        self.localization[3].weight.data.zero_()
        self.localization[3].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def forward(self, x):
        theta = self.localization(x).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False), theta, grid


torch.random.manual_seed(4)
stn = SpatialTransformer()
digits = torch.randn(3, 1, 8, 8)
warped, theta, grid = stn(digits)
print(torch.allclose(warped, digits, atol=1e-6), theta.grad_fn, grid.grad_fn, warped.grad_fn)

# %%
target = torch.roll(digits, shifts=1, dims=3)
stn_opt = torch.optim.SGD(stn.parameters(), lr=0.05)
for step in range(3):
    stn_opt.zero_grad()
    warped, theta, grid = stn(digits)
    stn_loss = F.mse_loss(warped, target)
    stn_loss.backward()
    stn_opt.step()
    print(step, stn_loss.item())
head_bias_grad = stn.localization[3].bias.grad
print(theta[0])

# %%
torch.random.manual_seed(5)
source = torch.randn(1, 2, 5, 5, requires_grad=True)
shift = torch.tensor([[[0.9, -0.2, 0.3], [0.1, 1.1, -0.25]]], requires_grad=True)
for padding_mode in ("zeros", "border", "reflection"):
    sampled = F.grid_sample(source, F.affine_grid(shift, (1, 2, 4, 6), align_corners=True), mode="bilinear",
                            padding_mode=padding_mode, align_corners=True)
    print(padding_mode, sampled.sum())
nearest = F.grid_sample(source, F.affine_grid(shift, (1, 2, 3, 3), align_corners=False), mode="nearest",
                        align_corners=False)
sampled.sum().backward()
shift_grad, source_grad = shift.grad, source.grad

# %%
F.grid_sample(source, torch.zeros(1, 3, 3, 1), align_corners=False)

# %%
F.affine_grid(torch.zeros(1, 3, 3), (1, 2, 4, 4), align_corners=False)
