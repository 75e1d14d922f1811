"""Gradient clipping: clip_grad_norm_ (2-norm and inf-norm, returning the total norm) and
clip_grad_value_, in an exploding-gradient setting, with parameters_to_vector."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch):
    nn = torch.nn
    utils = nn.utils
    rng = np.random.default_rng(20)
    x = torch.from_numpy(rng.standard_normal((8, 4)).astype(np.float32) * 10)
    out = {}
    for how in ["norm2", "norm_inf", "value"]:
        model = init_from_numpy(torch, nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 1)), 20)
        model(x).pow(4).mean().backward()
        if how == "norm2":
            total = utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        elif how == "norm_inf":
            total = utils.clip_grad_norm_(model.parameters(), max_norm=0.5, norm_type=float("inf"))
        else:
            total = utils.clip_grad_value_(model.parameters(), clip_value=0.1)
        grads = utils.parameters_to_vector([p.grad for p in model.parameters()])
        out[how] = {"total": total, "grads": grads}
    out["total_norm_after"] = out["norm2"]["grads"].norm()
    return out
