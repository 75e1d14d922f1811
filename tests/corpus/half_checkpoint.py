"""Storing weights in half precision: a state_dict converted with .half() for a smaller
checkpoint, loaded back into a float32 model with .float(), predictions compared."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch):
    nn = torch.nn
    model = init_from_numpy(torch, nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)), 46)
    x = torch.from_numpy(np.random.default_rng(46).standard_normal((5, 4)).astype(np.float32))
    small = {k: v.half() for k, v in model.state_dict().items()}
    restored = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    restored.load_state_dict({k: v.float() for k, v in small.items()})
    with torch.no_grad():
        diff = (restored(x) - model(x)).abs().max()
    return {
        "dtype": str(small["0.weight"].dtype).split(".")[-1],
        "bytes": small["0.weight"].element_size() * small["0.weight"].nelement(),
        "half_weight": small["2.weight"],
        "diff_small": diff.item() < 1e-2,
        "restored": restored(x),
    }
