"""Weight initialisation with model.apply: xavier/kaiming draws checked by their bounds and
spread, then constant_, zeros_, ones_ and eye_ values, and calculate_gain."""

import math

import numpy as np


def run(torch):
    nn = torch.nn
    init = nn.init
    torch.manual_seed(0)

    def init_weights(m):
        if isinstance(m, nn.Linear):
            init.xavier_uniform_(m.weight, gain=init.calculate_gain("tanh"))
            init.zeros_(m.bias)
        elif isinstance(m, nn.Conv2d):
            init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            init.constant_(m.bias, 0.01)

    model = nn.Sequential(nn.Conv2d(3, 32, 3), nn.ReLU(), nn.Flatten(), nn.Linear(200, 300))
    model.apply(init_weights)
    w = model[3].weight.detach().numpy()
    bound = init.calculate_gain("tanh") * math.sqrt(6 / (200 + 300))
    k = model[0].weight.detach().numpy()
    k_std = math.sqrt(2) / math.sqrt(32 * 9)
    eye = torch.empty(3, 5)
    init.eye_(eye)
    ones = init.ones_(torch.empty(2, 2))
    u = init.uniform_(torch.empty(1000), a=-2.0, b=3.0).numpy()
    n = init.normal_(torch.empty(4000), mean=1.0, std=0.5).numpy()
    return {
        "xavier_bound": bool(np.abs(w).max() <= bound) and np.abs(w).max() > 0.9 * bound,
        "xavier_std": abs(w.std() / (bound / math.sqrt(3)) - 1) < 0.05,
        "kaiming_std": abs(k.std() / k_std - 1) < 0.1,
        "bias": model[0].bias,
        "zero_bias": model[3].bias,
        "eye": eye,
        "ones": ones,
        "uniform_range": bool(u.min() >= -2 and u.max() < 3),
        "normal_moments": abs(n.mean() - 1) < 0.05 and abs(n.std() - 0.5) < 0.05,
        "gains": [init.calculate_gain(g) for g in ["linear", "relu", "tanh", "sigmoid"]]
        + [init.calculate_gain("leaky_relu", 0.2)],
        "requires_grad": model[3].weight.requires_grad,
    }
