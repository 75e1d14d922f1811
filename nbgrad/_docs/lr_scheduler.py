"""Docstrings of `nbgrad.optim.lr_scheduler` (keys are the class names); outputs are
PyTorch's."""

DOCS = {
    "ChainedScheduler": """Steps several schedulers together, each acting on the learning rate the
    previous one left.

    Args:
        schedulers (list of LRScheduler): the schedulers.
        optimizer (Optimizer, optional): their optimizer.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> a = torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
        >>> b = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        >>> sched = torch.optim.lr_scheduler.ChainedScheduler([a, b])
        >>> lrs = []
        >>> for _ in range(3):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [0.45, 0.81, 0.729]
    """,
    "ConstantLR": """Multiplies the learning rate by `factor` until epoch `total_iters`, then
    restores it.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        factor (float): Default: 1/3.
        total_iters (int): Default: 5.
        last_epoch (int): the index of the last epoch, to resume. Default: -1.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
        >>> lrs = []
        >>> for _ in range(3):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [0.5, 1.0, 1.0]
    """,
    "CosineAnnealingLR": """Anneals the learning rate from its initial value to `eta_min` along a
    half cosine over `T_max` epochs.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        T_max (int): the number of epochs of the half period.
        eta_min (float): the minimum. Default: 0.
        last_epoch (int): the index of the last epoch, to resume. Default: -1.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [0.8536, 0.5, 0.1464, 0.0]
    """,
    "CosineAnnealingWarmRestarts": """Cosine annealing restarted every `T_i` epochs, `T_i` starting
    at `T_0` and multiplied by `T_mult` at each restart.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        T_0 (int): the first period.
        T_mult (int): the growth of the period. Default: 1.
        eta_min (float): the minimum. Default: 0.
        last_epoch (int): the index of the last epoch, to resume. Default: -1.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [0.5, 1.0, 0.5, 1.0]
    """,
    "CyclicLR": """Cycles the learning rate between `base_lr` and `max_lr` (and the momentum
    inversely), stepped every batch.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        base_lr (float or list): the lower bound.
        max_lr (float or list): the upper bound.
        step_size_up (int): batches in the rising half. Default: 2000.
        step_size_down (int, optional): batches in the falling half. Default: step_size_up.
        mode (str): `"triangular"`, `"triangular2"` or `"exp_range"`. Default: `"triangular"`.
        cycle_momentum (bool): cycle the momentum too (needs an optimizer with momentum).
            Default: True.
        last_epoch (int): the index of the last batch, to resume. Default: -1.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=1.0,
        ...     step_size_up=2, cycle_momentum=False)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [0.55, 1.0, 0.55, 0.1]
    """,
    "ExponentialLR": """Multiplies each group's learning rate by `gamma` every epoch.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        gamma (float): the factor.
        last_epoch (int): the index of the last epoch, to resume. Default: -1.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> lrs = []
        >>> for _ in range(3):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [0.5, 0.25, 0.125]
    """,
    "LRScheduler": """The base class of learning rate schedulers: `step()` (once per epoch, after
    `optimizer.step()`) sets each group's "lr" from `get_lr()`.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        last_epoch (int): the index of the last epoch, to resume. Default: -1.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
        >>> isinstance(sched, torch.optim.lr_scheduler.LRScheduler)
        True
        >>> sched.get_last_lr()
        [1.0]
    """,
    "LambdaLR": """Sets each group's learning rate to its initial value times `lr_lambda(epoch)`.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        lr_lambda (callable or list of callables): a function of the epoch, or one per group.
        last_epoch (int): the index of the last epoch, to resume. Default: -1.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))
        >>> lrs = []
        >>> for _ in range(3):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [0.5, 0.3333, 0.25]
    """,
    "LinearLR": """Scales the learning rate by a factor that changes linearly from `start_factor` to
    `end_factor` over `total_iters` epochs.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        start_factor (float): Default: 1/3.
        end_factor (float): Default: 1.0.
        total_iters (int): Default: 5.
        last_epoch (int): the index of the last epoch, to resume. Default: -1.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [0.5, 0.75, 1.0, 1.0]
    """,
    "MultiStepLR": """Multiplies each group's learning rate by `gamma` at each milestone epoch.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        milestones (list of ints): increasing epoch indices.
        gamma (float): the factor. Default: 0.1.
        last_epoch (int): the index of the last epoch, to resume. Default: -1.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.1)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [0.1, 0.1, 0.01, 0.01]
    """,
    "MultiplicativeLR": """Multiplies each group's learning rate by `lr_lambda(epoch)` every epoch.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        lr_lambda (callable or list of callables): a function of the epoch, or one per group.
        last_epoch (int): the index of the last epoch, to resume. Default: -1.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
        >>> lrs = []
        >>> for _ in range(3):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [0.5, 0.25, 0.125]
    """,
    "OneCycleLR": """The 1cycle policy: the learning rate warms up to `max_lr`, then anneals far
    below the start; stepped every batch, `total_steps` times.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        max_lr (float or list): the peak learning rate.
        total_steps (int, optional): the number of steps (or give epochs and steps_per_epoch).
        pct_start (float): the fraction of steps spent warming up. Default: 0.3.
        anneal_strategy (str): `"cos"` or `"linear"`. Default: `"cos"`.
        cycle_momentum (bool): cycle the momentum inversely. Default: True.
        div_factor (float): initial lr = max_lr / div_factor. Default: 25.
        final_div_factor (float): final lr = initial lr / final_div_factor. Default: 1e4.
        last_epoch (int): the index of the last batch, to resume. Default: -1.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=5,
        ...     cycle_momentum=False)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [0.9505, 0.6113, 0.1883, 0.0]
    """,
    "PolynomialLR": """Decays the learning rate as `(1 - epoch / total_iters) ** power` until
    `total_iters`.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        total_iters (int): Default: 5.
        power (float): Default: 1.0.
        last_epoch (int): the index of the last epoch, to resume. Default: -1.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=2.0)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [0.5625, 0.25, 0.0625, 0.0]
    """,
    "ReduceLROnPlateau": """Multiplies the learning rate by `factor` once a metric has stopped
    improving for `patience` epochs; `step(metric)` takes the metric.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        mode (str): `"min"` (lower is better) or `"max"`. Default: `"min"`.
        factor (float): the multiplier. Default: 0.1.
        patience (int): epochs without improvement to wait. Default: 10.
        threshold (float): the smallest change that counts. Default: 1e-4.
        threshold_mode (str): `"rel"` or `"abs"`. Default: `"rel"`.
        cooldown (int): epochs to wait after a reduction. Default: 0.
        min_lr (float or list): a lower bound. Default: 0.
        eps (float): smaller changes of lr are ignored. Default: 1e-8.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1)
        >>> for loss in [1.0, 0.5, 0.5, 0.5, 0.5]:
        ...     sched.step(loss)
        >>> opt.param_groups[0]["lr"]
        0.1
    """,
    "SequentialLR": """Runs schedulers one after another, switching to the next at each milestone.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        schedulers (list of LRScheduler): the schedulers, in order.
        milestones (list of ints): the epochs at which to switch (one fewer than schedulers).

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
        >>> decay = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, decay], milestones=[2])
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [0.75, 1.0, 0.5, 0.25]
    """,
    "StepLR": """Multiplies each group's learning rate by `gamma` every `step_size` epochs.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        step_size (int): the period of the decay.
        gamma (float): the factor. Default: 0.1.
        last_epoch (int): the index of the last epoch, to resume. Default: -1.

    Example::

        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        >>> lrs = []
        >>> for _ in range(5):
        ...     opt.step()
        ...     sched.step()
        ...     lrs.append(round(opt.param_groups[0]["lr"], 4))
        >>> lrs
        [1.0, 0.5, 0.5, 0.25, 0.25]
    """,
}
