"""softmax and log_softmax, declared with all their facets (see `registry.declare`).

A tensor is seen as (outer, n, inner) around the softmax dim. On the CPU, rows along the
last dim (inner == 1) are processed in place; other dims go through a small contiguous
buffer. The row loops are the vectorised primitives of `vecloops` (max, sums, and
`exp_flush`, the exp of arguments <= 0). On the GPU the dim is moved last first (a
recorded permute), so a CUDA row always has inner == 1; its kernels are
`softmax_rows`/`softmax_vjp` in `backends/cuda/kernels.py`.
"""

import math
import warnings

import numpy as np
from numba import njit, prange

from .. import _dtype
from .._dtype import scalar_name as _scalar_name
from .._optable import attrs, declare
from ..backends.cpu.rowio import cot, first, iattr, in_slot, out_slot, value, wants
from ..backends.cpu.vecloops import exp_flush, rdot, rmax, rsum
from ..tensor import Tensor, _wrap_dim
from .recording import emit

# a row's attributes: the input as (outer, n, inner) around the dim, and whether it is
# log_softmax (both ops share every facet)
A = attrs("outer", "n", "inner", "log")
PAR_MIN = 1 << 15


@njit(cache=True, error_model="numpy")
def exp_shift(x, m, o):
    """o = exp(x - m); returns sum(o) (vecloops' fixed order, while o is in cache)."""
    for i in range(x.size):
        o[i] = exp_flush(x[i] - m)
    return rsum(o)


@njit(cache=True, error_model="numpy")
def _row(x, o, log):
    # a NaN anywhere (or an all -inf row) makes the sum NaN, so the row is NaN as in torch
    m = rmax(x)
    s = exp_shift(x, m, o)
    if log:
        c = m + x.dtype.type(math.log(s))
        for i in range(x.size):
            o[i] = x[i] - c
    else:
        r = x.dtype.type(1.0) / s
        for i in range(x.size):
            o[i] *= r


@njit(cache=True, error_model="numpy")
def _block(x, o, b, n, inner, log, tmp, tmo):
    """Softmax of block b (one outer index) of an (outer, n, inner) array."""
    base = b * n * inner
    if inner == 1:
        _row(x[base : base + n], o[base : base + n], log)
        return
    for j in range(inner):
        for c in range(n):
            tmp[c] = x[base + c * inner + j]
        _row(tmp, tmo, log)
        for c in range(n):
            o[base + c * inner + j] = tmo[c]


@njit(cache=True, error_model="numpy")
def fwd(x, o, outer, n, inner, log):
    x = x.reshape(x.size)
    o = o.reshape(o.size)
    tmp = np.empty(n if inner > 1 else 0, x.dtype)
    tmo = np.empty_like(tmp)
    for b in range(outer):
        _block(x, o, b, n, inner, log, tmp, tmo)


@njit(cache=True, parallel=True, error_model="numpy")
def fwd_par(x, o, outer, n, inner, log):
    x = x.reshape(x.size)
    o = o.reshape(o.size)
    if inner == 1:  # rows in place: no per-row buffers to allocate
        for b in prange(outer):
            _row(x[b * n : (b + 1) * n], o[b * n : (b + 1) * n], log)
        return
    for b in prange(outer):
        tmp = np.empty(n, x.dtype)
        tmo = np.empty_like(tmp)
        _block(x, o, b, n, inner, log, tmp, tmo)


@njit(cache=True, error_model="numpy")
def _grad_row(g, y, gx, log, init):
    if log:  # gx = g - exp(y) * sum(g)
        s = rsum(g)
        if init:
            for i in range(g.size):
                gx[i] = g[i] - exp_flush(y[i]) * s
        else:
            for i in range(g.size):
                gx[i] += g[i] - exp_flush(y[i]) * s
    else:  # gx = y * (g - sum(g * y))
        s = rdot(g, y)
        if init:
            for i in range(g.size):
                gx[i] = y[i] * (g[i] - s)
        else:
            for i in range(g.size):
                gx[i] += y[i] * (g[i] - s)


@njit(cache=True, error_model="numpy")
def _grad_block(g, y, gx, b, n, inner, log, init):
    base = b * n * inner
    if inner == 1:
        sl = slice(base, base + n)
        _grad_row(g[sl], y[sl], gx[sl], log, init)
        return
    tg = np.empty(n, g.dtype)
    ty = np.empty(n, g.dtype)
    tx = np.empty(n, g.dtype)
    for j in range(inner):
        for r in range(n):
            tg[r] = g[base + r * inner + j]
            ty[r] = y[base + r * inner + j]
        _grad_row(tg, ty, tx, log, True)
        if init:
            for r in range(n):
                gx[base + r * inner + j] = tx[r]
        else:
            for r in range(n):
                gx[base + r * inner + j] += tx[r]


@njit(cache=True, parallel=True, error_model="numpy")
def _grad_par(g, y, gx, outer, n, inner, log, init):
    for b in prange(outer):
        _grad_block(g, y, gx, b, n, inner, log, init)


@njit(cache=True, error_model="numpy")
def vjp_softmax(T, k, V):
    s_y = out_slot(T, k, 0)
    s_x = in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    outer, n, inner = iattr(T, k, A.outer), iattr(T, k, A.n), iattr(T, k, A.inner)
    log = iattr(T, k, A.log) != 0
    g = cot(T, s_y, V)
    y = value(T, s_y, V)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    if g.size >= PAR_MIN and outer > 1:
        _grad_par(g, y, gx, outer, n, inner, log, init)
    else:
        for b in range(outer):
            _grad_block(g, y, gx, b, n, inner, log, init)


