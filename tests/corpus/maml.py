"""MAML on sine regression: an inner SGD step on each task's support set with
autograd.grad(create_graph=True), the outer loss on the query set through the adapted
weights (torch.func.functional_call), one meta-update per batch of tasks."""

import numpy as np

from corpus._util import init_from_numpy

TOL = dict(rtol=1e-9, atol=1e-11)


def run(torch, meta_steps=3, tasks=3, inner_lr=0.05):
    nn = torch.nn
    functional_call = torch.func.functional_call
    net = nn.Sequential(nn.Linear(1, 20), nn.Tanh(), nn.Linear(20, 1)).double()
    init_from_numpy(torch, net, 12)
    meta_opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    rng = np.random.default_rng(12)
    meta_losses = []
    for _ in range(meta_steps):
        meta_opt.zero_grad()
        total = 0.0
        for _ in range(tasks):
            amp, phase = rng.uniform(0.5, 2.0), rng.uniform(0, np.pi)
            xs = rng.uniform(-3, 3, (10, 1))
            xq = rng.uniform(-3, 3, (10, 1))
            xs_t, xq_t = torch.from_numpy(xs), torch.from_numpy(xq)
            ys_t = torch.from_numpy(amp * np.sin(xs + phase))
            yq_t = torch.from_numpy(amp * np.sin(xq + phase))
            params = dict(net.named_parameters())
            support = nn.functional.mse_loss(functional_call(net, params, (xs_t,)), ys_t)
            grads = torch.autograd.grad(support, list(params.values()), create_graph=True)
            fast = {k: p - inner_lr * g for (k, p), g in zip(params.items(), grads)}
            query = nn.functional.mse_loss(functional_call(net, fast, (xq_t,)), yq_t)
            (query / tasks).backward()
            total += query.item() / tasks
        meta_opt.step()
        meta_losses.append(total)
    return {"meta": meta_losses, "w": net[0].weight, "w_grad": net[2].weight.grad}
