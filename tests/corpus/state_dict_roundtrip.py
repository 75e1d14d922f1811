"""Checkpointing: train, save model and optimizer state_dicts with torch.save, load them
into fresh objects with torch.load, and continue; the resumed run matches an
uninterrupted one."""

import os
import tempfile

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=3):
    nn = torch.nn
    rng = np.random.default_rng(17)
    X = torch.from_numpy(rng.standard_normal((32, 5)).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, 3, 32))

    def make():
        m = nn.Sequential(nn.Linear(5, 10), nn.BatchNorm1d(10), nn.ReLU(), nn.Linear(10, 3))
        return m, torch.optim.Adam(m.parameters(), lr=0.01)

    def train(model, opt, n):
        out = []
        for _ in range(n):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(X), y)
            loss.backward()
            opt.step()
            out.append(loss.item())
        return out

    model, opt = make()
    init_from_numpy(torch, model, 17)
    first = train(model, opt, steps)
    path = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
    torch.save({"epoch": steps, "model": model.state_dict(), "optimizer": opt.state_dict()}, path)
    straight = train(model, opt, steps)

    ckpt = torch.load(path)
    model2, opt2 = make()
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["optimizer"])
    resumed = train(model2, opt2, steps)
    os.remove(path)
    return {
        "first": first,
        "straight": straight,
        "resumed": resumed,
        "same": resumed == straight,
        "epoch": ckpt["epoch"],
        "keys": list(ckpt["model"].keys()),
        "running_var": model2[1].running_var,
        "batches": model2[1].num_batches_tracked,
    }
