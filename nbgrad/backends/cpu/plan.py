"""Compiled parts of a backward pass other than the sweep: planning, seeding, cleanup."""

import numpy as np
from numba import njit

from ...tape import (
    R_IPOS,
    R_NIN,
    R_NOUT,
    R_SAVED,
    S_DT,
    S_NUMEL,
    S_PROD,
    S_RG,
    SAVES_FREED,
    SAVES_LIVE,
)
from .memory import view_like
from .rowio import settle

ALIGN = 64


@njit(cache=True, error_model="numpy")
def plan(R, I, S, n, roots, inputs, restrict, gaddr, ginit, fn, mark, arena):
    """Find the rows a backward from `roots` needs and lay out their gradient buffers.

    Walks rows down from the roots' producers and stops as soon as no reached slot is
    still waiting for its producer row, so the cost is the graph's, not the tape's.
    With `restrict` (autograd.grad), only rows on a path from `inputs` count. `mark` is
    zeroed scratch of one byte per slot (left zeroed on return). `arena` is the previous
    pass's gradient arena, reused when large enough (fresh large allocations cost a page
    fault per 4 KiB on first touch, which dominated backward passes of big tensors).

    Returns (needed rows in descending order, arena for non-leaf gradients, non-leaf
    slots given a buffer, leaf slots reached (the caller supplies their buffers), first
    freed row reached or -1, (code * 2 + dtype) of needed rows whose VJP is not compiled).
    """
    ns = S.shape[0]
    reached = np.empty(ns, np.int64)
    nr = 0
    pending = 0
    top = -1
    for s in roots:
        if not mark[s]:
            mark[s] = 1
            reached[nr] = s
            nr += 1
            if S[s, S_PROD] >= 0:
                pending += 1
        top = max(top, S[s, S_PROD])
    dep = np.empty(0, np.uint8)
    if restrict:
        dep = np.zeros(ns, np.uint8)
        lo = n
        for s in inputs:
            dep[s] = 1
            p = S[s, S_PROD]
            lo = min(lo, p + 1 if p >= 0 else 0)
        for k in range(lo, top + 1):
            p = R[k, R_IPOS]
            no = R[k, R_NOUT]
            d = 0
            for j in range(R[k, R_NIN]):
                d |= dep[I[p + no + j]]
            if d:
                for j in range(no):
                    dep[I[p + j]] = 1
    rows = np.empty(max(top + 1, 0), np.int64)
    nrows = 0
    missing = {0}
    missing.discard(0)
    freed = -1
    for k in range(top, -1, -1):
        if pending == 0:
            break
        p = R[k, R_IPOS]
        no = R[k, R_NOUT]
        hit = 0
        for j in range(no):
            hit += mark[I[p + j]]
        if hit == 0:
            continue
        pending -= hit
        if restrict and not dep[I[p]]:
            continue
        if R[k, R_SAVED] == SAVES_FREED:
            freed = k
            break
        rows[nrows] = k
        nrows += 1
        if fn[R[k, 0], R[k, 1]] == 0:
            missing.add(R[k, 0] * 2 + R[k, 1])
        for j in range(R[k, R_NIN]):
            s = I[p + no + j]
            if S[s, S_RG] and not mark[s] and (not restrict or dep[s]):
                mark[s] = 1
                reached[nr] = s
                nr += 1
                if S[s, S_PROD] >= 0:
                    pending += 1
    # buffers: non-leaf slots from one arena; leaves are listed for the caller
    nbuf = 0
    for i in range(nr):
        if S[reached[i], S_PROD] >= 0:
            nbuf += 1
    used = np.empty(nbuf, np.int64)
    leaves = np.empty(nr - nbuf, np.int64)
    total = 0
    a = 0
    b = 0
    for i in range(nr):
        s = reached[i]
        mark[s] = 0
        if S[s, S_PROD] >= 0:
            used[a] = s
            a += 1
            total += _padded(S, s)
        else:
            leaves[b] = s
            b += 1
    if arena.size < total + ALIGN:
        arena = np.empty(total + ALIGN, np.uint8)
    base = (arena.ctypes.data + ALIGN - 1) // ALIGN * ALIGN
    off = 0
    for s in used:
        gaddr[s] = base + off
        ginit[s] = 0
        off += _padded(S, s)
    miss = np.empty(len(missing), np.int64)
    i = 0
    for m in missing:
        miss[i] = m
        i += 1
    return rows[:nrows], arena, used, leaves, freed, miss


@njit(inline="always", cache=True, error_model="numpy")
def _padded(S, s):
    nbytes = S[s, S_NUMEL] * (4 if S[s, S_DT] == 0 else 8)
    return (nbytes + ALIGN - 1) // ALIGN * ALIGN


@njit(cache=True, error_model="numpy")
def _add_into(buf, src, init):
    if init:
        for i in range(src.size):
            buf[i] += src[i]
    else:
        for i in range(src.size):
            buf[i] = src[i]


@njit(cache=True, error_model="numpy")
def accumulate(gaddr, ginit, S, s, src):
    """Add `src` (flat float32/float64) into slot s's gradient buffer."""
    settle(gaddr, ginit, S, s)
    _add_into(view_like(gaddr[s], src.size, src), src, ginit[s])
    ginit[s] = 1


@njit(cache=True, error_model="numpy")
def read(gaddr, ginit, S, s, out):
    """Copy slot s's gradient into `out` (flat)."""
    settle(gaddr, ginit, S, s)
    out[:] = view_like(gaddr[s], out.size, out)


@njit(cache=True, error_model="numpy")
def finish(R, gaddr, ginit, used, leaves, rows, free_graph):
    """Reset the sweep scratch; when freeing, mark the rows and return those that held
    saved values (their references are then dropped by the caller)."""
    for s in used:
        gaddr[s] = 0
        ginit[s] = 0
    for s in leaves:
        gaddr[s] = 0
        ginit[s] = 0
    out = np.empty(rows.size if free_graph else 0, np.int64)
    j = 0
    if free_graph:
        for k in rows:
            if R[k, R_SAVED] == SAVES_LIVE:
                R[k, R_SAVED] = SAVES_FREED
                out[j] = k
                j += 1
    return out[:j]


__all__ = ["plan", "accumulate", "read", "finish"]
