"""Row walks for broadcasting binary kernels (the generated `fwd_<op>_bc` and the
broadcasting branch of `vjp_<op>`).

The output is seen as rows along its last (coalesced) dimension. Along a row each operand
is either contiguous (stride 1) or one value (stride 0), so the loop over a row is a plain
vectorisable loop over slices; only moving from one row to the next walks the outer
dimensions. Walking every element through the multi-index (`rowio.step`) kept the loops
scalar: `x - x.mean(-1, keepdim=True)` over (4096, 1000) float32 took 23 ms where NumPy
takes 2 ms.
"""

import numpy as np
from numba import njit

from .rowio import step

CHUNKS = 64  # row blocks a parallel kernel splits the rows into


@njit(cache=True, error_model="numpy")
def coalesce(shp, sa, sb):
    """(shape, strides of a, strides of b) with size-1 dims dropped and neighbouring dims
    merged wherever both operands step through them as one dim: (64, 16, 8, 8) against a
    (1, 16, 1, 1) bias becomes (64, 16, 64). At least one dim is kept."""
    nd = shp.size
    cs = np.ones(max(nd, 1), np.int64)
    ca = np.zeros(max(nd, 1), np.int64)
    cb = np.zeros(max(nd, 1), np.int64)
    k = 0
    for d in range(nd):
        n = shp[d]
        if n == 1:
            continue
        if k > 0 and ca[k - 1] == sa[d] * n and cb[k - 1] == sb[d] * n:
            cs[k - 1] *= n
            ca[k - 1] = sa[d]
            cb[k - 1] = sb[d]
        else:
            cs[k] = n
            ca[k] = sa[d]
            cb[k] = sb[d]
            k += 1
    k = max(k, 1)
    return cs[:k], ca[:k], cb[:k]


@njit(inline="always", cache=True, error_model="numpy")
def row_start(r, shp, sa, sb):
    """Multi-index over the outer dims `shp` of row r, and the operands' offsets there."""
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    q = r
    for d in range(shp.size - 1, -1, -1):
        i = q % shp[d]
        q //= shp[d]
        idx[d] = i
        offs[0] += i * sa[d]
        offs[1] += i * sb[d]
    return idx, offs


@njit(inline="always", cache=True, error_model="numpy")
def next_row(idx, shp, offs, sa, sb):
    step(idx, shp, offs, sa, sb)


@njit(inline="always", cache=True, error_model="numpy")
def row_of(x, off, m, contiguous, buf):
    """The m values an operand contributes to a row: its slice, or `buf` filled with its
    one value."""
    if contiguous:
        return x[off : off + m]
    v = x[off]
    for i in range(m):
        buf[i] = v
    return buf


@njit(cache=True, error_model="numpy")
def blocks(rows, nelem, par_min):
    """How many row blocks a kernel over `nelem` elements runs in parallel (1: serial)."""
    return min(rows, CHUNKS) if nelem >= par_min else 1


@njit(cache=True, error_model="numpy")
def spread(g, gx, shp, st, scale, init):
    """gx (C-contiguous over `shp`) = or += scale * g read with strides `st` (0 along the
    dims g was reduced over): the VJP of a sum or mean over some dims."""
    if gx.size == 0:
        return
    shp, st, _ = coalesce(shp, st, st)
    nd = shp.size
    m = shp[nd - 1]
    along = st[nd - 1] != 0
    shp, st = shp[: nd - 1], st[: nd - 1]
    idx, offs = row_start(0, shp, st, st)
    for r in range(gx.size // m):
        o = offs[0]
        dv = gx[r * m : (r + 1) * m]
        if along:
            gv = g[o : o + m]
            if init:
                for i in range(m):
                    dv[i] = gv[i] * scale
            else:
                for i in range(m):
                    dv[i] += gv[i] * scale
        else:
            v = g[o] * scale
            if init:
                for i in range(m):
                    dv[i] = v
            else:
                for i in range(m):
                    dv[i] += v
        next_row(idx, shp, offs, st, st)
