"""Running products and extrema: cumprod, cummax, cummin.

cumprod is a scan of recorded multiplications (Hillis-Steele: log2(n) steps, each
multiplying the running products by themselves shifted), so it is exact where a product is
(zeros and negative values included, unlike exp(cumsum(log x))), and its gradient, double
backward and CUDA come from `mul`. cummax/cummin find their indices on the host and read
the values with a recorded gather.
"""

from collections import namedtuple

import numpy as np

from .. import _dtype
from .hostside import check_tensor, on_device_of, values, wrap_dim
from .indexing import gather

return_types_cummax = namedtuple("cummax", ["values", "indices"])
return_types_cummin = namedtuple("cummin", ["values", "indices"])


def cumprod(input, dim, *, dtype=None):  # noqa: A002
    """Cumulative product along `dim`: `y[i] = x[0] * ... * x[i]`.

    Args:
        input (Tensor): the tensor (integer and bool inputs give int64).
        dim (int): the dim.
        dtype (nbgrad.dtype, optional): cast the input to this dtype first.

    Example::

        >>> torch.cumprod(torch.tensor([1., 2., 0., 3.]), 0)
        tensor([1., 2., 0., 0.])
    """
    check_tensor(input, "cumprod")
    d = wrap_dim(dim, input.dim())
    if dtype is not None:
        input = input.to(_dtype.as_dtype(dtype))
    if not input.is_floating_point():  # no gradient: NumPy's product, in int64
        return on_device_of(np.cumprod(values(input).astype(np.int64), axis=d), input)
    if input.dim() == 0:
        return input.clone()
    y = input.movedim(d, -1) if d != input.dim() - 1 else input
    n, s = y.shape[-1], 1
    from .joins import cat

    while s < n:
        y = cat([y[..., :s], y[..., s:] * y[..., :-s]], -1)
        s *= 2
    return y.movedim(-1, d) if d != input.dim() - 1 else y


def _running(input, dim, is_max):  # noqa: A002
    name = "cummax" if is_max else "cummin"
    check_tensor(input, name)
    d = wrap_dim(dim, input.dim())
    a = values(input)
    if a.ndim == 0:
        return input.clone(), on_device_of(np.zeros((), np.int64), input)
    acc = np.maximum if is_max else np.minimum
    m = acc.accumulate(a, axis=d) if a.shape[d] else a
    # the latest position holding the running extreme; a NaN stays the extreme from there
    # on and each later NaN takes over, as in PyTorch
    hit = (a == m) | (np.isnan(a) if a.dtype.kind == "f" else False)
    shape = [1] * a.ndim
    shape[d] = a.shape[d]
    pos = np.where(hit, np.arange(a.shape[d]).reshape(shape), 0)
    idx = np.maximum.accumulate(pos, axis=d) if a.shape[d] else pos.astype(np.int64)
    it = on_device_of(idx.astype(np.int64), input)
    return gather(input, d, it), it


def cummax(input, dim):  # noqa: A002
    """Running maximum along `dim` and the index where each running maximum sits.

    Args:
        input (Tensor): the tensor.
        dim (int): the dim.

    Example::

        >>> torch.cummax(torch.tensor([1., 3., 2.]), 0).indices
        tensor([0, 1, 1])
    """
    return return_types_cummax(*_running(input, dim, True))


def cummin(input, dim):  # noqa: A002
    """Running minimum along `dim` and the index where each running minimum sits.

    Args:
        input (Tensor): the tensor.
        dim (int): the dim.

    Example::

        >>> torch.cummin(torch.tensor([3., 1., 2.]), 0).values
        tensor([3., 1., 1.])
    """
    return return_types_cummin(*_running(input, dim, False))
