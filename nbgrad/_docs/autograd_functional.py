"""Docstrings of `nbgrad.autograd.functional` (keys are the names); the examples' outputs are
PyTorch's."""

DOCS = {
    "hessian": """Returns the Hessian of a scalar `func` at `inputs` (the Jacobian of its gradient).

    Args:
        func (callable): takes Tensors, returns a one-element Tensor.
        inputs (Tensor or tuple of Tensor): the point.
        create_graph (bool): make the result differentiable. Default: False.
        strict (bool): raise if the output does not depend on an input. Default: False.
        vectorize (bool): accepted. Default: False.
        outer_jacobian_strategy (str): `"reverse-mode"` or `"forward-mode"`.

    Example::

        >>> torch.autograd.functional.hessian(lambda x: (x ** 3).sum(), torch.tensor([1., 2.]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """,
    "hvp": """Returns `(func(inputs), H v)` for a scalar `func` with Hessian H at `inputs`.

    Args:
        func (callable): takes Tensors, returns a one-element Tensor.
        inputs (Tensor or tuple of Tensor): the point.
        v (Tensor or tuple of Tensor): of the inputs' shapes.
        create_graph (bool): make the result differentiable. Default: False.
        strict (bool): raise if the output does not depend on an input. Default: False.

    Example::

        >>> torch.autograd.functional.hvp(lambda x: (x ** 3).sum(), torch.tensor([1., 2.]),
        ...     torch.tensor([1., 1.]))
        (tensor(9.), tensor([ 6., 12.]))
    """,
    "jacobian": """Returns the Jacobian of `func` at `inputs`: for each (output, input) pair a
    tensor of shape `output.shape + input.shape`.

    Args:
        func (callable): takes Tensors, returns a Tensor or a tuple of Tensors.
        inputs (Tensor or tuple of Tensor): the point.
        create_graph (bool): make the result differentiable. Default: False.
        strict (bool): raise if an output does not depend on an input. Default: False.
        vectorize (bool): accepted; the rows are computed in one batched pass. Default: False.
        strategy (str): `"reverse-mode"` or `"forward-mode"`. Default: `"reverse-mode"`.

    Example::

        >>> torch.autograd.functional.jacobian(lambda x: x ** 2, torch.tensor([1., 2.]))
        tensor([[2., 0.],
                [0., 4.]])
    """,
    "jvp": """Returns `(func(inputs), J v)`: the outputs and the Jacobian-vector product at
    `inputs`.

    Args:
        func (callable): takes Tensors, returns a Tensor or a tuple of Tensors.
        inputs (Tensor or tuple of Tensor): the point.
        v (Tensor or tuple of Tensor, optional): of the inputs' shapes; may be omitted for a
            single-element input.
        create_graph (bool): make the result differentiable. Default: False.
        strict (bool): raise if an output does not depend on an input. Default: False.

    Example::

        >>> torch.autograd.functional.jvp(lambda x: x ** 2, torch.tensor([1., 2.]),
        ...     torch.tensor([1., 0.]))
        (tensor([1., 4.]), tensor([2., 0.]))
    """,
    "vhp": """Returns `(func(inputs), v^T H)` for a scalar `func` with Hessian H at `inputs`.

    Args:
        func (callable): takes Tensors, returns a one-element Tensor.
        inputs (Tensor or tuple of Tensor): the point.
        v (Tensor or tuple of Tensor): of the inputs' shapes.
        create_graph (bool): make the result differentiable. Default: False.
        strict (bool): raise if the output does not depend on an input. Default: False.

    Example::

        >>> torch.autograd.functional.vhp(lambda x: (x ** 3).sum(), torch.tensor([1., 2.]),
        ...     torch.tensor([1., 0.]))
        (tensor(9.), tensor([6., 0.]))
    """,
    "vjp": """Returns `(func(inputs), v^T J)`: the outputs and the vector-Jacobian product at
    `inputs`.

    Args:
        func (callable): takes Tensors, returns a Tensor or a tuple of Tensors.
        inputs (Tensor or tuple of Tensor): the point.
        v (Tensor or tuple of Tensor, optional): of the outputs' shapes; may be omitted for
            a single-element output.
        create_graph (bool): make the result differentiable. Default: False.
        strict (bool): raise if an output does not depend on an input. Default: False.

    Example::

        >>> torch.autograd.functional.vjp(lambda x: x ** 2, torch.tensor([1., 2.]),
        ...     torch.tensor([1., 1.]))
        (tensor([1., 4.]), tensor([2., 4.]))
    """,
}
