"""Second-order quantities: a Hessian-vector product by double backward, the full Hessian
from autograd.functional.hessian, and a Newton step on a small float64 problem."""

import numpy as np

TOL = dict(rtol=1e-9, atol=1e-11)


def run(torch):
    rng = np.random.default_rng(28)
    A = torch.from_numpy(rng.standard_normal((6, 4)))
    b = torch.from_numpy(rng.standard_normal(6))

    def loss_fn(w):
        r = A @ w - b
        return 0.5 * (r**2).sum() + 0.1 * torch.log(1 + w**2).sum()

    w = torch.from_numpy(rng.standard_normal(4)).requires_grad_(True)
    v = torch.from_numpy(rng.standard_normal(4))
    (g,) = torch.autograd.grad(loss_fn(w), w, create_graph=True)
    (hv,) = torch.autograd.grad(g @ v, w)
    H = torch.autograd.functional.hessian(loss_fn, w.detach())
    _, hvp = torch.autograd.functional.hvp(loss_fn, w.detach(), v)
    with torch.no_grad():
        w_new = w - torch.from_numpy(np.linalg.solve(H.numpy(), g.detach().numpy()))
    return {"grad": g, "hv": hv, "H": H, "hvp": hvp, "newton": w_new, "loss_after": loss_fn(w_new)}
