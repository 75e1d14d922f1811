"""Reductions: sum, mean, norm. Forward by NumPy's pairwise sums; VJPs compiled."""

import numpy as np
from numba import njit

from .. import _dtype
from ..backends.cpu.rowio import (
    cot,
    fattr,
    first,
    iattrs,
    in_slot,
    ndim,
    numel,
    out_slot,
    shape,
    step,
    value,
    wants,
)
from ..tensor import Tensor, _wrap_dim
from .emit import emit
from .registry import register

_SUM = register("sum", "SumBackward0", "nbgrad.ops.reduce:vjp_sum")
_SUM_DIM = register("sum_dim", "SumBackward1", "nbgrad.ops.reduce:vjp_sum")
_MEAN = register("mean", "MeanBackward0", "nbgrad.ops.reduce:vjp_sum")
_MEAN_DIM = register("mean_dim", "MeanBackward1", "nbgrad.ops.reduce:vjp_sum")
_NORM = register("norm", "LinalgVectorNormBackward0", "nbgrad.ops.reduce:vjp_norm")


@njit(cache=True)
def _reduced_strides(mask, shp):
    """Strides of the reduced tensor walked over the input's shape (0 on reduced dims)."""
    nd = shp.size
    st = np.zeros(nd, np.int64)
    run = 1
    for d in range(nd - 1, -1, -1):
        if mask[d] == 0:
            st[d] = run
            run *= shp[d]
    return st


@njit(cache=True)
def vjp_sum(T, k, V):
    """gx = broadcast of g * scale back over the reduced dims (scale 1/count for mean)."""
    s_y = out_slot(T, k, 0)
    s_x = in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    g = cot(T, s_y, V)
    scale = g.dtype.type(fattr(T, k, 0))
    n = numel(T, s_x)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    if numel(T, s_y) == 1:
        v = g[0] * scale
        if init:
            gx[:] = v
        else:
            for i in range(n):
                gx[i] += v
        return
    shp = shape(T, s_x)
    st = _reduced_strides(iattrs(T, k, 0, ndim(T, s_x)), shp)
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    for i in range(n):
        v = g[offs[0]] * scale
        if init:
            gx[i] = v
        else:
            gx[i] += v
        step(idx, shp, offs, st, st)


@njit(cache=True)
def vjp_norm(T, k, V):
    """d||x||/dx = x / ||x|| (0 where the norm is 0, as PyTorch's subgradient)."""
    s_y = out_slot(T, k, 0)
    s_x = in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    g = cot(T, s_y, V)
    y = value(T, s_y, V)
    x = value(T, s_x, V)
    n = numel(T, s_x)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    shp = shape(T, s_x)
    st = _reduced_strides(iattrs(T, k, 0, ndim(T, s_x)), shp)
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    for i in range(n):
        o = offs[0]
        v = g[o] * x[i] / y[o] if y[o] != 0 else 0.0 * g[o]
        if init:
            gx[i] = v
        else:
            gx[i] += v
        step(idx, shp, offs, st, st)


def _dims(dim, nd):
    """Normalise `dim` (int, sequence or None) to a sorted tuple of wrapped dims."""
    if dim is None:
        return tuple(range(nd))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) == 0:
        return tuple(range(nd))
    out = []
    for d in dims:
        w = _wrap_dim(d, nd)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(sorted(out)) if nd else ()


def _mask(dims, nd):
    return tuple(1 if d in dims else 0 for d in range(nd))


def _reduce(x, dim, keepdim, dtype, mean):
    data = x._data
    nd = data.ndim
    dims = _dims(dim, nd)
    if dtype is not None:
        x = x.to(_dtype.as_dtype(dtype))
        data = x._data
    if mean and data.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {x.dtype.name.capitalize()}"
        )
    if data.dtype.kind == "b":
        data = data.astype(np.int64)
    full = dim is None
    r = np.add.reduce(data, axis=dims, keepdims=keepdim)
    if mean:
        count = 1
        for d in dims:
            count *= data.shape[d]
        r = r / count if count else r * np.nan
    out = np.ascontiguousarray(np.asarray(r, dtype=data.dtype))
    if data.dtype.kind != "f":
        return Tensor._make(out, -1, False)
    scale = 1.0
    if mean:
        scale = 1.0 / count if count else float("nan")
    op = (_MEAN if full else _MEAN_DIM) if mean else (_SUM if full else _SUM_DIM)
    return emit(op, out, (x,), iattrs=_mask(dims, nd), fattrs=(scale,))


def sum(x, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    return _reduce(x, dim, keepdim, dtype, False)


def mean(x, dim=None, keepdim=False, *, dtype=None):
    return _reduce(x, dim, keepdim, dtype, True)


def norm(x, p="fro", dim=None, keepdim=False):
    if p not in ("fro", 2, 2.0):
        raise NotImplementedError(f"norm with p={p!r} is not supported yet (p=2 is)")
    if x._data.dtype.kind != "f":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {x.dtype.name.capitalize()}"
        )
    data = x._data
    dims = _dims(dim, data.ndim)
    r = np.sqrt(np.add.reduce(data * data, axis=dims, keepdims=True))
    out = r if keepdim else r.reshape([n for d, n in enumerate(data.shape) if d not in dims])
    out = np.ascontiguousarray(out, dtype=data.dtype)
    return emit(_NORM, out, (x,), iattrs=_mask(dims, data.ndim), saved=(data, out))
