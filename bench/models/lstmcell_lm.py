"""A language model stepping an nn.LSTMCell by hand over 40 tokens (random weights): one
cell module called 40 times, its steps folded in the picture."""
import torch
from torch import nn

from _common import Model, main


class StepwiseLM(nn.Module):
    def __init__(self, vocab=200, width=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.cell = nn.LSTMCell(width, width)
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens):
        h = c = torch.zeros(tokens.shape[0], self.cell.hidden_size)
        logits = []
        for t in range(tokens.shape[1]):
            h, c = self.cell(self.embed(tokens[:, t]), (h, c))
            logits.append(self.head(h))
        return torch.stack(logits, 1)


def build():
    torch.manual_seed(0)
    return Model("LSTMCell language model, 40 steps", StepwiseLM(), (torch.randint(0, 200, (4, 40)),),
                 lambda out: out.logsumexp(-1).mean())


if __name__ == "__main__":
    main(build)
