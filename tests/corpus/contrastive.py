"""A SimCLR-style contrastive loss: two noisy views, L2-normalised projections, a cosine
similarity matrix with the diagonal masked out, cross-entropy against the positive pair."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=3, temperature=0.5):
    nn, F = torch.nn, torch.nn.functional
    rng = np.random.default_rng(37)
    base = rng.standard_normal((8, 10)).astype(np.float32)
    encoder = init_from_numpy(
        torch, nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 4)), 37
    )
    opt = torch.optim.SGD(encoder.parameters(), lr=0.1, momentum=0.9)
    n = base.shape[0]
    labels = torch.cat([torch.arange(n) + n, torch.arange(n)])
    eye = torch.eye(2 * n, dtype=torch.bool)
    losses = []
    for _ in range(steps):
        v1 = torch.from_numpy(base + 0.1 * rng.standard_normal(base.shape).astype(np.float32))
        v2 = torch.from_numpy(base + 0.1 * rng.standard_normal(base.shape).astype(np.float32))
        z = F.normalize(encoder(torch.cat([v1, v2])), dim=1)
        sim = z @ z.T / temperature
        sim = sim.masked_fill(eye, -1e9)
        loss = F.cross_entropy(sim, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    cos = F.cosine_similarity(z[:n], z[n:], dim=1)
    return {"losses": losses, "cos": cos, "w": encoder[2].weight}
