"""A CNN with BatchNorm2d, strided convolution, AdaptiveAvgPool2d and a residual
connection, trained with Adam and weight decay; running statistics after training.
Convolutions before BatchNorm have no bias, as usual: such a bias gets a zero gradient up to
rounding, which Adam's first step turns into a full step of either sign."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=3):
    nn, F = torch.nn, torch.nn.functional

    class ResBlock(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(c)
            self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(c)

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            return F.relu(x + self.bn2(self.conv2(out)))

    model = nn.Sequential(
        nn.Conv2d(2, 6, 3, stride=2, padding=1, bias=False),
        nn.BatchNorm2d(6),
        nn.ReLU(),
        ResBlock(6),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(6, 3),
    )
    init_from_numpy(torch, model, 34)
    rng = np.random.default_rng(34)
    X = torch.from_numpy(rng.standard_normal((10, 2, 10, 10)).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, 3, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-4)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(X), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    return {
        "losses": losses,
        "eval_out": model(X).detach(),
        "running_mean": model[3].bn2.running_mean,
        "running_var": model[1].running_var,
        "conv_grad": model[3].conv1.weight.grad,
    }
