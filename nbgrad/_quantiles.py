"""Order statistics composed from `sort` and `gather`: median, nanmedian, quantile,
nanquantile. Gradients flow through the sorted values to the chosen elements."""

from collections import namedtuple

import numpy as np

from . import _dtype
from .tensor import Tensor, _wrap_dim

return_types_median = namedtuple("median", ["values", "indices"])
return_types_nanmedian = namedtuple("nanmedian", ["values", "indices"])
_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _last(input, dim, name):
    """`input` with `dim` moved last (flattened when dim is None), and its sort."""
    if dim is None:
        x = input.reshape(-1)
    else:
        d = _wrap_dim(dim, input.dim())
        if input.dim() and input.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        x = input.unsqueeze(0) if input.dim() == 0 else input.movedim(d, -1)
    return x.sort(-1, stable=True)  # stable: NaNs (sorted last) keep their order


def _finish(t, input, dim, keepdim):
    """A result over the last axis (kept as size 1) back in `input`'s layout."""
    if dim is None:
        return t.reshape(())
    if input.dim() == 0:
        return t.reshape(())
    t = t.movedim(-1, _wrap_dim(dim, input.dim()))
    return t if keepdim else t.squeeze(_wrap_dim(dim, input.dim()))


def _pick(input, dim, keepdim, ignore_nan, name):
    v, i = _last(input, dim, name)
    n = v.shape[-1]
    if n == 0:  # only for dim=None: the median of nothing
        return Tensor._make(np.array(np.nan, input._data.dtype), -1, False)
    nan = np.isnan(v._data)
    if ignore_nan:  # the lower median of the values that are not NaN (NaNs sort last)
        pos = np.maximum((n - nan.sum(-1, keepdims=True) - 1) // 2, 0)
    else:  # a row holding NaN has median NaN: its first NaN, as PyTorch picks
        count = nan.sum(-1, keepdims=True)
        pos = np.where(count > 0, n - count, (n - 1) // 2)
    pos = Tensor._make(np.ascontiguousarray(pos, np.int64), -1, False)
    values = _finish(v.gather(-1, pos), input, dim, keepdim)
    if dim is None:
        return values
    return values, _finish(i.gather(-1, pos), input, dim, keepdim)


def median(input, dim=None, keepdim=False):
    """Returns the median of the elements of `input` (over `dim`, with the indices of the
    medians, if given). For an even count it is the lower of the two middle values, as in
    PyTorch; a NaN makes the median NaN.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce. Default: all elements.
        keepdim (bool): keep `dim` with size 1. Default: False.

    Example::

        >>> x = torch.tensor([[1., 5., 3., 4.], [2., 0., 7., 6.]])
        >>> torch.median(x)
        tensor(3.)
        >>> torch.median(x, 1).values
        tensor([3., 2.])
        >>> torch.median(x, 1).indices
        tensor([2, 0])
    """
    out = _pick(input, dim, keepdim, False, "median")
    return out if dim is None else return_types_median(*out)


def nanmedian(input, dim=None, keepdim=False):
    """Returns the median of the elements of `input` that are not NaN (over `dim`, with
    their indices, if given): `median` ignoring NaNs. All-NaN rows give NaN.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce. Default: all elements.
        keepdim (bool): keep `dim` with size 1. Default: False.

    Example::

        >>> x = torch.tensor([[1., float('nan'), 3.], [4., 2., 6.]])
        >>> torch.nanmedian(x, 1).values
        tensor([1., 4.])
    """
    out = _pick(input, dim, keepdim, True, "nanmedian")
    return out if dim is None else return_types_nanmedian(*out)


def _check_q(input, q, interpolation):
    if not (isinstance(input, Tensor) and input.dtype in (_dtype.float32, _dtype.float64)):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if interpolation not in _MODES:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    if isinstance(q, Tensor):
        if q.dtype is not input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        if q.dim() > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        qs = np.asarray(q._data, np.float64)
    else:
        qs = np.asarray(float(q), np.float64)
        if not 0 <= qs <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {float(q):g}")
    if not ((qs >= 0) & (qs <= 1)).all():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    return qs


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    qs = _check_q(input, q, interpolation)
    v, _ = _last(input, dim, "quantile")
    n = v.shape[-1]
    nan = np.isnan(v._data)
    count = n - nan.sum(-1, keepdims=True) if ignore_nan else np.full(nan.shape[:-1] + (1,), n)
    outs = []
    for qv in qs.reshape(-1):
        rank = qv * np.maximum(count - 1, 0)
        if not ignore_nan:  # a row holding NaN gives NaN: its last sorted element
            rank = np.where(nan.any(-1, keepdims=True), n - 1, rank)
        if interpolation == "nearest":
            rank = np.round(rank)  # halves to even, as PyTorch
        lo, hi = np.floor(rank).astype(np.int64), np.ceil(rank).astype(np.int64)
        a = v.gather(-1, Tensor._make(lo, -1, False))
        b = v.gather(-1, Tensor._make(hi, -1, False))
        if interpolation in ("lower", "nearest"):
            r = a
        elif interpolation == "higher":
            r = b
        else:
            w = 0.5 if interpolation == "midpoint" else (rank - lo).astype(v._data.dtype)
            r = a + (b - a) * (w if np.ndim(w) == 0 else Tensor._make(w, -1, False))
        outs.append(_finish(r, input, dim, keepdim))
    if isinstance(q, Tensor) and q.dim() == 1:
        from .ops.joins import stack

        return stack(outs)
    return outs[0]


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """Returns the `q`-th quantiles of `input` (over `dim`, if given), interpolating between
    the two nearest sorted values as `interpolation` says. A NaN in a row makes its
    quantiles NaN.

    Args:
        input (Tensor): a float32 or float64 tensor.
        q (float or Tensor): a quantile in [0, 1], or a 1-D tensor of them (its dimension
            comes first in the result).
        dim (int, optional): the dimension to reduce. Default: all elements.
        keepdim (bool): keep `dim` with size 1. Default: False.
        interpolation (str): `"linear"`, `"lower"`, `"higher"`, `"midpoint"` or
            `"nearest"`. Default: `"linear"`.

    Example::

        >>> torch.quantile(torch.tensor([1., 2., 3., 4.]), torch.tensor([0.5, 0.25]))
        tensor([2.5000, 1.7500])
    """
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """`quantile` ignoring NaNs: the quantiles of each row's values that are not NaN
    (all-NaN rows give NaN).

    Args:
        input (Tensor): a float32 or float64 tensor.
        q (float or Tensor): a quantile in [0, 1], or a 1-D tensor of them.
        dim (int, optional): the dimension to reduce. Default: all elements.
        keepdim (bool): keep `dim` with size 1. Default: False.
        interpolation (str): as in `quantile`. Default: `"linear"`.

    Example::

        >>> torch.nanquantile(torch.tensor([1., float('nan'), 3.]), 0.5)
        tensor(2.)
    """
    return _quantile(input, q, dim, keepdim, interpolation, True)


for _f in (median, nanmedian, quantile, nanquantile):
    setattr(Tensor, _f.__name__, _f)
