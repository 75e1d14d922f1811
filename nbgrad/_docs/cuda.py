"""Docstrings of `nbgrad.cuda` (keys are the names); the examples' outputs are PyTorch's."""

DOCS = {
    "current_device": """Returns the index of the current CUDA device.

    Example::

        >>> torch.cuda.current_device() if torch.cuda.is_available() else 0
        0
    """,
    "device_count": """Returns the number of CUDA devices available (0 without CUDA).

    Example::

        >>> torch.cuda.device_count() >= 0
        True
    """,
    "get_device_name": """Returns the name of a CUDA device.

    Args:
        device (int or nbgrad.device, optional): the device. Default: the current one.

    Example::

        >>> isinstance(torch.cuda.get_device_name(), str) if torch.cuda.is_available() else True
        True
    """,
    "is_available": """Returns True if a CUDA device can be used (a GPU with its driver, or Numba's
    simulator).

    Example::

        >>> isinstance(torch.cuda.is_available(), bool)
        True
    """,
    "is_simulated": """Returns True when Numba's CUDA simulator stands in for a GPU
    (`NUMBA_ENABLE_CUDASIM=1`). nbgrad only; PyTorch has no simulator.

    Example::

        >>> isinstance(torch.cuda.is_simulated(), bool)
        True
    """,
    "synchronize": """Waits for every kernel launched so far on the device to finish (kernels run
    asynchronously, as in PyTorch).

    Args:
        device (int or nbgrad.device, optional): the device. Default: the current one.

    Example::

        >>> torch.cuda.synchronize() if torch.cuda.is_available() else None
    """,
}
