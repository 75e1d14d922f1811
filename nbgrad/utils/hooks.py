"""`torch.utils.hooks`: the handle every hook registration returns.

Every registration in nbgrad (tensor, node, module and global module hooks) returns a
`RemovableHandle` or a subclass that does some bookkeeping of its own on `remove()`, so
`isinstance(h, torch.utils.hooks.RemovableHandle)` holds as in PyTorch and handles share
one id sequence."""

from ..autograd.handles import RemovableHandle

__all__ = ["RemovableHandle", "unserializable_hook"]


def unserializable_hook(f):
    """Mark a function as a hook that is not meant to be saved with its tensor.

    Args:
        f: the hook; it is returned, marked with ``__torch_unserializable__ = True``.

    Example::

        >>> @torch.utils.hooks.unserializable_hook
        ... def hook(grad):
        ...     return grad
        >>> hook.__torch_unserializable__
        True
    """
    f.__torch_unserializable__ = True
    return f
