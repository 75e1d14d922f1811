"""Helpers the corpus programs share: starting parameters from NumPy."""

import numpy as np


def init_from_numpy(torch, module, seed):
    """Set every parameter of `module` from NumPy draws, as a user copying weights would.

    Matrices and kernels get U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (PyTorch's default scale);
    vectors named `weight` (normalisation scales) keep their ones; other vectors (biases)
    get U(-0.1, 0.1).
    """
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            shape = tuple(p.shape)
            if len(shape) >= 2:
                bound = 1.0 / np.sqrt(np.prod(shape[1:]))
            elif name.endswith("weight"):
                continue
            else:
                bound = 0.1
            p.copy_(torch.from_numpy(rng.uniform(-bound, bound, shape)).to(p.dtype))
    return module
