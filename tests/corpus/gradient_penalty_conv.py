"""A gradient penalty through a convolutional critic (Conv2d, LeakyReLU, strided Conv2d,
GroupNorm, AvgPool2d, Linear): double backward through every layer, in float64, as in
WGAN-GP on images and R1 regularisation."""

import numpy as np

from corpus._util import init_from_numpy

TOL = dict(rtol=1e-9, atol=1e-11)


def run(torch, steps=2):
    nn = torch.nn
    critic = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.LeakyReLU(0.2),
        nn.Conv2d(4, 8, 3, stride=2, padding=1),
        nn.GroupNorm(2, 8),
        nn.LeakyReLU(0.2),
        nn.AvgPool2d(2),
        nn.Flatten(),
        nn.Linear(8 * 2 * 2, 1),
    ).double()
    init_from_numpy(torch, critic, 80)
    rng = np.random.default_rng(80)
    opt = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.0, 0.9))
    losses, penalties = [], []
    for _ in range(steps):
        real = torch.from_numpy(rng.standard_normal((4, 1, 8, 8)))
        fake = torch.from_numpy(rng.standard_normal((4, 1, 8, 8)) * 0.5)
        eps = torch.from_numpy(rng.uniform(size=(4, 1, 1, 1)))
        x_hat = (eps * real + (1 - eps) * fake).requires_grad_(True)
        (grad,) = torch.autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)
        gp = ((grad.flatten(1).norm(dim=1) - 1) ** 2).mean()
        loss = critic(fake).mean() - critic(real).mean() + 10 * gp
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        penalties.append(gp.item())
    return {
        "losses": losses,
        "gp": penalties,
        "conv_grad": critic[2].weight.grad,
        "gn_grad": critic[3].bias.grad,
    }
