"""Docstrings of `nbgrad.autograd.forward_ad` (keys are the names); the examples' outputs are
PyTorch's."""

DOCS = {
    "UnpackedDualTensor": """The named tuple `(primal, tangent)` returned by `unpack_dual`.

    Args:
        primal (Tensor): the value.
        tangent (Tensor or None): its forward-mode tangent.

    Example::

        >>> fwAD = torch.autograd.forward_ad
        >>> with fwAD.dual_level():
        ...     p, t = fwAD.unpack_dual(fwAD.make_dual(torch.tensor([1.]), torch.tensor([5.])))
        >>> p, t
        (tensor([1.]), tensor([5.]))
    """,
    "dual_level": """Context manager inside which dual tensors (made by `make_dual`) carry their
    tangents through operations (forward-mode AD).

    Example::

        >>> fwAD = torch.autograd.forward_ad
        >>> with fwAD.dual_level():
        ...     x = fwAD.make_dual(torch.tensor([1., 2.]), torch.tensor([1., 0.]))
        ...     fwAD.unpack_dual(x.sin()).tangent
        tensor([0.5403, -0.0000])
    """,
    "enter_dual_level": """Enters a new dual level and returns its index (what `dual_level` does on
    entry; prefer the context manager).

    Example::

        >>> fwAD = torch.autograd.forward_ad
        >>> level = fwAD.enter_dual_level()
        >>> fwAD.exit_dual_level(level=level)
    """,
    "exit_dual_level": """Exits the innermost dual level (what `dual_level` does on exit); its
    tangents are dropped.

    Args:
        level (int, optional): the level to exit (must be the innermost). Default: it.

    Example::

        >>> fwAD = torch.autograd.forward_ad
        >>> level = fwAD.enter_dual_level()
        >>> fwAD.exit_dual_level(level=level)
    """,
    "make_dual": """Returns a tensor with `tensor`'s value whose forward-mode tangent is `tangent`
    (inside a `dual_level`).

    Args:
        tensor (Tensor): the primal value (floating point).
        tangent (Tensor): the tangent, of tensor's shape.
        level (int, optional): the dual level. Default: the innermost.

    Example::

        >>> fwAD = torch.autograd.forward_ad
        >>> with fwAD.dual_level():
        ...     x = fwAD.make_dual(torch.tensor([3.]), torch.tensor([1.]))
        ...     fwAD.unpack_dual(x * x).tangent
        tensor([6.])
    """,
    "unpack_dual": """Returns `(primal, tangent)` of a tensor as an `UnpackedDualTensor`; the
    tangent is None if the tensor does not depend on a dual tensor.

    Args:
        tensor (Tensor): the tensor.
        level (int, optional): the dual level. Default: the innermost.

    Example::

        >>> fwAD = torch.autograd.forward_ad
        >>> with fwAD.dual_level():
        ...     y = fwAD.make_dual(torch.tensor([2.]), torch.tensor([1.])).exp()
        ...     fwAD.unpack_dual(y).tangent
        tensor([7.3891])
    """,
}
