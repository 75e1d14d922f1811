"""Multi-task training: two heads on a shared trunk, autograd.backward over both losses with
their own weights, retain_graph for a second pass, and backward(inputs=...) to fill only
chosen gradients."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch):
    nn = torch.nn
    rng = np.random.default_rng(57)
    trunk = init_from_numpy(torch, nn.Sequential(nn.Linear(4, 6), nn.Softplus()), 57)
    head_a = init_from_numpy(torch, nn.Linear(6, 1), 58)
    head_b = init_from_numpy(torch, nn.Linear(6, 3), 59)
    x = torch.from_numpy(rng.standard_normal((10, 4)).astype(np.float32))
    ya = torch.from_numpy(rng.standard_normal((10, 1)).astype(np.float32))
    yb = torch.from_numpy(rng.integers(0, 3, 10))
    feats = trunk(x)
    la = nn.functional.l1_loss(head_a(feats), ya)
    lb = nn.functional.nll_loss(nn.functional.log_softmax(head_b(feats), dim=1), yb)
    torch.autograd.backward([la, lb], [torch.tensor(0.3), torch.tensor(0.7)], retain_graph=True)
    both = trunk[0].weight.grad.clone()
    lb.backward(inputs=[head_b.weight])
    return {
        "both": both,
        "head_a": head_a.weight.grad,
        "head_b_twice": head_b.weight.grad,
        "head_b_bias": head_b.bias.grad,
        "trunk_unchanged": bool(torch.equal(trunk[0].weight.grad, both)),
    }
