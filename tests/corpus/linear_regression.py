"""Linear regression: nn.Linear, MSELoss and plain SGD, the first tutorial's loop."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=20):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 3)).astype(np.float32)
    y = (X @ np.array([[1.5], [-2.0], [0.5]]) + 0.3).astype(np.float32)
    x_t, y_t = torch.from_numpy(X), torch.from_numpy(y)

    model = init_from_numpy(torch, torch.nn.Linear(3, 1), 1)
    loss_fn = torch.nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(x_t), y_t)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses, "weight": model.weight, "bias": model.bias}
