"""Docstrings of the optimizers in `nbgrad.optim` (keys are the class names); outputs are
PyTorch's."""

DOCS = {
    "Adadelta": """The Adadelta optimizer: steps scaled by running averages of squared gradients and
    updates.

    Args:
        params (iterable): the parameters to optimise, or dicts of parameter groups (each
            with "params" and its own options).
        lr (float): scales the update. Default: 1.0.
        rho (float): the averaging coefficient. Default: 0.9.
        eps (float): Default: 1e-6.
        weight_decay (float): L2 penalty. Default: 0.
        maximize (bool): maximise the objective instead. Default: False.
        foreach, capturable, differentiable, fused: accepted for compatibility (nbgrad's
            step is one compiled pass over all parameters).

    Example::

        >>> w = torch.tensor([1., -2.], requires_grad=True)
        >>> opt = torch.optim.Adadelta([w], lr=1.0)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w ** 2).sum().backward()
        ...     opt.step()
        >>> w
        tensor([ 0.9936, -1.9936], requires_grad=True)
    """,
    "Adagrad": """The Adagrad optimizer: per-parameter steps scaled by the accumulated squared
    gradients.

    Args:
        params (iterable): the parameters to optimise, or dicts of parameter groups (each
            with "params" and its own options).
        lr (float): the learning rate. Default: 1e-2.
        lr_decay (float): Default: 0.
        weight_decay (float): L2 penalty. Default: 0.
        initial_accumulator_value (float): Default: 0.
        eps (float): added to the denominator. Default: 1e-10.
        maximize (bool): maximise the objective instead. Default: False.
        foreach, capturable, differentiable, fused: accepted for compatibility (nbgrad's
            step is one compiled pass over all parameters).

    Example::

        >>> w = torch.tensor([1., -2.], requires_grad=True)
        >>> opt = torch.optim.Adagrad([w], lr=0.1)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w ** 2).sum().backward()
        ...     opt.step()
        >>> w
        tensor([ 0.8331, -1.8311], requires_grad=True)
    """,
    "Adam": """The Adam optimizer (Kingma and Ba, 2014).

    Args:
        params (iterable): the parameters to optimise, or dicts of parameter groups (each
            with "params" and its own options).
        lr (float): the learning rate. Default: 1e-3.
        betas (tuple of 2 floats): the decay rates of the first and second moment averages.
            Default: (0.9, 0.999).
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): L2 penalty (decoupled with `decoupled_weight_decay=True`).
            Default: 0.
        amsgrad (bool): use the maximum of past second moments. Default: False.
        maximize (bool): maximise the objective instead. Default: False.
        foreach, capturable, differentiable, fused: accepted for compatibility (nbgrad's
            step is one compiled pass over all parameters).

    Example::

        >>> w = torch.tensor([1., -2.], requires_grad=True)
        >>> opt = torch.optim.Adam([w], lr=0.1)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w ** 2).sum().backward()
        ...     opt.step()
        >>> w
        tensor([ 0.8004, -1.8002], requires_grad=True)
    """,
    "AdamW": """Adam with decoupled weight decay (Loshchilov and Hutter, 2017).

    Args:
        params (iterable): the parameters to optimise, or dicts of parameter groups (each
            with "params" and its own options).
        lr (float): the learning rate. Default: 1e-3.
        betas (tuple of 2 floats): Default: (0.9, 0.999).
        eps (float): Default: 1e-8.
        weight_decay (float): the decoupled decay coefficient. Default: 1e-2.
        amsgrad (bool): Default: False.
        maximize (bool): maximise the objective instead. Default: False.
        foreach, capturable, differentiable, fused: accepted for compatibility (nbgrad's
            step is one compiled pass over all parameters).

    Example::

        >>> w = torch.tensor([1., -2.], requires_grad=True)
        >>> opt = torch.optim.AdamW([w], lr=0.1)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w ** 2).sum().backward()
        ...     opt.step()
        >>> w
        tensor([ 0.7985, -1.7963], requires_grad=True)
    """,
    "Adamax": """The Adamax optimizer: Adam with the infinity norm of past gradients.

    Args:
        params (iterable): the parameters to optimise, or dicts of parameter groups (each
            with "params" and its own options).
        lr (float): the learning rate. Default: 2e-3.
        betas (tuple of 2 floats): Default: (0.9, 0.999).
        eps (float): Default: 1e-8.
        weight_decay (float): L2 penalty. Default: 0.
        maximize (bool): maximise the objective instead. Default: False.
        foreach, capturable, differentiable, fused: accepted for compatibility (nbgrad's
            step is one compiled pass over all parameters).

    Example::

        >>> w = torch.tensor([1., -2.], requires_grad=True)
        >>> opt = torch.optim.Adamax([w], lr=0.1)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w ** 2).sum().backward()
        ...     opt.step()
        >>> w
        tensor([ 0.8052, -1.8025], requires_grad=True)
    """,
    "LBFGS": """The L-BFGS quasi-Newton optimizer; `step` takes a closure that recomputes the loss.

    Args:
        params (iterable): the parameters (one group).
        lr (float): the step size. Default: 1.
        max_iter (int): iterations per `step`. Default: 20.
        max_eval (int, optional): function evaluations per step. Default: max_iter * 1.25.
        tolerance_grad (float): stop when the gradient's max abs is below. Default: 1e-7.
        tolerance_change (float): stop when changes are below. Default: 1e-9.
        history_size (int): the number of stored updates. Default: 100.
        line_search_fn (str, optional): `"strong_wolfe"` or None.

    Example::

        >>> w = torch.tensor([1., -2.], requires_grad=True)
        >>> opt = torch.optim.LBFGS([w], line_search_fn="strong_wolfe")
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = ((w - 3.) ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> _ = opt.step(closure)
        >>> w
        tensor([3.0000, 3.0000], requires_grad=True)
    """,
    "NAdam": """The NAdam optimizer: Adam with Nesterov momentum.

    Args:
        params (iterable): the parameters to optimise, or dicts of parameter groups (each
            with "params" and its own options).
        lr (float): the learning rate. Default: 2e-3.
        betas (tuple of 2 floats): Default: (0.9, 0.999).
        eps (float): Default: 1e-8.
        weight_decay (float): Default: 0.
        momentum_decay (float): Default: 4e-3.
        decoupled_weight_decay (bool): Default: False.
        maximize (bool): maximise the objective instead. Default: False.
        foreach, capturable, differentiable, fused: accepted for compatibility (nbgrad's
            step is one compiled pass over all parameters).

    Example::

        >>> w = torch.tensor([1., -2.], requires_grad=True)
        >>> opt = torch.optim.NAdam([w], lr=0.1)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w ** 2).sum().backward()
        ...     opt.step()
        >>> w
        tensor([ 0.8200, -1.8179], requires_grad=True)
    """,
    "Optimizer": """The base class of optimizers: holds `param_groups` (lists of parameters with
    their options) and per-parameter `state`; subclasses implement `step`.

    Args:
        params (iterable): parameters, or dicts of parameter groups.
        defaults (dict): the default options of the groups.

    Example::

        >>> a = torch.zeros(2, requires_grad=True)
        >>> b = torch.zeros(3, requires_grad=True)
        >>> opt = torch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
        >>> [g["lr"] for g in opt.param_groups]
        [0.1, 0.5]
        >>> isinstance(opt, torch.optim.Optimizer)
        True
    """,
    "RAdam": """The RAdam optimizer: Adam with a rectified adaptive learning rate.

    Args:
        params (iterable): the parameters to optimise, or dicts of parameter groups (each
            with "params" and its own options).
        lr (float): the learning rate. Default: 1e-3.
        betas (tuple of 2 floats): Default: (0.9, 0.999).
        eps (float): Default: 1e-8.
        weight_decay (float): Default: 0.
        decoupled_weight_decay (bool): Default: False.
        maximize (bool): maximise the objective instead. Default: False.
        foreach, capturable, differentiable, fused: accepted for compatibility (nbgrad's
            step is one compiled pass over all parameters).

    Example::

        >>> w = torch.tensor([1., -2.], requires_grad=True)
        >>> opt = torch.optim.RAdam([w], lr=0.1)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w ** 2).sum().backward()
        ...     opt.step()
        >>> w
        tensor([ 0.6211, -1.2421], requires_grad=True)
    """,
    "RMSprop": """The RMSprop optimizer: scales the step by a running average of squared gradients.

    Args:
        params (iterable): the parameters to optimise, or dicts of parameter groups (each
            with "params" and its own options).
        lr (float): the learning rate. Default: 1e-2.
        alpha (float): the smoothing constant. Default: 0.99.
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): L2 penalty. Default: 0.
        momentum (float): Default: 0.
        centered (bool): normalise by the estimated variance. Default: False.
        maximize (bool): maximise the objective instead. Default: False.
        foreach, capturable, differentiable, fused: accepted for compatibility (nbgrad's
            step is one compiled pass over all parameters).

    Example::

        >>> w = torch.tensor([1., -2.], requires_grad=True)
        >>> opt = torch.optim.RMSprop([w], lr=0.01)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w ** 2).sum().backward()
        ...     opt.step()
        >>> w
        tensor([ 0.8329, -1.8309], requires_grad=True)
    """,
    "SGD": """Stochastic gradient descent, optionally with momentum (Nesterov's too).

    Args:
        params (iterable): the parameters to optimise, or dicts of parameter groups (each
            with "params" and its own options).
        lr (float): the learning rate. Default: 1e-3.
        momentum (float): the momentum factor. Default: 0.
        dampening (float): dampening of the momentum. Default: 0.
        weight_decay (float): L2 penalty. Default: 0.
        nesterov (bool): Nesterov momentum. Default: False.
        maximize (bool): maximise the objective instead. Default: False.
        foreach, capturable, differentiable, fused: accepted for compatibility (nbgrad's
            step is one compiled pass over all parameters).

    Example::

        >>> w = torch.tensor([1., -2.], requires_grad=True)
        >>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w ** 2).sum().backward()
        ...     opt.step()
        >>> w
        tensor([ 0.4600, -0.9200], requires_grad=True)
    """,
}
