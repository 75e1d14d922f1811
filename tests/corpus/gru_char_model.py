"""A character-level GRU language model with truncated backpropagation through time: the
hidden state is carried across chunks and detached; Embedding, GRU, Linear, RMSprop."""

import numpy as np

from corpus._util import init_from_numpy

TEXT = "the quick brown fox jumps over the lazy dog. " * 3


def run(torch, chunks=4, T=8):
    nn = torch.nn
    vocab = sorted(set(TEXT))
    ids = np.array([vocab.index(c) for c in TEXT])

    class CharGRU(nn.Module):
        def __init__(self, V, E=6, H=12):
            super().__init__()
            self.emb = nn.Embedding(V, E)
            self.rnn = nn.GRU(E, H, batch_first=True)
            self.out = nn.Linear(H, V)

        def forward(self, x, h=None):
            y, h = self.rnn(self.emb(x), h)
            return self.out(y), h

    model = init_from_numpy(torch, CharGRU(len(vocab)), 23)
    opt = torch.optim.RMSprop(model.parameters(), lr=5e-3)
    h, losses = None, []
    for i in range(chunks):
        seg = ids[i * T : i * T + T + 1]
        x = torch.from_numpy(seg[:-1]).unsqueeze(0)
        y = torch.from_numpy(seg[1:]).unsqueeze(0)
        if h is not None:
            h = h.detach()
        logits, h = model(x, h)
        loss = nn.functional.cross_entropy(logits.view(-1, len(vocab)), y.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "h": h, "w_ih": model.rnn.weight_ih_l0}
