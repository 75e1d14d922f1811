"""Compiled helpers the generated programs call: NumPy's summation order, linear and
cross-entropy steps written against plain arrays (the eager VJPs read the tape instead).

Each helper repeats the eager op's arithmetic operation for operation, so a compiled
program's values are bit-identical to eager execution.
"""

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from ..backends.cpu.blas import gemm
from ..backends.cpu.broadcast import next_row, row_start
from ..backends.cpu.vecloops import rsum
from ..ops.losses import nll_grad
from ..ops.reduce import pairwise

_opts = {"cache": True, "error_model": "numpy"}
BUF = 8192  # NumPy's ufunc buffer size (casting reductions go through it)


@njit(**_opts)
def np_sum(a):
    """`np.add.reduce(a)` of a contiguous float array, same dtype, same bits."""
    z = a.dtype.type(0)
    return z + pairwise(a, 0, a.size, z)


@njit(**_opts)
def np_sum64(a):
    """`a.sum(dtype=np.float64)`: a casting reduction, so NumPy sums buffer by buffer."""
    if a.itemsize == 8:
        return np_sum(a)
    n = a.size
    res = 0.0
    buf = np.empty(min(n, BUF), np.float64)
    for lo in range(0, n, BUF):
        m = min(BUF, n - lo)
        for i in range(m):
            buf[i] = a[lo + i]
        res += pairwise(buf, 0, m, 0.0)
    return res


@njit(**_opts)
def first_bad_target(t, C, ign):
    """Index of the first class target outside [0, C) (ignore_index excepted), or -1:
    checked before a program runs, so a bad target raises with nothing updated."""
    for i in range(t.size):
        v = t[i]
        if (v < 0 or v >= C) and v != ign:
            return i
    return -1


@njit(**_opts)
def linear_fwd(x, w, b, has_b, out):
    """`ops/linear.py`'s forward: out = x @ w.T (BLAS), then += b row by row."""
    gemm(False, x, True, w, out, 0.0)
    if has_b:
        m, o = out.shape
        for r in range(m):
            for c in range(o):
                out[r, c] += b[c]


@njit(**_opts)
def linear_vjp(g, x, w, gx, want_x, init_x, gw, want_w, init_w, gb, want_b, init_b):
    """`vjp_linear`'s arithmetic on arrays: gx = g w, gw = g.T x, gb = column sums of g."""
    if want_x:
        gemm(False, g, False, w, gx, 0.0 if init_x else 1.0)
    if want_w:
        gemm(True, g, False, x, gw, 0.0 if init_w else 1.0)
    if want_b:
        if init_b:
            gb[:] = 0
        m, o = g.shape
        for r in range(m):
            for c in range(o):
                gb[c] += g[r, c]


@njit(**_opts)
def class_rows(x, out, N, C, inner):
    """An (N, C, inner) input as contiguous rows of C, (N * inner, C): `losses._rows`."""
    for n in range(N):
        for c in range(C):
            for j in range(inner):
                out[(n * inner + j) * C + c] = x[(n * C + c) * inner + j]


@njit(**_opts)
def nll_vjp(g, t, w, has_w, ignore, N, C, inner, red, scale, gx, init):
    """`losses.vjp_nll` on arrays: gx (zero-filled on first write) -= g w[t] at targets."""
    if init:
        gx[:] = 0
    nll_grad(g, t, w, has_w, ignore, N, C, inner, red, scale, gx)


@njit(**_opts)
def where_fwd(c, a, b, y):
    for i in range(y.size):
        y[i] = a[i] if c[i] != 0 else b[i]


@njit(**_opts)
def where_vjp(c, g, gs, take_true, init):
    """`select.vjp_where` for one operand: g where the condition picks it, else 0."""
    z = g.dtype.type(0)
    if init:
        for i in range(g.size):
            gs[i] = g[i] if (c[i] != 0) == take_true else z
    else:
        for i in range(g.size):
            if (c[i] != 0) == take_true:
                gs[i] += g[i]


@intrinsic
def alive(typingctx, arrays):
    """Does nothing with `arrays`: a program's last statement passes it the arrays it
    allocated, so they live until it returns (compiled code frees an array after its last
    use, and the loops and rows it calls read them by address)."""
    return types.void(arrays), lambda context, builder, signature, args: None


@njit(**_opts)
def row_sums_into(t, gd, shp, st):
    """gd[o] += the fixed-order sum of each row of t, o the row's offset by strides st:
    the gradient of an operand broadcast along the rows, summed row by row as the eager
    VJP sums it (`grows_<op>`), from the contributions t a fused loop wrote (C-contiguous
    over the coalesced shape `shp`, a row being its last dim)."""
    nd = shp.size
    m = shp[nd - 1]
    if t.size == 0:
        return
    shp, st = shp[: nd - 1], st[: nd - 1]
    idx, offs = row_start(0, shp, st, st)
    for r in range(t.size // m):
        gd[offs[0]] += rsum(t[r * m : (r + 1) * m])
        next_row(idx, shp, offs, st, st)
