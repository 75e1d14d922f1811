"""Metric learning: a shared embedding network applied to anchors, positives and negatives,
TripletMarginLoss and CosineEmbeddingLoss, pairwise_distance for evaluation."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=3):
    nn, F = torch.nn, torch.nn.functional
    rng = np.random.default_rng(61)
    net = init_from_numpy(torch, nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3)), 61)
    triplet = nn.TripletMarginLoss(margin=1.0, p=2)
    cosine = nn.CosineEmbeddingLoss(margin=0.2)
    opt = torch.optim.Adagrad(net.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        a = rng.standard_normal((12, 5)).astype(np.float32)
        p = a + 0.1 * rng.standard_normal((12, 5)).astype(np.float32)
        n = rng.standard_normal((12, 5)).astype(np.float32)
        ea, ep, en = (net(torch.from_numpy(v)) for v in (a, p, n))
        target = torch.from_numpy(np.where(np.arange(12) % 2 == 0, 1.0, -1.0).astype(np.float32))
        other = torch.where(target.unsqueeze(1) > 0, ep, en)
        loss = triplet(ea, ep, en) + 0.5 * cosine(ea, other, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        d = F.pairwise_distance(ea, ep)
    return {"losses": losses, "dist": d, "w": net[2].weight}
