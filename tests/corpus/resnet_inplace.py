"""A ResNet BasicBlock as torchvision writes it: ReLU(inplace=True) and the in-place residual
`out += identity` on a non-leaf, a 1x1 strided downsample, trained two steps."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=2):
    nn = torch.nn

    class BasicBlock(nn.Module):
        def __init__(self, inplanes, planes, stride=1):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride=stride, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = None
            if stride != 1 or inplanes != planes:
                self.downsample = nn.Sequential(
                    nn.Conv2d(inplanes, planes, 1, stride=stride, bias=False),
                    nn.BatchNorm2d(planes),
                )

        def forward(self, x):
            identity = x
            out = self.conv1(x)
            out = self.bn1(out)
            out = self.relu(out)
            out = self.conv2(out)
            out = self.bn2(out)
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            out = self.relu(out)
            return out

    net = nn.Sequential(
        BasicBlock(3, 4, stride=2),
        BasicBlock(4, 4),
        nn.AdaptiveAvgPool2d((1, 1)),
        nn.Flatten(),
        nn.Linear(4, 2),
    )
    init_from_numpy(torch, net, 50)
    rng = np.random.default_rng(50)
    x = torch.from_numpy(rng.standard_normal((6, 3, 8, 8)).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, 2, 6))
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {
        "losses": losses,
        "down_grad": net[0].downsample[0].weight.grad,
        "conv2_grad": net[1].conv2.weight.grad,
    }
