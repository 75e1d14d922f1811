"""train() / eval() and no_grad: BatchNorm normalises with batch statistics while training
and running statistics in eval; Dropout scales by 1/(1-p) in training and is the identity in
eval; no_grad results take no gradient."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=3):
    nn = torch.nn
    model = nn.Sequential(
        nn.Linear(3, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 1)
    )
    init_from_numpy(torch, model, 19)
    model[3].p = 0.0  # deterministic training; dropout itself is checked below
    rng = np.random.default_rng(19)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        xb = torch.from_numpy(rng.standard_normal((16, 3)).astype(np.float32))
        loss = model(xb).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())

    model.eval()
    xt = torch.from_numpy(rng.standard_normal((4, 3)).astype(np.float32))
    with torch.no_grad():
        pred = model(xt)
    drop = nn.Dropout(p=0.25)
    ones = torch.ones(4000)
    dropped = drop(ones)
    kept = dropped[dropped != 0]
    drop.eval()
    return {
        "losses": losses,
        "pred": pred,
        "pred_requires_grad": pred.requires_grad,
        "training": [m.training for m in model],
        "running_mean": model[1].running_mean,
        "kept_scaled": bool(torch.allclose(kept, torch.full_like(kept, 1 / 0.75))),
        "kept_fraction_ok": abs(kept.numel() / 4000 - 0.75) < 0.05,
        "eval_identity": bool(torch.equal(drop(ones), ones)),
    }
