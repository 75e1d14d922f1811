"""A 2-D Laplace PINN on a collocation grid from torch.meshgrid(indexing="ij"): second
derivatives in x and y with autograd.grad(create_graph=True), boundary loss on the edges."""

import numpy as np

from corpus._util import init_from_numpy

TOL = dict(rtol=1e-9, atol=1e-11)


def run(torch, steps=3):
    nn = torch.nn
    net = init_from_numpy(
        torch, nn.Sequential(nn.Linear(2, 12), nn.Tanh(), nn.Linear(12, 1)).double(), 47
    )
    g = torch.linspace(0, 1, 6, dtype=torch.float64)
    gx, gy = torch.meshgrid(g, g, indexing="ij")
    xy = torch.stack([gx.reshape(-1), gy.reshape(-1)], dim=1).requires_grad_(True)
    edge = ((xy[:, 0] == 0) | (xy[:, 0] == 1) | (xy[:, 1] == 0) | (xy[:, 1] == 1)).detach()
    target = torch.sin(np.pi * xy[:, 0:1].detach()) * (xy[:, 1:2].detach() == 1).double()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        u = net(xy)
        (du,) = torch.autograd.grad(u.sum(), xy, create_graph=True)
        (uxx,) = torch.autograd.grad(du[:, 0].sum(), xy, create_graph=True)
        (uyy,) = torch.autograd.grad(du[:, 1].sum(), xy, create_graph=True)
        lap = uxx[:, 0] + uyy[:, 1]
        loss = (lap[~edge] ** 2).mean() + ((u - target)[edge] ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "w": net[0].weight}
