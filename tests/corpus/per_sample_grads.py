"""Per-sample gradients (the torch.func tutorial): grad of a single-example loss through
functional_call, vectorised over the batch with vmap, checked against a Python loop."""

import numpy as np

from corpus._util import init_from_numpy

TOL = dict(rtol=1e-9, atol=1e-11)


def run(torch):
    nn = torch.nn
    from_numpy = torch.from_numpy
    func = torch.func
    model = init_from_numpy(
        torch, nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2)).double(), 41
    )
    rng = np.random.default_rng(41)
    data, targets = from_numpy(rng.standard_normal((6, 3))), from_numpy(rng.integers(0, 2, 6))
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss_one(params, x, y):
        logits = func.functional_call(model, params, (x.unsqueeze(0),))
        return nn.functional.cross_entropy(logits, y.unsqueeze(0))

    loop = [func.grad(loss_one)(params, data[i], targets[i])["0.weight"] for i in range(6)]
    batched = func.vmap(func.grad(loss_one), in_dims=(None, 0, 0))(params, data, targets)
    return {"loop": torch.stack(loop), "vmap": batched["0.weight"]}
