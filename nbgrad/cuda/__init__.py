"""`nbgrad.cuda`: PyTorch's `torch.cuda` entry points for nbgrad's CUDA backend.

Importing nbgrad never imports numba.cuda; these functions do, on first call. With no
GPU (and no `NUMBA_ENABLE_CUDASIM=1`), `is_available()` is False and creating a CUDA
tensor raises. See docs/cuda.md.
"""

from ..backends.cuda import runtime as _rt


def is_available():
    return _rt.available()


def device_count():
    if not _rt.available():
        return 0
    return len(_rt.cuda().gpus)


def current_device():
    return 0


def synchronize(device=None):
    """Wait for all kernels launched so far (kernels are asynchronous, as in PyTorch)."""
    if _rt.available():
        _rt.cuda().synchronize()


def get_device_name(device=None):
    if not _rt.available():
        raise RuntimeError("nbgrad: CUDA is not available")
    if _rt.simulated():
        return "Numba CUDA simulator"
    name = _rt.cuda().get_current_device().name
    return name.decode() if isinstance(name, bytes) else name


def is_simulated():
    """True when Numba's CUDA simulator stands in for a GPU (NUMBA_ENABLE_CUDASIM=1)."""
    return _rt.available() and _rt.simulated()


__all__ = [
    "current_device",
    "device_count",
    "get_device_name",
    "is_available",
    "is_simulated",
    "synchronize",
]

from .. import _docs  # noqa: E402

_docs.attach(__name__, "cuda")
