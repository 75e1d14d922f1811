"""Older idioms still found in tutorials: manual updates through .data and .grad.data
(add_ with alpha, zero_), in-place gradient edits between backward and step, Variable,
zero_grad(set_to_none=False) and a momentum buffer kept by hand."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=4, lr=0.05):
    nn = torch.nn
    Variable = torch.autograd.Variable
    rng = np.random.default_rng(51)
    x = Variable(torch.from_numpy(rng.standard_normal((20, 3)).astype(np.float32)))
    y = Variable(torch.from_numpy(rng.standard_normal((20, 2)).astype(np.float32)))
    model = init_from_numpy(torch, nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2)), 51)
    velocity = [torch.zeros_like(p) for p in model.parameters()]
    losses, zeroed = [], []
    for _ in range(steps):
        model.zero_grad(set_to_none=False)
        loss = ((model(x) - y) ** 2).sum() / x.size(0)
        loss.backward()
        for p, v in zip(model.parameters(), velocity):
            p.grad.data.clamp_(-1, 1)
            p.grad.data.mul_(0.5)
            v.mul_(0.9).add_(p.grad.data)
            p.data.add_(v, alpha=-lr)
        losses.append(loss.item())
        for p in model.parameters():
            p.grad.zero_()
        zeroed.append(float(sum(p.grad.abs().sum().item() for p in model.parameters())))
    return {"losses": losses, "zeroed": zeroed, "velocity": velocity, "w": model[2].weight}
