"""Differentiable simulation: a damped spring stepped 60 times with semi-implicit Euler in
float64, the stiffness and damping fitted to observed positions (many tiny ops per step)."""

import numpy as np

TOL = dict(rtol=1e-9, atol=1e-11)


def simulate(torch, k, c, steps, dt=0.05):
    x = torch.tensor(1.0, dtype=torch.float64)
    v = torch.tensor(0.0, dtype=torch.float64)
    xs = []
    for _ in range(steps):
        a = -k * x - c * v
        v = v + dt * a
        x = x + dt * v
        xs.append(x)
    return torch.stack(xs)


def run(torch, iters=6, steps=60):
    true = simulate(
        torch, torch.tensor(4.0, dtype=torch.float64), torch.tensor(0.3, dtype=torch.float64), steps
    )
    observed = true + torch.from_numpy(np.random.default_rng(39).normal(0, 0.01, steps))
    log_k = torch.tensor(np.log(2.0), dtype=torch.float64, requires_grad=True)
    c = torch.tensor(0.1, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([log_k, c], lr=0.05)
    losses = []
    for _ in range(iters):
        opt.zero_grad()
        loss = ((simulate(torch, log_k.exp(), c, steps) - observed) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "k": log_k.exp(), "c": c, "c_grad": c.grad}
