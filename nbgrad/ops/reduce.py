"""Reductions: sum, mean, norm. Forward by NumPy's pairwise sums (a full sum of a large
float array by the vectorised `full_sum`); VJPs compiled."""

import numpy as np
from numba import njit, prange

from nbgrad._array import contig

from .. import _dtype
from ..backends.cpu.broadcast import spread
from ..backends.cpu.rowio import (
    cot,
    fattr,
    first,
    iattr,
    iattrs,
    in_slot,
    ndim,
    numel,
    out_slot,
    push,
    shape,
    step,
    value,
    view_as,
    wants,
)
from ..tensor import Tensor, _wrap_dim
from .recording import emit
from .registry import register
from .vecloops import rsum

_SUM = register("sum", "SumBackward0", "nbgrad.ops.reduce:vjp_sum")
_SUM_DIM = register("sum_dim", "SumBackward1", "nbgrad.ops.reduce:vjp_sum")
_MEAN = register("mean", "MeanBackward0", "nbgrad.ops.reduce:vjp_sum")
_MEAN_DIM = register("mean_dim", "MeanBackward1", "nbgrad.ops.reduce:vjp_sum")
_NORM = register("norm", "LinalgVectorNormBackward0", "nbgrad.ops.reduce:vjp_norm")


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def vjp_sum(T, k, V):
    """gx = broadcast of g * scale back over the reduced dims (scale 1/count for mean)."""
    s_y = out_slot(T, k, 0)
    s_x = in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    g = cot(T, s_y, V)
    scale = g.dtype.type(fattr(T, k, 0))
    if numel(T, s_y) == 1:  # one value everywhere: kept as one value where it can be
        push(T, s_x, V, g[0] * scale)
        return
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    shp = shape(T, s_x)
    spread(g, gx, shp, _reduced_strides(iattrs(T, k, 0, ndim(T, s_x)), shp), scale, init)


@njit(cache=True, error_model="numpy")
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


SUM_BLOCK = 2048
FULL_SUM_MIN = 1 << 14  # below, NumPy's sum is as fast (and small results stay NumPy's)
SUM_PAR_MIN = 1 << 18


@njit(cache=True, parallel=True, error_model="numpy")
def _block_sums_par(x, p):
    for b in prange(p.size):
        p[b] = rsum(x[b * SUM_BLOCK : (b + 1) * SUM_BLOCK])


