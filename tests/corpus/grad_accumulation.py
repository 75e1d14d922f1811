"""Gradient accumulation: four micro-batches with loss / 4 accumulate into .grad exactly as
one full batch would; then retain_graph to backward the same graph twice."""

import numpy as np

from corpus._util import init_from_numpy

TOL = dict(rtol=1e-10, atol=1e-12)


def run(torch):
    nn = torch.nn
    rng = np.random.default_rng(27)
    X = torch.from_numpy(rng.standard_normal((32, 5)))
    y = torch.from_numpy(rng.standard_normal((32, 1)))
    model = init_from_numpy(
        torch, nn.Sequential(nn.Linear(5, 7), nn.SiLU(), nn.Linear(7, 1)).double(), 27
    )
    for xb, yb in zip(X.chunk(4), y.chunk(4)):
        (nn.functional.mse_loss(model(xb), yb) / 4).backward()
    accumulated = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    nn.functional.mse_loss(model(X), y).backward()
    full = [p.grad.clone() for p in model.parameters()]

    model.zero_grad()
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward(retain_graph=True)
    loss.backward()
    twice = model[0].weight.grad
    return {
        "accumulated": accumulated,
        "full": full,
        "equal": all(torch.allclose(a, f) for a, f in zip(accumulated, full)),
        "twice": twice,
        "doubled": bool(torch.allclose(twice, 2 * full[0])),
    }
