"""A bag-of-embeddings text classifier (the torchtext tutorial's model): EmbeddingBag with
offsets and mean pooling, a Linear head, SGD with StepLR; plus nn.Embedding with padding_idx
averaged by a length mask."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=4):
    nn = torch.nn
    rng = np.random.default_rng(21)
    V, D = 30, 8
    docs = [rng.integers(1, V, rng.integers(2, 7)) for _ in range(12)]
    labels = torch.from_numpy(np.array([int(d.sum() % 3) for d in docs]))
    text = torch.from_numpy(np.concatenate(docs))
    offsets = torch.from_numpy(np.cumsum([0] + [len(d) for d in docs[:-1]]))

    class TextClassifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.EmbeddingBag(V, D, mode="mean")
            self.fc = nn.Linear(D, 3)

        def forward(self, text, offsets):
            return self.fc(self.embedding(text, offsets))

    model = init_from_numpy(torch, TextClassifier(), 21)
    opt = torch.optim.SGD(model.parameters(), lr=2.0)
    sched = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.9)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(text, offsets), labels)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())

    padded = np.zeros((len(docs), 6), dtype=np.int64)
    for i, d in enumerate(docs):
        padded[i, : len(d)] = d
    emb = init_from_numpy(torch, nn.Embedding(V, D, padding_idx=0), 22)
    with torch.no_grad():
        emb.weight[0].fill_(0)
    tokens = torch.from_numpy(padded)
    mask = (tokens != 0).float().unsqueeze(-1)
    pooled = (emb(tokens) * mask).sum(1) / mask.sum(1)
    pooled.pow(2).sum().backward()
    return {
        "losses": losses,
        "bag_grad": model.embedding.weight.grad,
        "pooled": pooled,
        "emb_grad": emb.weight.grad,
    }
