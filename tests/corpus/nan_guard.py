"""A training loop that guards against bad steps: a batch with a NaN feature is detected with
isnan / isfinite and skipped, the loss is checked before stepping."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=5):
    nn = torch.nn
    rng = np.random.default_rng(45)
    model = init_from_numpy(torch, nn.Linear(3, 1), 45)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses, skipped = [], []
    for i in range(steps):
        X = rng.standard_normal((10, 3)).astype(np.float32)
        if i == 2:
            X[4, 1] = np.nan
        xb = torch.from_numpy(X)
        yb = xb.sum(1, keepdim=True)
        if torch.isnan(xb).any():
            skipped.append(i)
            xb = torch.nan_to_num(xb)
            yb = torch.nan_to_num(yb)
        loss = nn.functional.mse_loss(model(xb), yb)
        if not torch.isfinite(loss):
            continue
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "skipped": skipped, "w": model.weight}
