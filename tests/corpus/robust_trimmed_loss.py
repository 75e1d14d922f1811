"""A robust regression loss: per-sample errors sorted, the largest 20% trimmed, the rest
averaged (gradients flow through sort's values only to the kept samples); median residual."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=5):
    nn = torch.nn
    rng = np.random.default_rng(49)
    X = rng.standard_normal((40, 2)).astype(np.float32)
    y = (X @ np.array([2.0, -1.0]) + 0.1 * rng.standard_normal(40)).astype(np.float32)
    y[:6] += 20  # outliers
    xt, yt = torch.from_numpy(X), torch.from_numpy(y).unsqueeze(1)
    model = init_from_numpy(torch, nn.Linear(2, 1), 49)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        err = ((model(xt) - yt) ** 2).squeeze(1)
        kept, _ = torch.sort(err)
        loss = kept[: int(0.8 * len(kept))].mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        med = (model(xt) - yt).abs().median()
    return {"losses": losses, "w": model.weight, "median_residual": med}