@njit(cache=True, error_model="numpy")
def full_sum(x):
    """Sum of a flat float array: blocks of SUM_BLOCK summed by the vectorised `rsum` (many
    partial sums, each over a few dozen elements; blocks in parallel on large arrays), the
    block sums then summed the same way in float64. Deterministic: the blocks do not depend
    on the thread count. NumPy's pairwise sum of float32 is not vectorised (3x slower)."""
    nb = (x.size + SUM_BLOCK - 1) // SUM_BLOCK
    p = np.empty(nb, np.float64)
    if x.size >= SUM_PAR_MIN:
        _block_sums_par(x, p)
    else:
        for b in range(nb):
            p[b] = rsum(x[b * SUM_BLOCK : (b + 1) * SUM_BLOCK])
    while p.size > SUM_BLOCK:
        q = np.empty((p.size + SUM_BLOCK - 1) // SUM_BLOCK, np.float64)
        for b in range(q.size):
            q[b] = rsum(p[b * SUM_BLOCK : (b + 1) * SUM_BLOCK])
        p = q
    return rsum(p)


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
    if data.dtype.kind == "b" or (data.dtype == np.int32 and dtype is None):
        data = data.astype(np.int64)  # integer sums are int64 unless a dtype is given
    full = dim is None
    if (
        len(dims) == nd
        and data.size >= FULL_SUM_MIN
        and data.dtype.kind == "f"
        and data.flags.c_contiguous
    ):
        r = np.asarray(full_sum(data.reshape(-1)), data.dtype)
        if keepdim:
            r = r.reshape((1,) * nd)
    else:
        r = np.add.reduce(data, axis=dims, keepdims=keepdim)
    if mean:
        count = 1
        for d in dims:
            count *= data.shape[d]
        r = r / count if count else r * np.nan
    out = contig(np.asarray(r, dtype=data.dtype))
    if data.dtype.kind != "f":
        return Tensor._make(out, -1, False)
    scale = 1.0
    if mean:
        scale = 1.0 / count if count else float("nan")
    op = (_MEAN if full else _MEAN_DIM) if mean else (_SUM if full else _SUM_DIM)
    return emit(op, out, (x,), iattrs=_mask(dims, nd), fattrs=(scale,))


def sum(x, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    if getattr(x, "is_cuda", False):
        return x.sum(dim, keepdim, dtype=dtype)
    return _reduce(x, dim, keepdim, dtype, False)


def mean(x, dim=None, keepdim=False, *, dtype=None):
    if getattr(x, "is_cuda", False):
        return x.mean(dim, keepdim, dtype=dtype)
    return _reduce(x, dim, keepdim, dtype, True)


def norm(x, p="fro", dim=None, keepdim=False, dtype=None):
    if p is None or p == "fro":
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"norm with p={p!r} is not supported (numbers and 'fro' are)")
    return vector_norm(x, p, dim, keepdim, dtype=dtype)


# -- prod, var/std, logsumexp, cumsum, p-norms ---------------------------------------
_PROD = register("prod", "ProdBackward0", "nbgrad.ops.reduce:vjp_prod")
_PROD_DIM = register("prod_dim", "ProdBackward1", "nbgrad.ops.reduce:vjp_prod")
_VAR = register("var", "VarBackward0", "nbgrad.ops.reduce:vjp_var")
_STD = register("std", "StdBackward0", "nbgrad.ops.reduce:vjp_var")
_LSE = register("logsumexp", "LogsumexpBackward0", "nbgrad.ops.reduce:vjp_logsumexp")
_CUMSUM = register("cumsum", "CumsumBackward0", "nbgrad.ops.reduce:vjp_cumsum")
_PNORM = register("pnorm", "LinalgVectorNormBackward0", "nbgrad.ops.reduce:vjp_pnorm")


@njit(cache=True, error_model="numpy")
def vjp_prod(T, k, V):
    """(outer, n, inner) groups: gx = g * prod(others); exact with zeros (no division
    when the group has a zero)."""
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    outer, n, inner = iattr3(T, k)
    g = cot(T, s_y, V)
    x = value(T, s_x, V)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    for o in range(outer):
        for j in range(inner):
            base = o * n * inner + j
            zeros = 0
            zi = -1
            p = g.dtype.type(1)
            for c in range(n):
                v = x[base + c * inner]
                if v == 0:
                    zeros += 1
                    zi = c
                else:
                    p *= v
            gg = g[o * inner + j]
            for c in range(n):
                q = base + c * inner
                if zeros == 0:
                    v = gg * p / x[q]
                elif zeros == 1 and c == zi:
                    v = gg * p
                else:
                    v = 0.0 * gg
                if init:
                    gx[q] = v
                else:
                    gx[q] += v


@njit(inline="always")
def iattr3(T, k):
    return iattr(T, k, 0), iattr(T, k, 1), iattr(T, k, 2)


@njit(cache=True, error_model="numpy")
def vjp_var(T, k, V):
    """var: gx = g * 2 (x - mean) / (N - c); std: gx = g * (x - mean) / ((N - c) * std),
    0 where std is 0."""
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    is_std = iattr(T, k, 0)
    nd = ndim(T, s_x)
    g = cot(T, s_y, V)
    y = value(T, s_y, V)
    x = value(T, s_x, V)
    m = view_as(iattr(T, k, 1 + nd), numel(T, s_y), V)
    den = fattr(T, k, 0)
    shp = shape(T, s_x)
    st = _reduced_strides(iattrs(T, k, 1, nd), shp)
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    for i in range(numel(T, s_x)):
        o = offs[0]
        if is_std:
            # 0 where std is 0 (a constant group), as PyTorch's std_backward masks it
            v = g[o] * (x[i] - m[o]) / (den * y[o]) if y[o] != 0 else 0.0
        else:
            v = g[o] * 2 * (x[i] - m[o]) / den
        if init:
            gx[i] = v
        else:
            gx[i] += v
        step(idx, shp, offs, st, st)


@njit(cache=True, error_model="numpy")
def vjp_logsumexp(T, k, V):
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    g = cot(T, s_y, V)
    y = value(T, s_y, V)
    x = value(T, s_x, V)
    shp = shape(T, s_x)
    st = _reduced_strides(iattrs(T, k, 0, ndim(T, s_x)), shp)
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    for i in range(numel(T, s_x)):
        o = offs[0]
        v = g[o] * np.exp(x[i] - y[o]) if y[o] != -np.inf else 0.0 * g[o]
        if init:
            gx[i] = v
        else:
            gx[i] += v
        step(idx, shp, offs, st, st)


@njit(cache=True, error_model="numpy")
def vjp_cumsum(T, k, V):
    """gx = reverse cumulative sum of g along the dim."""
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    outer, n, inner = iattr3(T, k)
    g = cot(T, s_y, V)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    for o in range(outer):
        for j in range(inner):
            base = o * n * inner + j
            run = g.dtype.type(0)
            for c in range(n - 1, -1, -1):
                q = base + c * inner
                run += g[q]
                if init:
                    gx[q] = run
                else:
                    gx[q] += run


@njit(cache=True, error_model="numpy")
def vjp_pnorm(T, k, V):
    """d||x||_p: p=inf/-inf share g among ties of |x| == y; p=0 gives 0; else
    g * sign(x) |x|^(p-1) / y^(p-1) (0 where y == 0)."""
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    p = fattr(T, k, 0)
    g = cot(T, s_y, V)
    y = value(T, s_y, V)
    x = value(T, s_x, V)
    n = numel(T, s_x)
    shp = shape(T, s_x)
    st = _reduced_strides(iattrs(T, k, 0, ndim(T, s_x)), shp)
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    cnt = np.zeros(numel(T, s_y), np.int64)
    inf = p == np.inf or p == -np.inf
    if inf:
        for i in range(n):
            if abs(x[i]) == y[offs[0]]:
                cnt[offs[0]] += 1
            step(idx, shp, offs, st, st)
        idx[:] = 0
        offs[:] = 0
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    for i in range(n):
        o = offs[0]
        xi = x[i]
        s = (xi > 0) - (xi < 0)
        if inf:
            v = g[o] * s / cnt[o] if abs(xi) == y[o] else 0.0 * g[o]
        elif p == 0 or y[o] == 0:
            v = 0.0 * g[o]
        elif p == 1:
            v = g[o] * s
        else:
            v = g[o] * s * abs(xi) ** (p - 1) / y[o] ** (p - 1)
        if init:
            gx[i] = v
        else:
            gx[i] += v
        step(idx, shp, offs, st, st)


def _float_check(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )


def _cuda_lines():
    from ..backends.cuda import reductions as lines

    return lines


def _layout(shape, d):
    outer = int(np.prod(shape[:d], dtype=np.int64))
    inner = int(np.prod(shape[d + 1 :], dtype=np.int64))
    return outer, shape[d], inner


def prod(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    x = input
    _float_check(x, "prod")
    if x.is_cuda:
        return x.prod(dim, keepdim, dtype=dtype)
    if dtype is not None:
        x = x.to(_dtype.as_dtype(dtype))
    data = x._data
    if dim is None:
        r = np.asarray(np.prod(data), data.dtype if data.dtype.kind == "f" else np.int64)
        lay = (1, data.size, 1)
        op = _PROD
    else:
        if not isinstance(dim, (int, np.integer)):
            raise TypeError("prod(): argument 'dim' must be int")
        d = _wrap_dim(dim, data.ndim)
        sh = data.shape if data.ndim else (1,)
        r = np.prod(data, axis=d if data.ndim else None, keepdims=keepdim and data.ndim > 0)
        r = np.asarray(r, data.dtype if data.dtype.kind == "f" else np.int64)
        lay = _layout(sh, d)
        op = _PROD_DIM
    out = np.array(r, copy=True) if r.ndim == 0 else contig(r)
    if data.dtype.kind != "f":
        return Tensor._make(out, -1, False)
    return emit(op, out, (x,), iattrs=lay, saved=(data,))


def _var_args(dim, unbiased, correction, keepdim):
    if isinstance(dim, bool):  # var(x, unbiased)
        unbiased, dim = dim, None
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    elif unbiased is not None:
        raise RuntimeError("var(): cannot specify both unbiased and correction")
    return dim, float(correction), keepdim


def _var(x, dim, unbiased, keepdim, correction, is_std):
    name = "std" if is_std else "var"
    _float_check(x, name)
    if x.is_cuda:
        return _cuda_lines().var(x, dim, unbiased, keepdim, correction, is_std)
    dim, corr, keepdim = _var_args(dim, unbiased, correction, keepdim)
    data = x._data
    if data.dtype.kind != "f":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _dims(dim, data.ndim)
    count = 1
    for d in dims:
        count *= data.shape[d]
    den = count - corr
    if den <= 0:
        import warnings

        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
            "less than the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    m = (
        np.mean(data, axis=dims, keepdims=True)
        if data.size
        else np.full([1 if d in dims else s for d, s in enumerate(data.shape)], np.nan, data.dtype)
    )
    dev = data - m
    with np.errstate(all="ignore"):
        v = np.sum(dev * dev, axis=dims, keepdims=True) / max(den, 0)
        r = np.sqrt(v) if is_std else v
    r = np.asarray(r, data.dtype)
    out = r if keepdim else r.reshape([n for d, n in enumerate(data.shape) if d not in dims])
    out = contig(out) if out.ndim else np.array(out, copy=True)
    m = contig(m, data.dtype)
    nd = data.ndim
    attrs = (int(is_std),) + _mask(dims, nd) + (m.__array_interface__["data"][0],)
    return emit(
        _STD if is_std else _VAR,
        out,
        (x,),
        iattrs=attrs,
        fattrs=(float(den),),
        saved=(data, out, m),
    )


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    return _var(input, dim, unbiased, keepdim, correction, False)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    return _var(input, dim, unbiased, keepdim, correction, True)


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    x = input
    _float_check(x, "logsumexp")
    if x.is_cuda:
        return x.logsumexp(dim, keepdim)
    data = x._data
    if data.dtype.kind != "f":
        data = data.astype(_dtype.get_default_dtype().np)
        x = Tensor._make(data, -1, False)
    dims = _dims(dim, data.ndim)
    if data.size == 0:
        r = np.full([1 if d in dims else s for d, s in enumerate(data.shape)], -np.inf, data.dtype)
    else:
        m = np.max(data, axis=dims, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        with np.errstate(divide="ignore"):
            r = np.log(np.sum(np.exp(data - m), axis=dims, keepdims=True)) + m
    r = np.asarray(r, data.dtype)
    out = r if keepdim else r.reshape([n for d, n in enumerate(data.shape) if d not in dims])
    out = contig(out) if out.ndim else np.array(out, copy=True)
    return emit(_LSE, out, (x,), iattrs=_mask(dims, data.ndim), saved=(data, out))


def cumsum(input, dim, *, dtype=None):  # noqa: A002
    x = input
    _float_check(x, "cumsum")
    if x.is_cuda:
        return x.cumsum(dim, dtype=dtype)
    if dtype is not None:
        x = x.to(_dtype.as_dtype(dtype))
    data = x._data
    d = _wrap_dim(dim, data.ndim)
    if data.dtype.kind in "bi" and data.dtype != np.int64:
        data = data.astype(np.int64)
    out = contig(np.cumsum(data, axis=d if data.ndim else None).reshape(data.shape))
    if data.dtype.kind != "f":
        return Tensor._make(out, -1, False)
    return emit(_CUMSUM, out, (x,), iattrs=_layout(data.shape if data.ndim else (1,), d))


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    _float_check(x, "linalg.vector_norm")
    if x.is_cuda:
        return _cuda_lines().norm(x, ord, dim, keepdim, dtype)
    if dtype is not None:
        x = x.to(_dtype.as_dtype(dtype))
    if x._data.dtype.kind != "f":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {x.dtype.name.capitalize()}"
        )
    p = float(ord)
    data = x._data
    dims = _dims(dim, data.ndim)
    a = np.abs(data)
    if data.size == 0 and p in (np.inf, -np.inf) or (p < 0 and data.size == 0):
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because "
            "the operation does not have an identity"
        )
    if p == np.inf:
        r = np.max(a, axis=dims, keepdims=True)
    elif p == -np.inf:
        r = np.min(a, axis=dims, keepdims=True)
    elif p == 0:
        r = np.sum(a != 0, axis=dims, keepdims=True).astype(data.dtype)
    elif p == 1:
        r = np.sum(a, axis=dims, keepdims=True)
    elif p == 2:
        r = np.sqrt(np.sum(a * a, axis=dims, keepdims=True))
    else:
        with np.errstate(divide="ignore"):
            r = np.sum(a**p, axis=dims, keepdims=True) ** (1.0 / p)
    r = np.asarray(r, data.dtype)
    out = r if keepdim else r.reshape([n for d, n in enumerate(data.shape) if d not in dims])
    out = contig(out) if out.ndim else np.array(out, copy=True)
    if p == 2:
        return emit(_NORM, out, (x,), iattrs=_mask(dims, data.ndim), saved=(data, out))
    return emit(_PNORM, out, (x,), iattrs=_mask(dims, data.ndim), fattrs=(p,), saved=(data, out))
