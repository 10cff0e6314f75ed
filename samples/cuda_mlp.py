# A small MLP trained one step on the GPU when there is one (the CPU otherwise), for
# `gradviz run --engine torch`: its tensors live on `device`, and --memory counts the CUDA
# storages its graph saves. bench/cuda_check.py runs it. Run it with:
#   gradviz run samples/cuda_mlp.py --engine torch --memory --graph mlp.svg
import torch
import torch.nn as nn

# %% the model and the data, moved to the GPU
device = "cuda" if torch.cuda.is_available() else "cpu"
print("device:", device)
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 4)).to(device)
x = torch.randn(16, 32, device=device)
target = torch.randn(16, 4, device=device)

# %% forward and backward
out = net(x)
loss = nn.functional.mse_loss(out, target)
loss.backward()
print("loss on", loss.device.type, round(loss.item(), 4))

# %% one step
opt = torch.optim.SGD(net.parameters(), lr=0.1)
opt.step()
