"""Sorting and searching: sort/argsort/msort/topk/kthvalue, searchsorted/bucketize,
unique, histc.

The order is computed on the host (NumPy, after validation); values are then read with a
recorded `gather`, so their gradient is a scatter back to where each value came from, on
either device and under create_graph. Indices, counts and histograms have no gradient.
"""

from collections import namedtuple

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from .hostside import check_tensor, on_device_of, values, wrap_dim
from .indexing import gather

return_types_sort = namedtuple("sort", ["values", "indices"])
return_types_topk = namedtuple("topk", ["values", "indices"])
return_types_kthvalue = namedtuple("kthvalue", ["values", "indices"])


def _order(a, axis, descending):
    """Stable argsort along `axis`; NaN sorts above everything, as in PyTorch."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    # descending and stable: sort the reversed array ascending, then reverse back
    rev = np.flip(a, axis)
    n = a.shape[axis]
    return n - 1 - np.flip(np.argsort(rev, axis=axis, kind="stable"), axis)


def _along(input, dim, order_fn):  # noqa: A002
    """(values, int64 indices) for indices `order_fn(host array, axis)` along `dim`."""
    a = values(input)
    if a.ndim == 0:
        idx = np.zeros((), np.int64)
        return input.clone() if input._rg else input.detach().clone(), on_device_of(idx, input)
    idx = np.ascontiguousarray(order_fn(a, dim), dtype=np.int64)
    it = on_device_of(idx, input)
    return gather(input, dim, it), it


def sort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    """Sorts along `dim`; returns `(values, indices)` with `input.gather(dim, indices) ==
    values`. The sort is always stable (ties keep their order); NaN sorts as the largest.

    Args:
        input (Tensor): the tensor.
        dim (int): the dim to sort along. Default: -1.
        descending (bool): largest first. Default: False.
        stable (bool): accepted; every sort is stable.

    Example::

        >>> v, i = torch.sort(torch.tensor([3., 1., 2.]))
        >>> v, i
        (tensor([1., 2., 3.]), tensor([1, 2, 0]))
    """
    check_tensor(input, "sort")
    d = wrap_dim(dim, input.dim())
    v, i = _along(input, d, lambda a, ax: _order(a, ax, descending))
    return return_types_sort(v, i)


def argsort(input, dim=-1, descending=False, *, stable=False):  # noqa: A002
    """The indices that sort `input` along `dim` (see `sort`).

    Args:
        input (Tensor): the tensor.
        dim (int): the dim to sort along. Default: -1.
        descending (bool): largest first. Default: False.
        stable (bool): accepted; every sort is stable.

    Example::

        >>> torch.argsort(torch.tensor([3., 1., 2.]))
        tensor([1, 2, 0])
    """
    return sort(input, dim, descending, stable).indices


def msort(input):  # noqa: A002
    """Sorts along the first dim (the values of `sort(input, dim=0)`).

    Args:
        input (Tensor): the tensor.

    Example::

        >>> torch.msort(torch.tensor([[2., 1.], [0., 3.]]))
        tensor([[0., 1.],
                [2., 3.]])
    """
    return sort(input, 0).values


def _check_k(k):
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"k must be an int, not {type(k).__name__}")


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """The `k` largest (or smallest) elements along `dim`: `(values, indices)`.

    Args:
        input (Tensor): the tensor.
        k (int): how many.
        dim (int): the dim. Default: -1.
        largest (bool): the largest (True) or the smallest. Default: True.
        sorted (bool): accepted; the result is always in sorted order.

    Example::

        >>> torch.topk(torch.tensor([1., 4., 2., 3.]), 2).indices
        tensor([1, 3])
    """
    check_tensor(input, "topk")
    d = wrap_dim(dim, input.dim())
    _check_k(k)
    n = input.shape[d] if input.dim() else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    v, i = _along(input, d, lambda a, ax: _order(a, ax, largest).take(range(k), ax))
    return return_types_topk(v, i)


def kthvalue(input, k, dim=-1, keepdim=False):  # noqa: A002
    """The `k`-th smallest element along `dim` (k counts from 1): `(values, indices)`.

    Args:
        input (Tensor): the tensor.
        k (int): which order statistic.
        dim (int): the dim. Default: -1.
        keepdim (bool): keep `dim` with size 1. Default: False.

    Example::

        >>> torch.kthvalue(torch.tensor([3., 1., 2.]), 2).values
        tensor(2.)
    """
    check_tensor(input, "kthvalue")
    d = wrap_dim(dim, input.dim())
    _check_k(k)
    n = input.shape[d] if input.dim() else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    v, i = _along(input, d, lambda a, ax: _order(a, ax, False).take([k - 1], ax))
    if not keepdim and input.dim():
        v, i = v.squeeze(d), i.squeeze(d)
    return return_types_kthvalue(v, i)


def _index_dtype(out_int32):
    return np.int32 if out_int32 else np.int64


def _side(right, side):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                "left while right was True"
            )
        return side
    return "right" if right else "left"


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):  # noqa: A002
    """Indices where `input`'s values would be inserted into `sorted_sequence`'s last dim to
    keep it sorted.

    Args:
        sorted_sequence (Tensor): 1-D, or N-D sorted along its last dim with leading dims
            matching `input`'s.
        input (Tensor or number): the values to look up.
        out_int32 (bool): int32 indices instead of int64. Default: False.
        right (bool): the last suitable index instead of the first. Default: False.
        side (str): "left" or "right", the same as `right`.
        sorter (Tensor): indices that sort `sorted_sequence` if it is not sorted.

    Example::

        >>> torch.searchsorted(torch.tensor([1., 2., 3.]), torch.tensor([2.5, 0.]))
        tensor([2, 0])
    """
    check_tensor(sorted_sequence, "searchsorted", "sorted_sequence")
    how = _side(right, side)
    seq = values(sorted_sequence)
    scalar = not isinstance(input, Tensor)
    v = np.asarray(input) if scalar else values(input)
    if sorter is not None:
        sidx = values(sorter)
        if sidx.shape != seq.shape:
            raise RuntimeError(
                "torch.searchsorted(): boundary and sorter must have the same size, but got "
                f"boundary tensor {list(seq.shape)}and got sorter tensor {list(sidx.shape)}"
            )
        if sidx.size and (sidx.min() < 0 or sidx.max() >= seq.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
        seq = np.take_along_axis(seq, sidx.astype(np.int64), -1)
    if seq.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(seq.shape)} and input value tensor {list(v.shape)}"
        )
    if seq.ndim == 1:
        out = np.searchsorted(seq, v, side=how)
    else:
        if scalar or seq.shape[:-1] != v.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first "
                "N-1 dimensions of boundaries tensor and input value tensor must match, but "
                f"we got boundaries tensor {list(seq.shape)} and input value tensor "
                f"{list(v.shape)}"
            )
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = v.reshape(-1, v.shape[-1])
        out = np.stack([np.searchsorted(s, r, side=how) for s, r in zip(rows_s, rows_v)])
        out = out.reshape(v.shape)
    out = np.asarray(out, _index_dtype(out_int32))
    return on_device_of(out, sorted_sequence)


def bucketize(input, boundaries, *, out_int32=False, right=False):  # noqa: A002
    """The index of the bucket of `boundaries` (1-D, sorted) each value of `input` falls in.

    Args:
        input (Tensor or number): the values.
        boundaries (Tensor): 1-D, increasing.
        out_int32 (bool): int32 indices instead of int64. Default: False.
        right (bool): `boundaries[i-1] <= x < boundaries[i]` instead of
            `boundaries[i-1] < x <= boundaries[i]`. Default: False.

    Example::

        >>> torch.bucketize(torch.tensor([0.5, 1.5]), torch.tensor([1., 2.]))
        tensor([0, 1])
    """
    check_tensor(boundaries, "bucketize", "boundaries", 2)
    if boundaries.dim() != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct elements of `input` (or distinct slices along `dim`), sorted.

    Args:
        input (Tensor): the tensor.
        sorted (bool): accepted; the result is always sorted.
        return_inverse (bool): also return where each element went. Default: False.
        return_counts (bool): also return how often each distinct value occurs.
            Default: False.
        dim (int, optional): compare slices along this dim instead of elements.

    Example::

        >>> torch.unique(torch.tensor([2, 1, 2]), return_counts=True)
        (tensor([1, 2]), tensor([1, 2]))
    """
    check_tensor(input, "unique")
    a = values(input)
    if dim is None:
        u, inv, cnt = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
        inv = inv.reshape(a.shape)
    else:
        d = wrap_dim(dim, a.ndim)
        if a.ndim == 0:
            u, inv, cnt = a.reshape(1), np.zeros((), np.int64), np.ones(1, np.int64)
        else:
            u, inv, cnt = np.unique(a, return_inverse=True, return_counts=True, axis=d)
            inv = inv.reshape(-1)
    out = [on_device_of(u, input)]
    if return_inverse:
        out.append(on_device_of(inv.astype(np.int64), input))
    if return_counts:
        out.append(on_device_of(cnt.astype(np.int64), input))
    return out[0] if len(out) == 1 else tuple(out)


def histc(input, bins=100, min=0, max=0):  # noqa: A001, A002
    """A histogram of `input`'s values in `bins` equal bins over [min, max] (the data's
    range when both are 0); values outside are ignored. Not differentiable.

    Args:
        input (Tensor): a float tensor.
        bins (int): the number of bins. Default: 100.
        min (float), max (float): the range. Default: 0 and 0.

    Example::

        >>> torch.histc(torch.tensor([1., 2., 1.]), bins=4, min=0, max=3)
        tensor([0., 2., 1., 0.])
    """
    check_tensor(input, "histc")
    if not input.is_floating_point():
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{_dtype.scalar_name(input.dtype)}'"
        )
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    a = values(input).reshape(-1)
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo}, {hi}] is not finite")
    kept = a[(a >= lo) & (a <= hi)]
    # bin = floor((x - lo) * bins / (hi - lo)), the top edge in the last bin, as PyTorch
    b = ((kept.astype(np.float64) - lo) * bins / (hi - lo)).astype(np.int64)
    b = np.minimum(b, bins - 1)
    out = np.bincount(b, minlength=bins).astype(a.dtype)
    return on_device_of(out, input)