def softmax_dim(ndim):
    """PyTorch's implicit dim (deprecated) when dim is None."""
    return 0 if ndim in (0, 1, 3) else 1


def layout(shape, d):
    outer = math.prod(shape[:d])  # (np.prod on a tuple costs ~10 µs)
    inner = math.prod(shape[d + 1 :])
    return outer, (shape[d] if shape else 1), inner


def _softmax(x, dim, dtype, log, name):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )
    if dim is None:
        warnings.warn(
            f"Implicit dimension choice for {name} has been deprecated. Change the call to "
            "include dim=X as an argument.",
            UserWarning,
            stacklevel=3,
        )
        dim = softmax_dim(x._data.ndim)
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    if dtype is not None:
        x = x.to(_dtype.as_dtype(dtype))
    data = x._data
    if data.dtype.kind != "f":
        raise RuntimeError(
            f"\"{name}_lastdim_kernel_impl\" not implemented for '{_scalar_name(x.dtype)}'"
        )
    if x.is_cuda:
        return _cuda_softmax(x, dim, log)
    d = _wrap_dim(dim, data.ndim)
    outer, n, inner = layout(data.shape, d)
    out = np.empty_like(data)
    if data.size:
        if data.size >= PAR_MIN and outer > 1:
            fwd_par(data, out, outer, n, inner, log)
        else:
            fwd(data, out, outer, n, inner, log)
    op = LOG_SOFTMAX if log else SOFTMAX
    ia = op.pack(outer=outer, n=n, inner=inner, log=int(log))
    return emit(op, out, (x,), iattrs=ia, saved=(out,))


def softmax(input, dim=None, dtype=None, _stacklevel=3):  # noqa: A002
    return _softmax(input, dim, dtype, False, "softmax")


def log_softmax(input, dim=None, dtype=None, _stacklevel=3):  # noqa: A002
    return _softmax(input, dim, dtype, True, "log_softmax")


# -- compiled replay (nbgrad.compile): the eager kernel, as eager picks it -----------------
@njit(cache=True, error_model="numpy")
def replay_softmax(T, k, V):
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    x, y = value(T, s_x, V), value(T, s_y, V)
    outer, n, inner = iattr(T, k, A.outer), iattr(T, k, A.n), iattr(T, k, A.inner)
    log = iattr(T, k, A.log) != 0
    if x.size == 0:
        return
    if x.size >= PAR_MIN and outer > 1:
        fwd_par(x, y, outer, n, inner, log)
    else:
        fwd(x, y, outer, n, inner, log)


# -- CUDA: forward and VJP launchers (kernels in backends/cuda/kernels.py) ----------------
def _cuda_softmax(x, dim, log):
    from ..backends.cuda import runtime as rt
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch_grid
    from .cuda.forwards import _float, permute, wrap

    _float(x, "softmax")
    nd = x._data.ndim
    d = _wrap_dim(dim, nd) if nd else 0
    if nd and d != nd - 1:  # move the dim last and back (two recorded permute copies)
        perm = tuple(i for i in range(nd) if i != d) + (d,)
        inv = tuple(perm.index(i) for i in range(nd))
        return permute(_cuda_softmax(permute(x, perm), -1, log), inv)
    n = x._data.shape[-1] if nd else 1
    out = rt.empty(x._data.shape, x._data.dtype)
    rows = out.size // n if n else 0
    if rows:
        L = rt.configure()
        launch_grid(
            build().softmax_rows, min(rows, L.max_blocks * 16), L.tpb, x._data.flat, out.flat,
            n, log,
        )  # fmt: skip
    op = LOG_SOFTMAX if log else SOFTMAX
    ia = op.pack(outer=rows, n=n, inner=1, log=int(log))
    return wrap(out, (x,), op, iattrs=ia, saved=(out,))


def _cuda_vjp(G, k):
    from ..backends.cuda import runtime as rt
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch_grid

    sx = G.inp(k, 0)
    if not G.wants(sx):
        return
    a = type(A)(*G.iattrs(k))
    (y,) = G.saved(k)
    gx, acc = G.take(sx)
    L = rt.configure()
    launch_grid(
        build().softmax_vjp, min(a.outer, L.max_blocks * 16), L.tpb, G.cot(G.out(k, 0)), y,
        gx, a.n, a.log, acc,
    )  # fmt: skip


# -- differentiable VJP (create_graph, forward mode, batched gradients) --------------------
def _dvjp(row, g):
    """softmax: gx = y (g - sum(g y)); log_softmax: gx = g - exp(y) sum(g), along the dim."""
    a = row.attrs()
    g3 = g.reshape(row.bshape + (a.outer, a.n, a.inner))
    y3 = row.y().reshape(a.outer, a.n, a.inner)
    if a.log:
        gx = g3 - y3.exp() * g3.sum(dim=-2, keepdim=True)
    else:
        gx = y3 * (g3 - (g3 * y3).sum(dim=-2, keepdim=True))
    return (gx.reshape(row.bshape + row.shape(row.ins[0])),)


_FACETS = dict(a=A, vjp=vjp_softmax, replay=replay_softmax, cuda_vjp=_cuda_vjp, dvjp=_dvjp)
SOFTMAX = declare("softmax", "SoftmaxBackward0", **_FACETS)
LOG_SOFTMAX = declare("log_softmax", "LogSoftmaxBackward0", **_FACETS)
