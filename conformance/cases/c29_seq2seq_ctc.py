# Lessons in the style of PyTorch's "Language translation with nn.Transformer", the
# annotated transformer and d2l's seq2seq chapter, then speech recognition with CTC: the
# causal and padding masks, a tiny nn.Transformer translation model trained for a few
# seeded Adam steps (its loss going down), greedy decoding, and the CTC loss with its
# gradient. Seeds are set with torch.random.manual_seed, which record.py does not shift:
# the values drawn after them are compared too. The transformer has bias=False: the key
# projection's bias has a gradient of exactly zero in exact arithmetic, and Adam turns the
# rounding noise left there (matmul's last bits, which numpy's BLAS and PyTorch's MKL order
# differently) into steps of the full learning rate; for the same reason the cells print
# rounded numbers and leave full tensors to the tensor checks (rtol 1e-4).
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# %%
mask = nn.Transformer.generate_square_subsequent_mask(4)
print(mask)
print(nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.bool))
PAD_IDX, BOS_IDX, EOS_IDX = 1, 2, 3
src = torch.tensor([[2, 5, 6, 7, 3], [2, 8, 9, 3, 1]]).T
tgt = torch.tensor([[2, 10, 11, 12, 3], [2, 13, 3, 1, 1]]).T
src_padding_mask = (src == PAD_IDX).transpose(0, 1)
tgt_padding_mask = (tgt[:-1, :] == PAD_IDX).transpose(0, 1)
print(src.shape, src_padding_mask, tgt_padding_mask)
mask, src_padding_mask


# %%
class PositionalEncoding(nn.Module):
    def __init__(self, emb_size, dropout, maxlen=50):
        super().__init__()
        den = torch.exp(-torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('pos_embedding', pos_embedding.unsqueeze(-2))

    def forward(self, token_embedding):
        return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])


class Seq2SeqTransformer(nn.Module):
    def __init__(self, emb_size, nhead, src_vocab, tgt_vocab, dim_feedforward, dropout=0.0):
        super().__init__()
        self.transformer = nn.Transformer(d_model=emb_size, nhead=nhead, num_encoder_layers=1,
                                          num_decoder_layers=1, dim_feedforward=dim_feedforward, dropout=dropout,
                                          bias=False)
        self.generator = nn.Linear(emb_size, tgt_vocab)
        self.src_tok_emb = nn.Embedding(src_vocab, emb_size)
        self.tgt_tok_emb = nn.Embedding(tgt_vocab, emb_size)
        self.positional_encoding = PositionalEncoding(emb_size, dropout=dropout)
        self.emb_size = emb_size

    def embed(self, table, tokens):
        return self.positional_encoding(table(tokens.long()) * math.sqrt(self.emb_size))

    def forward(self, src, trg, tgt_mask, src_padding_mask, tgt_padding_mask):
        outs = self.transformer(self.embed(self.src_tok_emb, src), self.embed(self.tgt_tok_emb, trg), None, tgt_mask,
                                None, src_padding_mask, tgt_padding_mask, src_padding_mask)
        return self.generator(outs)

    def encode(self, src):
        return self.transformer.encoder(self.embed(self.src_tok_emb, src))

    def decode(self, tgt, memory, tgt_mask):
        return self.transformer.decoder(self.embed(self.tgt_tok_emb, tgt), memory, tgt_mask)


torch.random.manual_seed(0)
model = Seq2SeqTransformer(8, 2, 10, 14, 16)
for p in model.parameters():
    if p.dim() > 1:
        nn.init.xavier_uniform_(p)
print(model.transformer.decoder.layers[0])
print(len(model.state_dict()), list(model.state_dict())[:4])
print(sum(p.numel() for p in model.parameters()))
w = model.transformer.decoder.layers[0].multihead_attn.in_proj_weight
w

# %%
loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_IDX)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.9, 0.98), eps=1e-9)
tgt_input, tgt_out = tgt[:-1, :], tgt[1:, :]
tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt_input.size(0))
model.train()
losses = []
for step in range(4):
    logits = model(src, tgt_input, tgt_mask, src_padding_mask, tgt_padding_mask)
    optimizer.zero_grad()
    loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
    loss.backward()
    optimizer.step()
    losses.append(round(loss.item(), 3))
print(losses, losses[-1] < losses[0])
print(logits.shape, logits.grad_fn, loss.grad_fn)
loss

# %%
def greedy_decode(model, src, max_len, start_symbol):
    memory = model.encode(src)
    ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long)
    for i in range(max_len - 1):
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(ys.size(0)).type(torch.bool)
        out = model.decode(ys, memory, tgt_mask)
        prob = model.generator(out[-1])
        _, next_word = torch.max(prob, dim=1)
        next_word = next_word.item()
        ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
        if next_word == EOS_IDX:
            break
    return ys


model.eval()
with torch.no_grad():
    ys = greedy_decode(model, src[:, :1], max_len=6, start_symbol=BOS_IDX)
    memory = model.encode(src[:, :1])
print(ys.flatten().tolist(), memory.requires_grad, memory.shape)
ys

# %%
torch.random.manual_seed(0)
T, N, C, S = 12, 3, 6, 4
log_probs = torch.randn(T, N, C).log_softmax(2).detach().requires_grad_()
targets = torch.randint(1, C, (N, S), dtype=torch.long)
input_lengths = torch.full((N,), T, dtype=torch.long)
target_lengths = torch.randint(1, S + 1, (N,), dtype=torch.long)
ctc_loss = nn.CTCLoss()
loss = ctc_loss(log_probs, targets, input_lengths, target_lengths)
loss.backward()
print(ctc_loss, loss, loss.grad_fn, loss.grad_fn.next_functions[0][0].next_functions)
g = log_probs.grad
print(g.sum(dim=2).abs().max() < 1e-5)
loss, g

# %%
torch.random.manual_seed(1)
lp = torch.randn(8, 2, 5, dtype=torch.float64).log_softmax(2).requires_grad_()
flat_targets = torch.tensor([1, 2, 2, 3, 4, 4, 4])
per_sample = F.ctc_loss(lp, flat_targets, (8, 3), (3, 4), blank=0, reduction='none', zero_infinity=True)
total = F.ctc_loss(lp, flat_targets, (8, 3), (3, 4), reduction='sum')
print(per_sample, total, per_sample.grad_fn)
per_sample.sum().backward()
lp.grad[:, 1].abs().sum(), per_sample

# %%
nn.Transformer(8, 2, 1, 1, 16)(torch.zeros(5, 2, 8), torch.zeros(4, 3, 8))

# %%
F.ctc_loss(torch.zeros(5, 2, 4), torch.tensor([[1, 2], [3, 3]]), [5, 6], [2, 2])
