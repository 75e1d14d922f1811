"""Adam written by hand the way optimizer tutorials write it: exp_avg with mul_ / add_,
exp_avg_sq with addcmul_, the update with addcdiv_; compared with torch.optim.Adam."""

import math

import numpy as np

TOL = dict(rtol=1e-10, atol=1e-12)


def run(torch, steps=5, lr=0.01, betas=(0.9, 0.999), eps=1e-8):
    rng = np.random.default_rng(74)
    A = torch.from_numpy(rng.standard_normal((8, 3)))
    b = torch.from_numpy(rng.standard_normal(8))
    w_init = rng.standard_normal(3)
    out = {}
    for name in ["hand", "builtin"]:
        w = torch.from_numpy(w_init.copy()).requires_grad_(True)
        exp_avg, exp_avg_sq = torch.zeros_like(w), torch.zeros_like(w)
        opt = torch.optim.Adam([w], lr=lr, betas=betas, eps=eps) if name == "builtin" else None
        for t in range(1, steps + 1):
            w.grad = None
            loss = ((A @ w - b) ** 2).mean()
            loss.backward()
            if opt is not None:
                opt.step()
                continue
            with torch.no_grad():
                g = w.grad
                exp_avg.mul_(betas[0]).add_(g, alpha=1 - betas[0])
                exp_avg_sq.mul_(betas[1]).addcmul_(g, g, value=1 - betas[1])
                bias1 = 1 - betas[0] ** t
                bias2 = 1 - betas[1] ** t
                denom = (exp_avg_sq.sqrt() / math.sqrt(bias2)).add_(eps)
                w.addcdiv_(exp_avg, denom, value=-lr / bias1)
        out[name] = w
    return out
