"""Sensitivity analysis: the Jacobian of a model's outputs with respect to its inputs by
autograd.functional.jacobian (loop and vectorize=True), input-gradient saliency, and
gradcheck / gradgradcheck of the model as a function in float64."""

import numpy as np

from corpus._util import init_from_numpy

TOL = dict(rtol=1e-10, atol=1e-12)


def run(torch):
    nn = torch.nn
    F = torch.autograd.functional
    model = init_from_numpy(
        torch, nn.Sequential(nn.Linear(4, 5), nn.Softplus(), nn.Linear(5, 3)).double(), 78
    )
    x = torch.from_numpy(np.random.default_rng(78).standard_normal(4))
    J = F.jacobian(model, x)
    Jv = F.jacobian(model, x, vectorize=True)
    xs = x.clone().requires_grad_(True)
    model(xs)[1].backward()
    check = torch.autograd.gradcheck(model, (xs,))
    check2 = torch.autograd.gradgradcheck(model, (xs,))
    batch = torch.from_numpy(np.random.default_rng(79).standard_normal((2, 4)))
    Jb = F.jacobian(lambda b: model(b).sum(0), batch)
    return {
        "J": J,
        "Jv": Jv,
        "saliency": xs.grad,
        "gradcheck": check,
        "gradgradcheck": check2,
        "Jb": Jb,
    }
