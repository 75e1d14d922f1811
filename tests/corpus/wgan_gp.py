"""WGAN-GP: critic steps with the gradient penalty (autograd.grad of the critic at
interpolates, create_graph=True), then a generator step; Adam with betas=(0.5, 0.9).
In float64: in float32, Adam's first steps (about lr * sign(grad)) turn rounding
differences in near-zero gradients into differences of 5e-4 in the losses."""

import numpy as np

from corpus._util import init_from_numpy

TOL = dict(rtol=1e-9, atol=1e-11)


def run(torch, iters=3, n_critic=2):
    nn = torch.nn
    rng = np.random.default_rng(10)
    G = init_from_numpy(
        torch, nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2)).double(), 10
    )
    D = init_from_numpy(
        torch, nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1)).double(), 11
    )
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))

    def batch(*shape):
        return torch.from_numpy(rng.standard_normal(shape).astype(np.float64))

    d_losses, g_losses, penalties = [], [], []
    for _ in range(iters):
        for _ in range(n_critic):
            real = batch(16, 2) * 0.5 + 2.0
            fake = G(batch(16, 2)).detach()
            alpha = torch.from_numpy(rng.uniform(size=(16, 1)).astype(np.float64))
            interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
            d_interp = D(interp)
            grads = torch.autograd.grad(
                outputs=d_interp,
                inputs=interp,
                grad_outputs=torch.ones_like(d_interp),
                create_graph=True,
                retain_graph=True,
            )[0]
            gp = ((grads.norm(2, dim=1) - 1) ** 2).mean()
            d_loss = D(fake).mean() - D(real).mean() + 10 * gp
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            d_losses.append(d_loss.item())
            penalties.append(gp.item())
        for p in D.parameters():
            p.requires_grad_(False)
        g_loss = -D(G(batch(16, 2))).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        for p in D.parameters():
            p.requires_grad_(True)
        g_losses.append(g_loss.item())
    return {
        "d": d_losses,
        "g": g_losses,
        "gp": penalties,
        "G0": G[0].weight,
        "D_grad": D[0].weight.grad,
    }
