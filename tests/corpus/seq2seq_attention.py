"""An encoder-decoder with additive (Bahdanau) attention, teacher forcing, bmm for the
context vectors, and the attention weights returned; GRU encoder, GRUCell decoder."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=2):
    nn, F = torch.nn, torch.nn.functional
    V, E, Hd, S, T = 9, 6, 10, 5, 4

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.src_emb = nn.Embedding(V, E)
            self.tgt_emb = nn.Embedding(V, E)
            self.encoder = nn.GRU(E, Hd, batch_first=True, bidirectional=True)
            self.bridge = nn.Linear(2 * Hd, Hd)
            self.W_enc = nn.Linear(2 * Hd, Hd, bias=False)
            self.W_dec = nn.Linear(Hd, Hd)
            self.v = nn.Linear(Hd, 1, bias=False)
            self.cell = nn.GRUCell(E + 2 * Hd, Hd)
            self.out = nn.Linear(Hd, V)

        def forward(self, src, tgt_in):
            enc, _ = self.encoder(self.src_emb(src))
            h = torch.tanh(self.bridge(enc.mean(1)))
            keys = self.W_enc(enc)
            logits, weights = [], []
            for t in range(tgt_in.size(1)):
                score = self.v(torch.tanh(keys + self.W_dec(h).unsqueeze(1))).squeeze(2)
                a = F.softmax(score, dim=1)
                context = torch.bmm(a.unsqueeze(1), enc).squeeze(1)
                h = self.cell(torch.cat([self.tgt_emb(tgt_in[:, t]), context], dim=1), h)
                logits.append(self.out(h))
                weights.append(a)
            return torch.stack(logits, 1), torch.stack(weights, 1)

    rng = np.random.default_rng(53)
    src = torch.from_numpy(rng.integers(1, V, (3, S)))
    tgt = torch.from_numpy(rng.integers(1, V, (3, T + 1)))
    model = init_from_numpy(torch, Seq2Seq(), 53)
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    losses = []
    for _ in range(steps):
        logits, attn = model(src, tgt[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, V), tgt[:, 1:].reshape(-1), ignore_index=0)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "attn": attn, "enc_grad": model.encoder.weight_hh_l0_reverse.grad}
