"""Docstrings of `nbgrad.autograd` (keys are the names); the examples' outputs are PyTorch's."""

DOCS = {
    "Function": """Base class of custom differentiable operations: subclass it with static
    `forward(ctx, *args)` and `backward(ctx, *grad_outputs)` methods, and call `apply`.

    `ctx.save_for_backward(*tensors)` keeps tensors for backward (read back as
    `ctx.saved_tensors`); `backward` returns one gradient (or None) per forward input.

    Example::

        >>> class Exp(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         y = x.exp()
        ...         ctx.save_for_backward(y)
        ...         return y
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         (y,) = ctx.saved_tensors
        ...         return grad * y
        >>> x = torch.tensor([0., 1.], requires_grad=True)
        >>> Exp.apply(x).sum().backward()
        >>> x.grad
        tensor([1.0000, 2.7183])
    """,
    "FunctionCtx": """The `ctx` object passed to a custom Function's `forward` and `backward`: holds
    saved tensors (`save_for_backward`, `saved_tensors`), `needs_input_grad`, `mark_dirty`,
    `mark_non_differentiable` and `set_materialize_grads`.

    Example::

        >>> class Mul(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x, y):
        ...         ctx.save_for_backward(x, y)
        ...         return x * y
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         x, y = ctx.saved_tensors
        ...         gx = grad * y if ctx.needs_input_grad[0] else None
        ...         gy = grad * x if ctx.needs_input_grad[1] else None
        ...         return gx, gy
        >>> a = torch.tensor([2.], requires_grad=True)
        >>> Mul.apply(a, torch.tensor([5.])).backward()
        >>> a.grad
        tensor([5.])
    """,
    "anomaly_mode.is_anomaly_check_nan_enabled": """Returns whether anomaly detection, when on,
    checks the backward results for NaN.

    Example::

        >>> torch.is_anomaly_check_nan_enabled()
        True
    """,
    "anomaly_mode.is_anomaly_enabled": """Returns whether anomaly detection (see
    `nbgrad.autograd.detect_anomaly`) is on.

    Example::

        >>> torch.is_anomaly_enabled()
        False
    """,
    "anomaly_mode.set_anomaly_enabled": """Turns anomaly detection on or off for the rest of the
    program.

    With it on, backward raises on NaN results (when `check_nan`), and an error in backward
    first warns with the traceback of the forward call that made the failing node. Prefer the
    scoped `nbgrad.autograd.detect_anomaly`.

    Args:
        mode (bool): whether to turn anomaly detection on.
        check_nan (bool, optional): whether to check backward results for NaN. Default: True.

    Example::

        >>> torch.set_anomaly_enabled(True)
        >>> torch.is_anomaly_enabled()
        True
        >>> torch.set_anomaly_enabled(False)
        >>> torch.is_anomaly_enabled()
        False
    """,
    "backward": """Computes the sum of the gradients of `tensors` with respect to the graph's leaves
    and accumulates it into their `.grad`.

    Args:
        tensors (Tensor or sequence of Tensor): the tensors to differentiate.
        grad_tensors (Tensor or sequence of Tensor, optional): the "vector" of each
            vector-Jacobian product; required for tensors with more than one element.
        retain_graph (bool, optional): keep the graph for another pass. Default:
            `create_graph`.
        create_graph (bool): record the pass, for higher-order derivatives. Default: False.
        inputs (sequence of Tensor, optional): accumulate only into these tensors.

    Example::

        >>> x = torch.tensor([1., 2.], requires_grad=True)
        >>> torch.autograd.backward([(x * x).sum(), x.sum()])
        >>> x.grad
        tensor([3., 5.])
    """,
    "gradcheck": """Checks the gradients of `func` at `inputs` against finite differences: returns
    True if they agree within the tolerances (else raises, or returns False with
    `raise_exception=False`). Use float64 inputs.

    Args:
        func (callable): takes the inputs, returns a Tensor or a tuple of Tensors.
        inputs (Tensor or tuple of Tensor): the point; those with requires_grad=True are
            checked.
        eps (float): the finite-difference step. Default: 1e-6.
        atol (float): absolute tolerance. Default: 1e-5.
        rtol (float): relative tolerance. Default: 1e-3.
        raise_exception (bool): raise on a mismatch instead of returning False.
            Default: True.

    Example::

        >>> x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
        >>> torch.autograd.gradcheck(torch.sin, (x,))
        True
    """,
    "gradgradcheck": """Checks the second derivatives of `func` at `inputs` against finite
    differences of its first derivatives (as `gradcheck`, one order up).

    Args:
        func (callable): takes the inputs, returns a Tensor or a tuple of Tensors.
        inputs (Tensor or tuple of Tensor): the point (float64, requires_grad=True).
        grad_outputs (Tensor or tuple of Tensor, optional): the output weights.
            Default: random.
        eps, atol, rtol, raise_exception: as in `gradcheck`.

    Example::

        >>> x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
        >>> torch.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x,))
        True
    """,
    "graph.Node": """Base class of the nodes of the autograd graph: every `grad_fn` is one.

    A node's `name()` is its backward's name, `next_functions` links it to the nodes of
    its inputs, and hooks can be registered on it.

    Example::

        >>> y = torch.tensor([1., 2.], requires_grad=True).exp()
        >>> isinstance(y.grad_fn, torch.autograd.graph.Node)
        True
        >>> y.grad_fn.name()
        'ExpBackward0'
    """,
    "graph.increment_version": """Bumps the version counter of `tensor`, as an in-place write would.

    Autograd then refuses to use a saved copy of it in backward.

    Args:
        tensor (Tensor): the tensor whose version to bump.

    Example::

        >>> x = torch.zeros(2)
        >>> v = x._version
        >>> torch.autograd.graph.increment_version(x)
        >>> x._version - v
        1
    """,
    "graph.register_multi_grad_hook": """Registers a hook called with several tensors' gradients.

    With ``mode="all"``, `fn` is called once per backward pass that computes a gradient
    of one of `tensors`, after that pass computed them, with a tuple holding each
    tensor's gradient (None for those the pass did not compute). With ``mode="any"``,
    `fn` is called with the first gradient of one of them that a pass computes. `fn`
    must not modify its arguments and returns None.

    Args:
        tensors (Sequence[Tensor]): tensors that require grad.
        fn (Callable): ``fn(grads)`` ("all") or ``fn(grad)`` ("any").
        mode (str): ``"all"`` (default) or ``"any"``.

    Returns a handle whose ``remove()`` unregisters the hook.

    Example::

        >>> a = torch.tensor([1., 2.], requires_grad=True)
        >>> b = torch.tensor([3., 4.], requires_grad=True)
        >>> c = a * b
        >>> h = torch.autograd.graph.register_multi_grad_hook(
        ...     (a, b, c), lambda gs: print([g is not None for g in gs]))
        >>> c.sum().backward(inputs=(a,))
        [True, False, True]
    """,
    "once_differentiable": """Decorator for a custom Function's `backward` that is not itself
    differentiable: it runs with gradient recording off, so a `create_graph=True` pass through it
    gives gradients without history.

    Args:
        fn (callable): the backward staticmethod's function.

    Example::

        >>> once_differentiable = torch.autograd.function.once_differentiable
        >>> class Square(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     @once_differentiable
        ...     def backward(ctx, grad):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * grad
        >>> x = torch.tensor([3.], requires_grad=True)
        >>> Square.apply(x).backward()
        >>> x.grad
        tensor([6.])
    """,
    "set_grad_enabled": """Context manager (and function) that turns gradient recording on or off
    for this thread: called bare it sets the mode; used with `with` it restores the previous mode on
    exit.

    Args:
        mode (bool): whether to record.

    Example::

        >>> x = torch.tensor([1.], requires_grad=True)
        >>> with torch.set_grad_enabled(False):
        ...     y = x * 2
        >>> y.requires_grad
        False
        >>> _ = torch.set_grad_enabled(False)
        >>> torch.is_grad_enabled()
        False
        >>> _ = torch.set_grad_enabled(True)
    """,
}
