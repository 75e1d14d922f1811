"""What a VJP kernel may read of the tape: its row's slots and attrs, values, cotangents.

`T` is the tuple (R, I, F, S, gaddr, ginit, rows) handed to the sweep. `gaddr[s]` is
the address of slot s's gradient buffer in this sweep (0: s takes no gradient), and
`ginit[s]` whether anything has been written to it yet, so the first contribution is
stored and later ones added (no zero-fill pass for the common case).
"""

import numpy as np
from numba import njit

from ...tape import R_IPOS, R_NIN, R_NOUT, S_ADDR, S_NDIM, S_NUMEL, S_SHAPE
from .memory import view_as

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


@njit(**_inl)
def cot(T, s, V):
    return view_as(T[4][s], T[3][s, S_NUMEL], V)


@njit(**_inl)
def first(T, s):
    """True for the first write to s's gradient in this sweep (and marks it written)."""
    g = T[5]
    if g[s]:
        return False
    g[s] = 1
    return True


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
