"""Docstrings of `nbgrad.nn.utils` (keys are the names); the examples' outputs are PyTorch's."""

DOCS = {
    "clip_grad_norm_": """Scales all gradients together so that their joint norm is at most
    `max_norm`, in place; returns the total norm before clipping.

    Args:
        parameters (Tensor or iterable of Tensor): the parameters whose `.grad` to clip.
        max_norm (float): the maximum norm.
        norm_type (float): the p of the norm (`inf` for the max norm). Default: 2.
        error_if_nonfinite (bool): raise if the norm is NaN or infinite. Default: False.
        foreach (bool, optional): accepted.

    Example::

        >>> w = torch.tensor([3., 4.], requires_grad=True)
        >>> (w * w).sum().backward()
        >>> torch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
        tensor(10.)
        >>> w.grad
        tensor([0.6000, 0.8000])
    """,
    "clip_grad_value_": """Clamps every gradient element to `[-clip_value, clip_value]`, in place.

    Args:
        parameters (Tensor or iterable of Tensor): the parameters whose `.grad` to clip.
        clip_value (float): the bound.
        foreach (bool, optional): accepted.

    Example::

        >>> w = torch.tensor([3., -0.1], requires_grad=True)
        >>> (w * w).sum().backward()
        >>> torch.nn.utils.clip_grad_value_([w], clip_value=1.0)
        >>> w.grad
        tensor([ 1.0000, -0.2000])
    """,
    "parameters_to_vector": """Returns one flat tensor of all the parameters, in order (a copy, not
    recorded).

    Args:
        parameters (iterable of Tensor): the parameters.

    Example::

        >>> m = torch.nn.Linear(2, 3)
        >>> torch.nn.utils.parameters_to_vector(m.parameters()).shape
        nbgrad.Size([9])
    """,
    "vector_to_parameters": """Copies consecutive slices of `vec` into the parameters, in place.

    Args:
        vec (Tensor): a flat tensor with as many elements as the parameters together.
        parameters (iterable of Tensor): the parameters.

    Example::

        >>> m = torch.nn.Linear(2, 1)
        >>> torch.nn.utils.vector_to_parameters(torch.tensor([1., 2., 3.]), m.parameters())
        >>> m.weight, m.bias
        (Parameter containing:
        tensor([[1., 2.]], requires_grad=True), Parameter containing:
        tensor([3.], requires_grad=True))
    """,
}
