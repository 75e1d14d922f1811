"""What a VJP kernel may read of the tape: its row's slots and attrs, values, cotangents.

`T` is the tuple (R, I, F, S, gaddr, ginit, rows) handed to the sweep. `gaddr[s]` is
the address of slot s's gradient buffer in this sweep (0: s takes no gradient), and
`ginit[s]` whether anything has been written to it yet, so the first contribution is
stored and later ones added (no zero-fill pass for the common case).

A cotangent that is one value everywhere (what `sum` and `mean` hand back) may be kept as
that value alone: `ginit[s] == BCAST`, the value in the buffer's first element. Only
non-leaf slots of at least one element take this state (their buffers are the sweep's
own; leaves' buffers become `.grad`). VJPs that know the state read the value with
`bcast`/`bval` (e.g. mul's VJP computes `c * b` without reading a filled buffer); every
other reader or writer goes through `cot`/`first`, which fill the buffer first, so every
kernel stays correct without knowing about it. Outside the sweep, `engine.read` and
`engine.accumulate` fill it the same way.
"""

import numpy as np
from numba import njit

from ...tape import R_IPOS, R_NIN, R_NOUT, S_ADDR, S_DT, S_NDIM, S_NUMEL, S_PROD, S_SHAPE
from .memory import v32, v64, view_as
from .vecloops import gscale

BCAST = 2  # ginit state: the cotangent is buffer[0] everywhere

_inl = dict(inline="always", cache=True, error_model="numpy")


@njit(**_inl)
def out_slot(T, k, j):
    return T[1][T[0][k, R_IPOS] + j]


@njit(**_inl)
def in_slot(T, k, j):
    R = T[0]
    return T[1][R[k, R_IPOS] + R[k, R_NOUT] + j]


@njit(**_inl)
def iattr(T, k, j):
    R = T[0]
    return T[1][R[k, R_IPOS] + R[k, R_NOUT] + R[k, R_NIN] + j]


@njit(**_inl)
def iattrs(T, k, j, n):
    """n consecutive int attrs from attr j, as an array view."""
    R = T[0]
    p = R[k, R_IPOS] + R[k, R_NOUT] + R[k, R_NIN] + j
    return T[1][p : p + n]


@njit(**_inl)
def fattr(T, k, j):
    return T[2][T[0][k, 6] + j]


@njit(**_inl)
def numel(T, s):
    return T[3][s, S_NUMEL]


@njit(**_inl)
def ndim(T, s):
    return T[3][s, S_NDIM]


@njit(**_inl)
def shape(T, s):
    S = T[3]
    return S[s, S_SHAPE : S_SHAPE + S[s, S_NDIM]]


@njit(**_inl)
def value(T, s, V):
    S = T[3]
    return view_as(S[s, S_ADDR], S[s, S_NUMEL], V)


@njit(**_inl)
def wants(T, s):
    return T[4][s] != 0


@njit(cache=True, error_model="numpy")
def settle(gaddr, ginit, S, s):
    """Fill a BCAST cotangent's buffer with its value (a plain written buffer after).
    Not inlined, and called unconditionally by the inlined `cot`/`first`: with the test
    inside them, Numba's inliner lost `first`'s store when both were inlined in one
    kernel (found by tests/test_bcast_cot.py: strided views lost their gradients)."""
    if ginit[s] != BCAST:
        return
    ginit[s] = 1
    n = S[s, S_NUMEL]
    if S[s, S_DT] == 0:
        b32 = v32(gaddr[s], n)
        gscale(b32[0], b32, b32, False, True)
    else:
        b64 = v64(gaddr[s], n)
        gscale(b64[0], b64, b64, False, True)


@njit(**_inl)
def cot(T, s, V):
    """s's gradient buffer as a flat array (a BCAST cotangent is filled out first)."""
    settle(T[4], T[5], T[3], s)
    return view_as(T[4][s], T[3][s, S_NUMEL], V)


@njit(**_inl)
def first(T, s):
    """True for the first write to s's gradient in this sweep (and marks it written)."""
    settle(T[4], T[5], T[3], s)
    g = T[5]
    if g[s]:
        return False
    g[s] = 1
    return True


@njit(**_inl)
def bcast(T, s):
    """Whether s's cotangent is one value everywhere (read it with `bval`)."""
    return T[5][s] == BCAST


@njit(**_inl)
def bval(T, s, V):
    return view_as(T[4][s], 1, V)[0]


@njit(cache=True, error_model="numpy")
def push(T, s, V, v):
    """Add the value v everywhere to s's gradient: kept as one value (BCAST) where s's
    gradient is a fresh or BCAST non-leaf buffer, else written out."""
    g = T[5]
    if g[s] == BCAST:
        b = view_as(T[4][s], 1, V)
        b[0] += v
    elif g[s] == 0 and T[3][s, S_PROD] >= 0 and T[3][s, S_NUMEL] > 0:
        b = view_as(T[4][s], 1, V)
        b[0] = v
        g[s] = BCAST
    else:
        b = cot(T, s, V)
        gscale(v, b, b, False, first(T, s))


@njit(**_inl)
def acc(T, s, V):
    """s's gradient buffer, zero-filled on first use: for kernels that scatter-add."""
    b = cot(T, s, V)
    if first(T, s):
        b[:] = 0
    return b


@njit(cache=True, error_model="numpy")
def bstrides(T, s_in, s_out):
    """Element strides of s_in broadcast to s_out's shape (0 along broadcast dims)."""
    S = T[3]
    nd = S[s_out, S_NDIM]
    ndi = S[s_in, S_NDIM]
    st = np.zeros(nd, np.int64)
    run = 1
    for d in range(nd - 1, -1, -1):
        di = d - (nd - ndi)
        if di < 0:
            break
        n = S[s_in, S_SHAPE + di]
        if n != 1:
            st[d] = run
        run *= n
    return st


@njit(cache=True, error_model="numpy")
def gather_strided(x, y, offset, shp, st):
    """y[i] = x[offset + idx(i) . st] over shape `shp`, in row-major order."""
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    offs[0] = offset
    for i in range(y.size):
        y[i] = x[offs[0]]
        step(idx, shp, offs, st, st)


@njit(inline="always")
def step(idx, shp, offs, strides_a, strides_b):
    """Advance a row-major multi-index over `shp`, moving two strided offsets along."""
    d = shp.size - 1
    while d >= 0:
        idx[d] += 1
        offs[0] += strides_a[d]
        offs[1] += strides_b[d]
        if idx[d] < shp[d]:
            return
        offs[0] -= strides_a[d] * shp[d]
        offs[1] -= strides_b[d] * shp[d]
        idx[d] = 0
        d -= 1
