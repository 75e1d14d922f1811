"""Forward-mode AD as in the PyTorch tutorial: dual tensors under forward_ad.dual_level for
a Jacobian-vector product through an MLP, checked against torch.func.jvp, jacfwd and jacrev."""

import numpy as np

from corpus._util import init_from_numpy

TOL = dict(rtol=1e-10, atol=1e-12)


def run(torch):
    nn = torch.nn
    fwAD = torch.autograd.forward_ad
    func = torch.func
    model = init_from_numpy(
        torch, nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).double(), 55
    )
    rng = np.random.default_rng(55)
    primal = torch.from_numpy(rng.standard_normal((5, 3)))
    tangent = torch.from_numpy(rng.standard_normal((5, 3)))
    with fwAD.dual_level():
        dual = fwAD.make_dual(primal, tangent)
        out = model(dual)
        jvp_dual = fwAD.unpack_dual(out).tangent

    def f(x):
        return torch.sin(x).sum(0) * x.prod(0) + (x**3).mean()

    x0 = torch.from_numpy(rng.standard_normal((2, 3)))
    value, jvp_func = func.jvp(f, (x0,), (torch.ones_like(x0),))
    return {
        "jvp_dual": jvp_dual,
        "jvp_func": jvp_func,
        "value": value,
        "jacfwd": func.jacfwd(f)(x0),
        "jacrev": func.jacrev(f)(x0),
    }
