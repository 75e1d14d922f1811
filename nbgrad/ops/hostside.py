"""Index computations that run on the host for ops whose values stay differentiable.

sort, unique, searchsorted and friends compute *which* elements to read in NumPy; the read
itself is a recorded gather, so gradients flow through it on either device.
"""

import numpy as np

from nbgrad._array import contig

from ..tensor import Tensor
from . import indexing


def values(x):
    """x's values as a NumPy array (a host copy for a CUDA tensor).

    Positions computed from them are fixed numbers in the recorded gather, so
    nbgrad.compile must not replay it for new values: a traced call is rejected (it then
    runs eagerly, as the compile's `fallback` says)."""
    hooks = getattr(indexing.TRACE, "__self__", None)
    if hooks is not None and x._rg:
        hooks.reject(
            "an index computed on the host from a traced tensor's values (sort, topk, "
            "unique, cummax, ...): the positions would be frozen"
        )
    return x.detach().cpu()._data if x.is_cuda else x._data


def on_device_of(arr, like):
    """A tensor without history holding `arr`, on `like`'s device."""
    t = Tensor._make(contig(arr) if np.ndim(arr) else np.array(arr), -1, False)
    return t.cuda() if like is not None and like.is_cuda else t


def check_tensor(x, fname, arg="input", pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )


def wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, not {type(dim).__name__}")
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return int(dim) % n
