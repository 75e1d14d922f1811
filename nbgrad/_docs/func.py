"""Docstrings of `nbgrad.func` (keys are the names); the examples' outputs are PyTorch's."""

DOCS = {
    "functional_call": """Calls `module(*args, **kwargs)` with the given tensors in place of its
    parameters and buffers (by dotted name); the module itself is left unchanged.

    Args:
        module (Module): the module.
        parameter_and_buffer_dicts (dict or tuple of dicts): name to tensor.
        args (tuple or Tensor, optional): positional arguments.
        kwargs (dict, optional): keyword arguments.
        tie_weights (bool): tied parameters are replaced together. Default: True.
        strict (bool): every parameter and buffer must be given. Default: False.

    Example::

        >>> functional_call = torch.func.functional_call
        >>> m = torch.nn.Linear(2, 1)
        >>> params = {"weight": torch.tensor([[1., 1.]]), "bias": torch.tensor([0.5])}
        >>> functional_call(m, params, (torch.tensor([[1., 2.]]),))
        tensor([[3.5000]])
    """,
    "grad": """Returns a function that computes the gradient of the scalar `func` with respect to
    its argument(s) `argnums`.

    Args:
        func (callable): returns a one-element Tensor (or `(output, aux)` with has_aux).
        argnums (int or tuple of ints): the arguments to differentiate. Default: 0.
        has_aux (bool): func returns `(output, aux)`; the result is then `(grad, aux)`.
            Default: False.

    Example::

        >>> grad = torch.func.grad
        >>> grad(lambda x: (x ** 3).sum())(torch.tensor([1., 2.]))
        tensor([ 3., 12.])
        >>> grad(grad(lambda x: x.sin()))(torch.tensor(0.5))
        tensor(-0.4794)
    """,
    "grad_and_value": """Returns a function that computes `(gradient, value)` of the scalar `func`
    with respect to the argument(s) `argnums`.

    Args:
        func (callable): returns a one-element Tensor (or `(output, aux)` with has_aux).
        argnums (int or tuple of ints): the arguments to differentiate. Default: 0.
        has_aux (bool): func returns `(output, aux)`. Default: False.

    Example::

        >>> grad_and_value = torch.func.grad_and_value
        >>> grad_and_value(lambda x: (x ** 2).sum())(torch.tensor([1., 2.]))
        (tensor([2., 4.]), tensor(5.))
    """,
    "hessian": """Returns a function that computes the Hessian of the scalar `func` with respect to
    the argument(s) `argnums` (`jacfwd(jacrev(func))`).

    Args:
        func (callable): returns a one-element Tensor.
        argnums (int or tuple of ints): the arguments to differentiate. Default: 0.

    Example::

        >>> hessian = torch.func.hessian
        >>> hessian(lambda x: (x ** 3).sum())(torch.tensor([1., 2.]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """,
    "jacfwd": """Returns a function that computes the Jacobian of `func` with respect to the
    argument(s) `argnums`, by forward mode (one forward pass with the identity as tangents).

    Args:
        func (callable): takes Tensors, returns a Tensor (or `(output, aux)` with has_aux).
        argnums (int or tuple of ints): the arguments to differentiate. Default: 0.
        has_aux (bool): func returns `(output, aux)`. Default: False.

    Example::

        >>> jacfwd = torch.func.jacfwd
        >>> jacfwd(lambda x: x ** 2)(torch.tensor([1., 2.]))
        tensor([[2., 0.],
                [0., 4.]])
    """,
    "jacrev": """Returns a function that computes the Jacobian of `func` with respect to the
    argument(s) `argnums`, by reverse mode (one batched vector-Jacobian pass).

    Args:
        func (callable): takes Tensors, returns a Tensor (or `(output, aux)` with has_aux).
        argnums (int or tuple of ints): the arguments to differentiate. Default: 0.
        has_aux (bool): func returns `(output, aux)`. Default: False.

    Example::

        >>> jacrev = torch.func.jacrev
        >>> jacrev(lambda x: x ** 2)(torch.tensor([1., 2.]))
        tensor([[2., 0.],
                [0., 4.]])
    """,
    "jvp": """Returns `(func(*primals), J @ tangents)`, computed by forward mode.

    Args:
        func (callable): takes Tensors, returns a Tensor or a tuple of Tensors.
        primals (tuple of Tensor): the point.
        tangents (tuple of Tensor): one tangent per primal, of its shape.
        has_aux (bool): func returns `(output, aux)`. Default: False.

    Example::

        >>> jvp = torch.func.jvp
        >>> jvp(lambda x: x ** 2, (torch.tensor([1., 2.]),), (torch.tensor([1., 1.]),))
        (tensor([1., 4.]), tensor([2., 4.]))
    """,
    "stack_module_state": """Stacks the parameters and buffers of models of the same structure along
    a new first dimension: returns `(params, buffers)`, dicts from names to stacked tensors (the
    stacked parameters are new leaves that require grad).

    Args:
        models (sequence of Module): the models.

    Example::

        >>> stack_module_state = torch.func.stack_module_state
        >>> models = [torch.nn.Linear(3, 2) for _ in range(4)]
        >>> params, buffers = stack_module_state(models)
        >>> params["weight"].shape
        nbgrad.Size([4, 2, 3])
    """,
    "vjp": """Returns `(func(*primals), vjp_fn)`; `vjp_fn(cotangents)` returns the vector-Jacobian
    products, one per primal.

    Args:
        func (callable): takes Tensors, returns a Tensor or a tuple of Tensors.
        *primals (Tensor): the point.
        has_aux (bool): func returns `(output, aux)`; aux is returned third. Default: False.

    Example::

        >>> vjp = torch.func.vjp
        >>> out, vjp_fn = vjp(torch.sin, torch.tensor([0., 1.]))
        >>> vjp_fn(torch.tensor([1., 1.]))
        (tensor([1.0000, 0.5403]),)
    """,
}
