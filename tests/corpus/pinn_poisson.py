"""A physics-informed network for u'' = -pi^2 sin(pi x) on [0, 1], u(0) = u(1) = 0: the
residual needs d2u/dx2, taken with autograd.grad(create_graph=True) twice."""

import math

import numpy as np

from corpus._util import init_from_numpy

TOL = dict(rtol=1e-9, atol=1e-11)


def run(torch, steps=5):
    nn = torch.nn
    torch.set_default_dtype(torch.float64)
    try:
        net = nn.Sequential(
            nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1)
        )
    finally:
        torch.set_default_dtype(torch.float32)
    init_from_numpy(torch, net, 7)
    x = torch.from_numpy(np.linspace(0, 1, 25)[:, None]).requires_grad_(True)
    xb = torch.tensor([[0.0], [1.0]], dtype=torch.float64)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        u = net(x)
        du = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
        d2u = torch.autograd.grad(du, x, torch.ones_like(du), create_graph=True)[0]
        residual = d2u + math.pi**2 * torch.sin(math.pi * x)
        loss = (residual**2).mean() + (net(xb) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "du": du, "w0_grad": net[0].weight.grad, "w2": net[4].weight}
