"""A user-written optimizer: an Optimizer subclass (defaults, param_groups, per-parameter
state) implementing SGD with momentum and decoupled weight decay through in-place ops,
driven by a StepLR scheduler and checked against torch.optim.SGD where they coincide."""

import numpy as np

from corpus._util import init_from_numpy


def make_optimizer(torch):
    class MomentumSGD(torch.optim.Optimizer):
        def __init__(self, params, lr=1e-2, momentum=0.9, weight_decay=0.0):
            if lr < 0.0:
                raise ValueError(f"Invalid learning rate: {lr}")
            super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay))

        @torch.no_grad()
        def step(self, closure=None):
            loss = None
            if closure is not None:
                with torch.enable_grad():
                    loss = closure()
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if group["weight_decay"]:
                        p.mul_(1 - group["lr"] * group["weight_decay"])
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = torch.clone(p.grad).detach()
                    else:
                        state["momentum_buffer"].mul_(group["momentum"]).add_(p.grad)
                    p.add_(state["momentum_buffer"], alpha=-group["lr"])
            return loss

    return MomentumSGD


def run(torch, steps=5):
    nn = torch.nn
    rng = np.random.default_rng(73)
    X = torch.from_numpy(rng.standard_normal((16, 3)).astype(np.float32))
    y = torch.from_numpy(rng.standard_normal((16, 1)).astype(np.float32))
    out = {}
    for name in ["custom", "builtin"]:
        model = init_from_numpy(
            torch, nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 1)), 73
        )
        if name == "custom":
            opt = make_optimizer(torch)(model.parameters(), lr=0.05, momentum=0.8)
        else:
            opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.8)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        losses = []

        def closure(model=model, opt=opt):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(X), y)
            loss.backward()
            return loss

        for _ in range(steps):
            losses.append(opt.step(closure).item())
            sched.step()
        out[name] = {"losses": losses, "w": model[2].weight, "lr": sched.get_last_lr()}
    out["decayed"] = make_optimizer(torch)(
        [torch.ones(2, requires_grad=True)], weight_decay=0.1
    ).defaults
    return out
