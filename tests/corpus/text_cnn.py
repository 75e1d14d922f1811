"""Kim's CNN for sentence classification: embeddings permuted to (N, C, L), parallel Conv1d
branches of widths 2, 3 and 4, max over time, concatenation, Dropout (evaluated in eval
mode), and a Linear head trained with Adadelta."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=3):
    nn, F = torch.nn, torch.nn.functional

    class TextCNN(nn.Module):
        def __init__(self, vocab=20, dim=6, filters=4, widths=(2, 3, 4), classes=2):
            super().__init__()
            self.embedding = nn.Embedding(vocab, dim, padding_idx=0)
            self.convs = nn.ModuleList([nn.Conv1d(dim, filters, w) for w in widths])
            self.dropout = nn.Dropout(0.5)
            self.fc = nn.Linear(filters * len(widths), classes)

        def forward(self, tokens):
            x = self.embedding(tokens).permute(0, 2, 1)
            pooled = [F.relu(conv(x)).max(dim=2).values for conv in self.convs]
            return self.fc(self.dropout(torch.cat(pooled, dim=1)))

    rng = np.random.default_rng(76)
    tokens = torch.from_numpy(rng.integers(0, 20, (6, 9)))
    labels = torch.from_numpy(rng.integers(0, 2, 6))
    model = init_from_numpy(torch, TextCNN(), 76)
    model.dropout.p = 0.0  # deterministic training; eval mode below is the identity anyway
    opt = torch.optim.Adadelta(model.parameters(), lr=1.0)
    losses = []
    for _ in range(steps):
        loss = F.cross_entropy(model(tokens), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    model.dropout.p = 0.5
    with torch.no_grad():
        probs = F.softmax(model(tokens), dim=1)
    return {
        "losses": losses,
        "probs": probs,
        "conv_grad": model.convs[1].weight.grad,
        "emb_pad_grad": model.embedding.weight.grad[0],
    }
