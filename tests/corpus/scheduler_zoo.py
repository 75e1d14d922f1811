"""Learning-rate schedules stepped for 12 epochs, the rates read with get_last_lr():
LambdaLR warm-up, MultiplicativeLR, MultiStepLR, ConstantLR, PolynomialLR,
CosineAnnealingWarmRestarts, CyclicLR (triangular2), ChainedScheduler, and a scheduler
state_dict round trip mid-run."""


def run(torch, epochs=12):
    S = torch.optim.lr_scheduler

    def opt():
        return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)

    makers = {
        "lambda": lambda o: S.LambdaLR(o, lr_lambda=lambda e: min(1.0, (e + 1) / 4)),
        "multiplicative": lambda o: S.MultiplicativeLR(o, lr_lambda=lambda e: 0.9),
        "multistep": lambda o: S.MultiStepLR(o, milestones=[3, 7], gamma=0.2),
        "constant": lambda o: S.ConstantLR(o, factor=0.5, total_iters=4),
        "polynomial": lambda o: S.PolynomialLR(o, total_iters=10, power=2.0),
        "warm_restarts": lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001),
        "cyclic": lambda o: S.CyclicLR(
            o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2"
        ),
        "chained": lambda o: S.ChainedScheduler(
            [S.ConstantLR(o, factor=0.1, total_iters=2), S.ExponentialLR(o, gamma=0.9)]
        ),
    }
    out = {}
    for name, make in makers.items():
        o = opt()
        s = make(o)
        lrs = []
        for _ in range(epochs):
            o.step()
            s.step()
            lrs.append(s.get_last_lr()[0])
        out[name] = lrs
    o = opt()
    s = S.StepLR(o, step_size=2, gamma=0.5)
    for _ in range(3):
        o.step()
        s.step()
    state = s.state_dict()
    o2 = opt()
    s2 = S.StepLR(o2, step_size=2, gamma=0.5)
    s2.load_state_dict(state)
    o2.param_groups[0]["lr"] = s.get_last_lr()[0]
    resumed = []
    for _ in range(4):
        o2.step()
        s2.step()
        resumed.append(s2.get_last_lr()[0])
    out["resumed"] = resumed
    out["last_epoch"] = state["last_epoch"]
    return out
