"""A DDPM training step on 2-D points: a linear beta schedule, alphas_cumprod by cumprod,
q(x_t | x_0) with NumPy noise, a time-embedded MLP predicting the noise, MSE loss."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=4, T=50):
    nn = torch.nn
    betas = torch.linspace(1e-4, 0.02, T)
    alphas = 1.0 - betas
    alphas_cumprod = torch.cumprod(alphas, dim=0)
    sqrt_ab, sqrt_1m_ab = alphas_cumprod.sqrt(), (1 - alphas_cumprod).sqrt()

    class Denoiser(nn.Module):
        def __init__(self):
            super().__init__()
            self.t_emb = nn.Embedding(T, 8)
            self.net = nn.Sequential(nn.Linear(2 + 8, 32), nn.SiLU(), nn.Linear(32, 2))

        def forward(self, x, t):
            return self.net(torch.cat([x, self.t_emb(t)], dim=1))

    model = init_from_numpy(torch, Denoiser(), 42)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(42)
    losses = []
    for _ in range(steps):
        angle = rng.uniform(0, 2 * np.pi, 32)
        x0 = torch.from_numpy(np.stack([np.cos(angle), np.sin(angle)], 1).astype(np.float32))
        t = torch.from_numpy(rng.integers(0, T, 32))
        noise = torch.from_numpy(rng.standard_normal((32, 2)).astype(np.float32))
        xt = sqrt_ab[t].unsqueeze(1) * x0 + sqrt_1m_ab[t].unsqueeze(1) * noise
        loss = nn.functional.mse_loss(model(xt, t), noise)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {
        "losses": losses,
        "alphas_cumprod": alphas_cumprod,
        "t_emb_grad": model.t_emb.weight.grad,
    }
