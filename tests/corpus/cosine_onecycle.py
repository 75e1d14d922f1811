"""Learning-rate schedules in a loop: Adam under CosineAnnealingLR, SGD under OneCycleLR
(momentum cycled too), AdamW under LinearLR warm-up chained with ExponentialLR."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=8):
    nn = torch.nn
    sched_mod = torch.optim.lr_scheduler
    rng = np.random.default_rng(15)
    X = torch.from_numpy(rng.standard_normal((24, 4)).astype(np.float32))
    y = torch.from_numpy(rng.standard_normal((24, 1)).astype(np.float32))
    out = {}
    for kind in ["cosine", "onecycle", "warmup"]:
        model = init_from_numpy(torch, nn.Linear(4, 1), 15)
        if kind == "cosine":
            opt = torch.optim.Adam(model.parameters(), lr=0.1)
            sched = sched_mod.CosineAnnealingLR(opt, T_max=steps, eta_min=1e-3)
        elif kind == "onecycle":
            opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            sched = sched_mod.OneCycleLR(opt, max_lr=0.2, total_steps=steps)
        else:
            opt = torch.optim.AdamW(model.parameters(), lr=0.05)
            warm = sched_mod.LinearLR(opt, start_factor=0.1, total_iters=3)
            decay = sched_mod.ExponentialLR(opt, gamma=0.9)
            sched = sched_mod.SequentialLR(opt, [warm, decay], milestones=[3])
        lrs, losses = [], []
        for _ in range(steps):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(X), y)
            loss.backward()
            opt.step()
            sched.step()
            lrs.append(opt.param_groups[0]["lr"])
            losses.append(loss.item())
        out[kind] = {"lrs": lrs, "losses": losses, "w": model.weight}
    return out
