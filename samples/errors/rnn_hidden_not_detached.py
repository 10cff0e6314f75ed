# gradviz explain sample: rnn_hidden_not_detached
import torch
cell = torch.nn.RNNCell(3, 6)
hidden = torch.zeros(2, 6)
for step in range(3):
    hidden = cell(torch.randn(2, 3), hidden)   # keeps last step's graph alive
    loss = hidden.sum()
    loss.backward()
