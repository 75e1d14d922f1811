"""Rearrangements by index: roll, repeat_interleave, meshgrid, cartesian_prod.

roll and repeat_interleave are one recorded gather each (positions from the shape and the
arguments, computed on the host); meshgrid and cartesian_prod are views and expands.
"""

import warnings

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from . import indexing
from .hostside import check_tensor, on_device_of, values, wrap_dim


def roll(input, shifts, dims=None):  # noqa: A002
    """Rolls `input` by `shifts` along `dims` (elements past the end come back at the
    start); without `dims` the flattened tensor is rolled and the shape restored.

    Args:
        input (Tensor): the tensor.
        shifts (int or tuple of ints): the shift per dim.
        dims (int or tuple of ints, optional): the dims.

    Example::

        >>> torch.roll(torch.tensor([1, 2, 3]), 1)
        tensor([3, 1, 2])
    """
    check_tensor(input, "roll")
    shifts = _ints(shifts, "shifts", 2)
    dims = _ints(() if dims is None else dims, "dims", 3)
    if not dims and len(shifts) != 1:
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    if dims and len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    dims = tuple(wrap_dim(d, input.dim()) for d in dims)
    shape = tuple(input.shape)
    n = int(np.prod(shape, dtype=np.int64))
    pos = np.arange(n, dtype=np.int64).reshape(shape)
    if dims:
        pos = np.roll(pos, shifts, dims)
    else:
        pos = np.roll(pos.reshape(-1), shifts[0]).reshape(shape)
    return indexing.take(input, np.ascontiguousarray(pos), shape, "IndexBackward0")


def _ints(v, arg, pos):
    """An int or a sequence of ints as a tuple, else PyTorch's TypeError."""
    ok = lambda i: isinstance(i, (int, np.integer)) and not isinstance(i, bool)  # noqa: E731
    if ok(v):
        return (int(v),)
    if isinstance(v, (tuple, list)) and all(ok(i) for i in v):
        return tuple(int(i) for i in v)
    raise TypeError(
        f"roll(): argument '{arg}' (position {pos}) must be tuple of ints, not {type(v).__name__}"
    )


def _check_repeats(t):
    if t.is_floating_point() or t.dtype is _dtype.bool_:
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{_dtype.scalar_name(t.dtype)}'"
        )


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):  # noqa: A002
    """Repeats each element (or each slice along `dim`) `repeats` times, in place order.
    `repeat_interleave(repeats)` with one int tensor gives `arange(len(repeats))`
    repeated by it.

    Args:
        input (Tensor): the tensor.
        repeats (int or Tensor): a count for all, or one per element along `dim`.
        dim (int, optional): the dim; the flattened input if None.
        output_size (int, optional): the output's length along `dim`, if known.

    Example::

        >>> torch.repeat_interleave(torch.tensor([1, 2]), 2)
        tensor([1, 1, 2, 2])
    """
    check_tensor(input, "repeat_interleave")
    if repeats is None:  # the index form: repeat_interleave(repeats)
        reps = values(input)
        if reps.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        _check_repeats(input)
        if reps.size and reps.min() < 0:
            raise RuntimeError("repeats can not be negative")
        return on_device_of(np.repeat(np.arange(reps.size, dtype=np.int64), reps), input)
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else wrap_dim(dim, input.dim())
    size = x.shape[d] if x.dim() else 1
    if isinstance(repeats, Tensor):
        reps = values(repeats)
        if reps.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        _check_repeats(repeats)
        reps = reps.reshape(-1)
        if reps.size == 1:
            reps = np.full(size, reps[0])
        elif reps.size != size:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {reps.size} and input.size({d}) = {size}"
            )
    else:
        reps = np.full(size, int(repeats))
    if reps.size and reps.min() < 0:
        raise RuntimeError("repeats can not be negative")
    idx = np.repeat(np.arange(size, dtype=np.int64), reps)
    if output_size is not None and idx.size != output_size:
        raise RuntimeError("allocated size does not match required size")
    if x.dim() == 0:
        x = x.reshape(1)
    return indexing.index_select(x, d, on_device_of(idx, input))


def meshgrid(*tensors, indexing=None):
    """Grids from 1-D tensors: output i varies along dim i ("ij") or, for the first two,
    along the other ("xy").

    Args:
        tensors (Tensor): 0-D or 1-D tensors (or one list of them), of one dtype.
        indexing (str): "ij" or "xy". Default: "ij" (with PyTorch's warning when omitted).

    Example::

        >>> gx, gy = torch.meshgrid(torch.tensor([1, 2]), torch.tensor([3, 4, 5]), indexing="ij")
        >>> gx.shape
        nbgrad.Size([2, 3])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the "
            "indexing argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        check_tensor(t, "meshgrid", "tensors")
        if t.dim() > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.dim()}D"
            )
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError(
                "torch.meshgrid: Expected all tensors in the tensor list to have the same dtype"
            )
    ts = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = shape[i]
        out.append(t.reshape(*view).expand(*shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def cartesian_prod(*tensors):
    """All tuples taking one element from each 1-D tensor, as rows (itertools.product's
    order); one tensor comes back as itself.

    Args:
        tensors (Tensor): 1-D tensors of one dtype.

    Example::

        >>> torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4]))
        tensor([[1, 3],
                [1, 4],
                [2, 3],
                [2, 4]])
    """
    for t in tensors:
        check_tensor(t, "cartesian_prod", "tensors")
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    from .joins import stack

    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)
