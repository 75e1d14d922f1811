"""A small CNN (Conv2d, ReLU, MaxPool2d, Conv2d, Flatten, Linear) on 8x8 images, trained
with SGD and momentum; eval() for the accuracy."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=5):
    nn = torch.nn
    rng = np.random.default_rng(5)
    X = rng.standard_normal((32, 1, 8, 8)).astype(np.float32)
    y = (X[:, 0, :4].sum((1, 2)) > X[:, 0, 4:].sum((1, 2))).astype(np.int64)
    xt, yt = torch.from_numpy(X), torch.from_numpy(y)

    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 8, 3),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(8 * 2 * 2, 2),
    )
    init_from_numpy(torch, model, 5)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(xt), yt)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        acc = (model(xt).argmax(dim=1) == yt).float().mean().item()
    return {
        "losses": losses,
        "acc": acc,
        "conv1": model[0].weight,
        "conv2_grad": model[3].weight.grad,
    }
