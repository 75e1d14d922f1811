"""no_grad / enable_grad / set_grad_enabled, usable as context managers and decorators.

The mode is per thread, as in PyTorch (`STATE` is a `threading.local`, see `_mt.py`):
`no_grad()` in one thread does not stop another from recording, and a new thread starts
with gradients enabled.
"""

import functools

from .._mt import STATE


def is_grad_enabled():
    return STATE.enabled


class _GradMode:
    _mode: bool | None = None

    def __enter__(self):
        self._prev = STATE.enabled
        STATE.enabled = self._mode

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradMode):
    """Context manager (and decorator) that disables gradient recording.

    Ops inside record nothing and their outputs do not require grad, which saves memory
    and time in evaluation or when updating parameters by hand. The mode is per thread and
    is restored on exit.

    Example::

        >>> x = torch.tensor([1.], requires_grad=True)
        >>> with torch.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
        >>> @torch.no_grad()
        ... def doubler(x):
        ...     return x * 2
        >>> doubler(x).requires_grad
        False
    """

    _mode = False


class enable_grad(_GradMode):
    _mode = True


class set_grad_enabled(_GradMode):
    """Sets the mode on construction (so a bare call works), restores it on exit."""

    def __init__(self, mode):
        self._prev = STATE.enabled
        self._mode = bool(mode)
        STATE.enabled = self._mode

    def __enter__(self):
        STATE.enabled = self._mode

    def __call__(self, fn):
        STATE.enabled = self._prev
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return wrapper


class inference_mode(no_grad):
    def __init__(self, mode=True):
        self._mode = not mode
