"""The handle every hook registration returns (`torch.utils.hooks.RemovableHandle`).

It lives here, below the hooks that return it (tensor and node hooks in autograd, module
hooks in nn), and `nbgrad.utils.hooks` exports it under PyTorch's name."""

import weakref
from collections import OrderedDict
from typing import Any


class RemovableHandle:
    """A handle which provides the capability to remove a hook.

    Args:
        hooks_dict (dict): a dictionary of hooks, indexed by hook ``id`` (held weakly, so
            it must be weak-referenceable, as an ``OrderedDict`` is).
        extra_dict (dict or list of dicts, optional): more dictionaries whose ``id`` entry
            is removed with the hook.

    Example::

        >>> from collections import OrderedDict
        >>> hooks = OrderedDict()
        >>> h = torch.utils.hooks.RemovableHandle(hooks)
        >>> hooks[h.id] = print
        >>> with h:
        ...     len(hooks)
        1
        >>> len(hooks)
        0
    """

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref: tuple = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        """Remove the hook (a second call does nothing).

        Example::

            >>> x = torch.tensor([1.0], requires_grad=True)
            >>> h = x.register_hook(lambda g: g * 10)
            >>> h.remove()
            >>> (x * 2).sum().backward()
            >>> x.grad
            tensor([2.])
        """
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state) -> None:
        # an unpickled handle whose dictionary is gone refers to an empty one
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extra = state[2] if len(state) > 2 and state[2] is not None else ()
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, type: Any, value: Any, tb: Any) -> None:
        self.remove()


RemovableHandle.__module__ = "nbgrad.utils.hooks"  # its public home, for reprs and pickles
