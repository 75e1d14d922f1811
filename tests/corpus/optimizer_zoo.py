"""Every common optimizer on the same float64 problem for a few steps, with the options
users set: Adam(amsgrad, weight_decay), AdamW, SGD(nesterov, dampening, maximize), RMSprop
(centered, momentum), Adagrad(lr_decay), Adadelta, Adamax, NAdam, RAdam."""

import numpy as np

TOL = dict(rtol=1e-10, atol=1e-12)


def run(torch, steps=5):
    optim = torch.optim
    rng = np.random.default_rng(65)
    A = rng.standard_normal((6, 4))
    b = rng.standard_normal(6)
    configs = {
        "adam_amsgrad": lambda p: optim.Adam(p, lr=0.05, amsgrad=True, weight_decay=0.01),
        "adamw": lambda p: optim.AdamW(p, lr=0.05, betas=(0.8, 0.99), weight_decay=0.1),
        "sgd_nesterov": lambda p: optim.SGD(p, lr=0.02, momentum=0.9, nesterov=True),
        "sgd_dampening": lambda p: optim.SGD(
            p, lr=0.02, momentum=0.5, dampening=0.3, weight_decay=0.01
        ),
        "sgd_maximize": lambda p: optim.SGD(p, lr=0.01, maximize=True),
        "rmsprop": lambda p: optim.RMSprop(p, lr=0.01, alpha=0.9, momentum=0.3, centered=True),
        "adagrad": lambda p: optim.Adagrad(p, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1),
        "adadelta": lambda p: optim.Adadelta(p, lr=1.0, rho=0.8),
        "adamax": lambda p: optim.Adamax(p, lr=0.05),
        "nadam": lambda p: optim.NAdam(p, lr=0.05, momentum_decay=0.004),
        "radam": lambda p: optim.RAdam(p, lr=0.05, decoupled_weight_decay=True, weight_decay=0.1),
    }
    out = {}
    for name, make in configs.items():
        w = torch.zeros(4, dtype=torch.float64, requires_grad=True)
        opt = make([w])
        At, bt = torch.from_numpy(A), torch.from_numpy(b)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            r = At @ w - bt
            loss = (r**2).mean() + 0.1 * torch.cosh(w).sum()
            if name == "sgd_maximize":
                loss = -loss
            loss.backward()
            opt.step()
            losses.append(loss.item())
        out[name] = {"losses": losses, "w": w}
    return out
