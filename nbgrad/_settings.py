"""Process-wide settings PyTorch programs set at startup: deterministic algorithms and the
number of threads."""

import numba

_deterministic = [False, False]  # mode, warn_only
_threads = [numba.get_num_threads()]


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Sets whether operations must use deterministic algorithms.

    nbgrad's kernels are deterministic already (sums run in a fixed order, the same bits on
    every run), so this records the setting for `are_deterministic_algorithms_enabled`.

    Args:
        mode (bool): whether to require deterministic algorithms.
        warn_only (bool): warn instead of raising for nondeterministic ones. Default: False.

    Example::

        >>> torch.use_deterministic_algorithms(True)
        >>> torch.are_deterministic_algorithms_enabled()
        True
        >>> torch.use_deterministic_algorithms(False)
    """
    for name, v in (("mode", mode), ("warn_only", warn_only)):
        if not isinstance(v, bool):
            where = "(position 1) " if name == "mode" else ""
            raise TypeError(
                f"_set_deterministic_algorithms(): argument '{name}' {where}must be bool, "
                f"not {type(v).__name__}"
            )
    _deterministic[:] = [mode, warn_only]


def are_deterministic_algorithms_enabled() -> bool:
    """Returns True if `use_deterministic_algorithms(True)` is in effect.

    Example::

        >>> torch.are_deterministic_algorithms_enabled()
        False
    """
    return _deterministic[0]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Returns True if `use_deterministic_algorithms` was set with `warn_only=True`.

    Example::

        >>> torch.is_deterministic_algorithms_warn_only_enabled()
        False
    """
    return _deterministic[1]


def get_num_threads() -> int:
    """Returns the number of threads nbgrad's parallel kernels use (as last set by
    `set_num_threads`).

    Example::

        >>> torch.get_num_threads() >= 1
        True
    """
    return _threads[0]


def set_num_threads(num: int) -> None:
    """Sets the number of threads nbgrad's parallel kernels use in the calling thread
    (at most the size of Numba's pool, which `NUMBA_NUM_THREADS` fixes at startup).

    Args:
        num (int): a positive number of threads.

    Example::

        >>> n = torch.get_num_threads()
        >>> torch.set_num_threads(1)
        >>> torch.get_num_threads()
        1
        >>> torch.set_num_threads(n)
    """
    if not isinstance(num, int) or isinstance(num, bool):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    numba.set_num_threads(min(num, numba.config.NUMBA_NUM_THREADS))
    _threads[0] = num
