"""Maximum likelihood with torch.distributions: fit a Normal (loc, log-scale) and a
two-component Gaussian mixture (logsumexp over components) by gradient descent in float64."""

import numpy as np

TOL = dict(rtol=1e-9, atol=1e-11)


def run(torch, steps=15):
    D = torch.distributions
    rng = np.random.default_rng(38)
    data = torch.from_numpy(np.concatenate([rng.normal(-2, 0.5, 60), rng.normal(1.5, 1.0, 40)]))

    loc = torch.zeros((), dtype=torch.float64, requires_grad=True)
    log_scale = torch.zeros((), dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([loc, log_scale], lr=0.1)
    nll_normal = []
    for _ in range(steps):
        nll = -D.Normal(loc, log_scale.exp()).log_prob(data).mean()
        opt.zero_grad()
        nll.backward()
        opt.step()
        nll_normal.append(nll.item())

    means = torch.tensor([-1.0, 1.0], dtype=torch.float64, requires_grad=True)
    log_sd = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    logits = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([means, log_sd, logits], lr=0.05)
    nll_mix = []
    for _ in range(steps):
        comp = D.Normal(means, log_sd.exp()).log_prob(data.unsqueeze(-1))
        ll = torch.logsumexp(comp + torch.log_softmax(logits, dim=0), dim=-1)
        loss = -ll.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        nll_mix.append(loss.item())
    return {
        "normal": nll_normal,
        "loc": loc,
        "scale": log_scale.exp(),
        "mixture": nll_mix,
        "means": means,
        "weights": torch.softmax(logits, 0),
    }
