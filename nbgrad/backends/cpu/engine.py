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

ALIGN = 64


@njit(cache=True)
def plan(R, I, S, n, roots, inputs, restrict, gaddr, ginit, fn):
    """Mark the rows a backward from `roots` needs and lay out their gradient buffers.

    Returns (needed rows mask, arena for non-leaf gradients, slots given a buffer, leaf
    slots reached, first freed row reached or -1, (code, dtype) pairs of needed rows whose
    VJP is not compiled yet: code * 2 + dtype). With `restrict`, only rows on a path
    from `inputs` count (autograd.grad); leaves then get buffers only if in `inputs`.
    """
    ns = S.shape[0]
    reach = np.zeros(ns, np.uint8)
    top = -1
    for s in roots:
        reach[s] = 1
        top = max(top, S[s, S_PROD])
    dep = np.ones(ns, np.uint8)
    if restrict:
        dep[:] = 0
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
    needed = np.zeros(max(n, 1), np.uint8)
    missing = {0}
    missing.discard(0)
    freed = -1
    for k in range(top, -1, -1):
        p = R[k, R_IPOS]
        no = R[k, R_NOUT]
        hit = False
        for j in range(no):
            if reach[I[p + j]]:
                hit = True
        if not hit or (restrict and not dep[I[p]]):
            continue
        if R[k, R_SAVED] == SAVES_FREED:
            freed = k
            break
        needed[k] = 1
        if fn[R[k, 0], R[k, 1]] == 0:
            missing.add(R[k, 0] * 2 + R[k, 1])
        for j in range(R[k, R_NIN]):
            s = I[p + no + j]
            if S[s, S_RG] and dep[s]:
                reach[s] = 1
    # buffers: non-leaf slots from one arena, leaves listed for the caller to supply
    nbuf = 0
    nleaf = 0
    for s in range(ns):
        if reach[s]:
            if S[s, S_PROD] >= 0:
                nbuf += 1
            else:
                nleaf += 1
    used = np.empty(nbuf, np.int64)
    leaves = np.empty(nleaf, np.int64)
    total = 0
    i = 0
    j = 0
    for s in range(ns):
        if reach[s]:
            if S[s, S_PROD] >= 0:
                used[i] = s
                i += 1
                nbytes = S[s, S_NUMEL] * (4 if S[s, S_DT] == 0 else 8)
                total += (nbytes + ALIGN - 1) // ALIGN * ALIGN
            else:
                leaves[j] = s
                j += 1
    arena = np.empty(total + ALIGN, np.uint8)
    base = (arena.ctypes.data + ALIGN - 1) // ALIGN * ALIGN
    off = 0
    for s in used:
        gaddr[s] = base + off
        ginit[s] = 0
        nbytes = S[s, S_NUMEL] * (4 if S[s, S_DT] == 0 else 8)
        off += (nbytes + ALIGN - 1) // ALIGN * ALIGN
    miss = np.empty(len(missing), np.int64)
    i = 0
    for m in missing:
        miss[i] = m
        i += 1
    return needed, arena, used, leaves, freed, miss


@njit(cache=True)
def _add_into(buf, src, init):
    if init:
        for i in range(src.size):
            buf[i] += src[i]
    else:
        for i in range(src.size):
            buf[i] = src[i]


@njit(cache=True)
def accumulate(gaddr, ginit, s, src):
    """Add `src` (flat float32/float64) into slot s's gradient buffer."""
    _add_into(view_like(gaddr[s], src.size, src), src, ginit[s])
    ginit[s] = 1


@njit(cache=True)
def read(gaddr, s, out):
    """Copy slot s's gradient into `out` (flat)."""
    out[:] = view_like(gaddr[s], out.size, out)


@njit(cache=True)
def finish(R, gaddr, ginit, used, leaves, needed, free_graph):
    """Reset the sweep scratch; when freeing, mark the rows and return those that held
    saved values (their references are then dropped by the caller)."""
    for s in used:
        gaddr[s] = 0
        ginit[s] = 0
    for s in leaves:
        gaddr[s] = 0
        ginit[s] = 0
    nf = 0
    if free_graph:
        for k in range(needed.size):
            if needed[k] and R[k, R_SAVED] == SAVES_LIVE:
                nf += 1
    rows = np.empty(nf, np.int64)
    j = 0
    if free_graph:
        for k in range(needed.size):
            if needed[k] and R[k, R_SAVED] == SAVES_LIVE:
                R[k, R_SAVED] = SAVES_FREED
                rows[j] = k
                j += 1
    return rows


__all__ = ["plan", "accumulate", "read", "finish", "np"]
