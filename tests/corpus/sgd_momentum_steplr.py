"""SGD with Nesterov momentum and weight decay under StepLR, and plain momentum SGD under
MultiStepLR on a second parameter group; the learning rates are recorded per epoch."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, epochs=6):
    nn = torch.nn
    rng = np.random.default_rng(14)
    X = torch.from_numpy(rng.standard_normal((40, 6)).astype(np.float32))
    y = torch.from_numpy(rng.standard_normal((40, 2)).astype(np.float32))
    model = init_from_numpy(torch, nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2)), 14)
    opt = torch.optim.SGD(
        [
            {"params": model[0].parameters()},
            {"params": model[2].parameters(), "lr": 0.02, "nesterov": False},
        ],
        lr=0.05,
        momentum=0.9,
        nesterov=True,
        weight_decay=1e-3,
    )
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    losses, lrs = [], []
    for _ in range(epochs):
        opt.zero_grad()
        loss = nn.functional.smooth_l1_loss(model(X), y)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
        lrs.append(sched.get_last_lr())
    buf = opt.state[model[0].weight]["momentum_buffer"]
    return {"losses": losses, "lrs": lrs, "momentum_buffer": buf, "w": model[2].weight}
