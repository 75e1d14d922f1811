"""Autoregressive features by shifting a series with torch.roll, a linear AR(3) model fitted
with Adam, and a seasonal difference; the first lags (wrapped by roll) are dropped."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=6):
    nn = torch.nn
    rng = np.random.default_rng(48)
    t = np.arange(80)
    series = torch.from_numpy((np.sin(t / 5) + 0.1 * rng.standard_normal(80)).astype(np.float32))
    lags = torch.stack([torch.roll(series, k) for k in (1, 2, 3)], dim=1)[3:]
    target = series[3:].unsqueeze(1)
    model = init_from_numpy(torch, nn.Linear(3, 1), 48)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(lags), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    seasonal = series - torch.roll(series, shifts=10, dims=0)
    return {"losses": losses, "coef": model.weight, "seasonal": seasonal[10:]}
