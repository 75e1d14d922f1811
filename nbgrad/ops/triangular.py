"""Triangles and diagonals: tril/triu (+ their index lists), diagonal, diag, diag_embed,
trace.

All are composites: tril/triu select with `where` against a host-built mask (so the
gradient is masked the same way), and the diagonal ops are one recorded gather (`take`)
whose positions depend only on shapes.
"""

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from . import indexing
from .hostside import check_tensor, on_device_of, wrap_dim


def _triangle(input, diagonal, lower):  # noqa: A002
    name = "tril" if lower else "triu"
    check_tensor(input, name)
    if input.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    m, n = input.shape[-2:]
    keep = np.tri(m, n, int(diagonal), dtype=bool)
    if not lower:
        keep = ~np.tri(m, n, int(diagonal) - 1, dtype=bool)
    from .select import where

    zero = False if input.dtype is _dtype.bool_ else 0
    return where(on_device_of(keep, input), input, zero)


def tril(input, diagonal=0):  # noqa: A002
    """Lower triangle of the last two dims: elements above `diagonal` set to zero.

    Args:
        input (Tensor): at least 2-D.
        diagonal (int): 0 keeps the main diagonal, > 0 more, < 0 fewer. Default: 0.

    Example::

        >>> torch.tril(torch.ones(2, 3))
        tensor([[1., 0., 0.],
                [1., 1., 0.]])
    """
    return _triangle(input, diagonal, True)


def triu(input, diagonal=0):  # noqa: A002
    """Upper triangle of the last two dims: elements below `diagonal` set to zero.

    Args:
        input (Tensor): at least 2-D.
        diagonal (int): 0 keeps the main diagonal, > 0 fewer, < 0 more. Default: 0.

    Example::

        >>> torch.triu(torch.ones(2, 3), 1)
        tensor([[0., 1., 1.],
                [0., 0., 1.]])
    """
    return _triangle(input, diagonal, False)


def _indices(row, col, offset, dtype, device, lower):
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dt = _dtype.as_dtype(dtype) if dtype is not None else _dtype.int64
    if dt not in (_dtype.int64, _dtype.int32):
        raise RuntimeError(f"\"{'tril' if lower else 'triu'}_indices\" not implemented for "
                           f"'{dt.name.capitalize()}'")  # fmt: skip
    keep = (
        np.tri(row, col, offset, dtype=bool) if lower else ~np.tri(row, col, offset - 1, dtype=bool)
    )
    r, c = np.nonzero(keep)  # row-major order, as PyTorch lists them
    t = Tensor._make(np.stack([r, c]).astype(dt.np), -1, False)
    return t.to(device) if device is not None else t


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row and column indices of the lower triangle of a `row` x `col` matrix.

    Args:
        row (int), col (int): the matrix size.
        offset (int): diagonal offset, as in `tril`. Default: 0.
        dtype: int64 (default) or int32.

    Example::

        >>> torch.tril_indices(3, 3)
        tensor([[0, 1, 1, 2, 2, 2],
                [0, 0, 1, 0, 1, 2]])
    """
    return _indices(row, col, offset, dtype, device, True)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row and column indices of the upper triangle of a `row` x `col` matrix.

    Args:
        row (int), col (int): the matrix size.
        offset (int): diagonal offset, as in `triu`. Default: 0.
        dtype: int64 (default) or int32.

    Example::

        >>> torch.triu_indices(3, 3, 1)
        tensor([[0, 0, 1],
                [1, 2, 2]])
    """
    return _indices(row, col, offset, dtype, device, False)


def _two_dims(dim1, dim2, nd):
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """The diagonal of `input` over `dim1` and `dim2`, appended as the last dim.

    Args:
        input (Tensor): at least 2-D.
        offset (int): 0 the main diagonal, > 0 above it, < 0 below it. Default: 0.
        dim1 (int), dim2 (int): the two dims. Defaults: 0 and 1.

    Example::

        >>> torch.diagonal(torch.arange(9.).reshape(3, 3), 1)
        tensor([1., 5.])
    """
    check_tensor(input, "diagonal")
    d1, d2 = _two_dims(dim1, dim2, input.dim())
    shape = tuple(input.shape)
    pos = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)
    pos = np.diagonal(pos, int(offset), d1, d2)
    return indexing.take(input, np.ascontiguousarray(pos), pos.shape, "TakeBackward0")


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """Matrices over `dim1` and `dim2` whose `offset` diagonal holds the last dim of `input`.

    Args:
        input (Tensor): at least 1-D.
        offset (int): which diagonal to fill. Default: 0.
        dim1 (int), dim2 (int): the output's two matrix dims. Defaults: -2 and -1.

    Example::

        >>> torch.diag_embed(torch.tensor([1., 2.]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    check_tensor(input, "diag_embed")
    nd = input.dim() + 1
    d1, d2 = _two_dims(dim1, dim2, nd)
    lead = tuple(input.shape[:-1]) if input.dim() else ()
    n = input.shape[-1] if input.dim() else 1
    m = n + abs(int(offset))
    nlead = int(np.prod(lead, dtype=np.int64))
    # read row r of the (nlead, n + 1) source: column k on the diagonal, else the zero column
    i = np.arange(m)[:, None]
    j = np.arange(m)[None, :]
    k = np.minimum(i, j)
    on = (j - i) == int(offset)
    col = np.where(on, k, n)
    pos = np.arange(nlead, dtype=np.int64)[:, None, None] * (n + 1) + col[None]
    src = input.reshape(nlead, n)
    from .joins import cat

    src = cat([src, on_device_of(np.zeros((nlead, 1), input._data.dtype), input)], 1)
    out = indexing.take(src, pos, (*lead, m, m), "TakeBackward0")
    others = [d for d in range(nd) if d not in (d1, d2)]
    perm = [0] * nd
    for src_axis, dst in enumerate([*others, d1, d2]):
        perm[dst] = src_axis
    return out.permute(perm) if perm != list(range(nd)) else out


def diag(input, diagonal=0):  # noqa: A002
    """A 1-D input's values on the `diagonal` of a square matrix, or a 2-D input's
    `diagonal` as a vector.

    Args:
        input (Tensor): 1-D or 2-D.
        diagonal (int): which diagonal. Default: 0.

    Example::

        >>> torch.diag(torch.tensor([1., 2.]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    check_tensor(input, "diag")
    if input.dim() == 1:
        return diag_embed(input, diagonal)
    if input.dim() == 2:
        return globals()["diagonal"](input, diagonal)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def trace(input):  # noqa: A002
    """The sum of a matrix's main diagonal (integer inputs give int64).

    Args:
        input (Tensor): 2-D.

    Example::

        >>> torch.trace(torch.arange(9.).reshape(3, 3))
        tensor(12.)
    """
    check_tensor(input, "trace")
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return diagonal(input).sum()
