"""An LSTM language model (embedding, 2-layer nn.LSTM, head), random weights."""
import torch
from torch import nn

from _common import Model, main


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab=500, width=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.lstm = nn.LSTM(width, width, num_layers=2, batch_first=True)
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens):
        hidden, _ = self.lstm(self.embed(tokens))
        return self.head(hidden)


def build():
    torch.manual_seed(0)
    tokens = torch.randint(0, 500, (4, 20))
    return Model("LSTM language model", LSTMLanguageModel(), (tokens,), lambda out: out.logsumexp(-1).mean())


if __name__ == "__main__":
    main(build)
