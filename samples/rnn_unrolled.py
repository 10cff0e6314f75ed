# An RNN cell unrolled over a sequence: the same weights at every step. Big enough that
# the picture folds the repeated steps ("×13 repeated blocks") to stay readable:
#   gradviz run samples/rnn_unrolled.py --graph rnn.png
#   gradviz run samples/rnn_unrolled.py --tree -- 60     # 60 steps, same short tree
import sys

import torch

torch.manual_seed(0)
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 15
W_xh = torch.randn(4, 8, requires_grad=True)
W_hh = torch.randn(8, 8, requires_grad=True)
b = torch.zeros(8, requires_grad=True)
xs = torch.randn(steps, 4)
h = torch.zeros(1, 8)
for t in range(steps):
    h = torch.tanh(xs[t:t + 1] @ W_xh + h @ W_hh + b)
loss = h.pow(2).sum()
loss.backward()
print(f"loss {loss.item():.4f} after {steps} steps")
