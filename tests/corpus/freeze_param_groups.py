"""Fine-tuning: a frozen backbone (requires_grad_(False)), only trainable parameters given to
the optimizer, a second head added later with add_param_group, and ReduceLROnPlateau on a
validation loss."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, epochs=6):
    nn = torch.nn
    rng = np.random.default_rng(31)
    X = torch.from_numpy(rng.standard_normal((30, 5)).astype(np.float32))
    y = torch.from_numpy(rng.standard_normal((30, 2)).astype(np.float32))
    backbone = init_from_numpy(torch, nn.Sequential(nn.Linear(5, 8), nn.ReLU()), 31)
    head = init_from_numpy(torch, nn.Linear(8, 2), 32)
    extra = init_from_numpy(torch, nn.Linear(8, 2), 33)
    backbone.requires_grad_(False)
    before = backbone[0].weight.clone()
    opt = torch.optim.SGD(filter(lambda p: p.requires_grad, head.parameters()), lr=0.5)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=0)
    losses, lrs = [], []
    for epoch in range(epochs):
        if epoch == 2:
            opt.add_param_group({"params": extra.parameters(), "lr": 0.1})
        feats = backbone(X)
        pred = head(feats) + (extra(feats) if epoch >= 2 else 0)
        loss = nn.functional.mse_loss(pred, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step(loss.item() if epoch != 3 else 10.0)
        losses.append(loss.item())
        lrs.append([g["lr"] for g in opt.param_groups])
    return {
        "losses": losses,
        "lrs": lrs,
        "frozen": bool(torch.equal(before, backbone[0].weight)),
        "backbone_grad": backbone[0].weight.grad is None,
        "head": head.weight,
        "extra": extra.bias,
    }
