"""A variational autoencoder: encoder to (mu, logvar), the reparameterisation trick with
noise drawn by NumPy, BCE-with-logits reconstruction and the analytic KL through
torch.distributions; then Normal.rsample's own gradients."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=4):
    nn, F = torch.nn, torch.nn.functional
    Normal, kl_divergence = torch.distributions.Normal, torch.distributions.kl_divergence

    class VAE(nn.Module):
        def __init__(self, d=12, h=16, z=2):
            super().__init__()
            self.enc = nn.Linear(d, h)
            self.mu = nn.Linear(h, z)
            self.logvar = nn.Linear(h, z)
            self.dec = nn.Sequential(nn.Linear(z, h), nn.ReLU(), nn.Linear(h, d))

        def forward(self, x, eps):
            h = F.relu(self.enc(x))
            mu, logvar = self.mu(h), self.logvar(h)
            std = torch.exp(0.5 * logvar)
            return self.dec(mu + eps * std), mu, std

    rng = np.random.default_rng(9)
    x = torch.from_numpy((rng.uniform(size=(20, 12)) > 0.5).astype(np.float32))
    model = init_from_numpy(torch, VAE(), 9)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        eps = torch.from_numpy(rng.standard_normal((20, 2)).astype(np.float32))
        recon, mu, std = model(x, eps)
        bce = F.binary_cross_entropy_with_logits(recon, x, reduction="sum")
        kl = kl_divergence(Normal(mu, std), Normal(torch.zeros_like(mu), torch.ones_like(std)))
        loss = (bce + kl.sum()) / x.shape[0]
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())

    # rsample is differentiable: d z / d loc = 1, d z / d scale = (z - loc) / scale
    loc = torch.tensor([0.5, -1.0], requires_grad=True)
    scale = torch.tensor([2.0, 0.5], requires_grad=True)
    z = Normal(loc, scale).rsample((1000,))
    z.sum().backward()
    eps_sum = ((z - loc) / scale).detach().sum(0)
    rsample_ok = bool(
        torch.allclose(loc.grad, torch.full((2,), 1000.0))
        and torch.allclose(scale.grad, eps_sum, atol=1e-3)
    )
    return {"losses": losses, "mu_grad": model.mu.weight.grad, "rsample_grads_ok": rsample_ok}
