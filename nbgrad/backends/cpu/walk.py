"""The Python sweeps' graph walk, compiled: which rows lie between roots and wanted slots.

`graph.py` walks the tape for every create_graph / batched / forward-mode sweep; done in
Python it cost more than a microsecond per row (a NumPy row read, a list per row). Here
one call returns every row the sweep visits, newest first, already decoded into one flat
int64 list the caller reads with a single `.tolist()`, and the shapes of their slots.
"""

import numpy as np
from numba import njit

from ...tape import (
    R_CODE,
    R_ILEN,
    R_IPOS,
    R_NIN,
    R_NOUT,
    R_SAVED,
    S_DT,
    S_NDIM,
    S_PROD,
    S_RG,
    S_SHAPE,
    SAVES_FREED,
)


@njit(cache=True, error_model="numpy")
def walk(R, I, S, roots, stop, wanted, restrict):  # noqa: E741 - the tape's name
    """Rows that produced `roots`, transitively (not past `stop` slots, only through
    inputs that take gradients); with `restrict`, only rows on a path down to a `wanted`
    slot. Returns (rows, shapes, freed): newest row first, [k, code, n_out, n_in, outs...,
    ins..., rg...] (rg: per input, whether it takes a gradient), concatenated; [slot, ndim,
    shape...] for each slot of those rows; whether any of the rows had its saved values
    freed by a backward."""
    seen = np.zeros(S.shape[0], np.uint8)
    for s in stop:
        seen[s] = 1
    taken = np.zeros(R.shape[0], np.uint8)
    found = np.empty(R.shape[0], np.int64)
    nrows = 0
    stack = np.empty(max(16, roots.size), np.int64)
    top = 0
    for s in roots:
        stack[top] = s
        top += 1
    while top:
        top -= 1
        s = stack[top]
        if seen[s]:
            continue
        seen[s] = 1
        k = S[s, S_PROD]
        if k < 0 or taken[k]:
            continue
        taken[k] = 1
        found[nrows] = k
        nrows += 1
        p, no, ni = R[k, R_IPOS], R[k, R_NOUT], R[k, R_NIN]
        for j in range(p + no, p + no + ni):
            i = I[j]
            if S[i, S_RG] != 0 and not seen[i]:
                if top == stack.size:
                    bigger = np.empty(2 * stack.size, np.int64)
                    bigger[:top] = stack[:top]
                    stack = bigger
                stack[top] = i
                top += 1
    rows = np.sort(found[:nrows])
    keep = np.ones(nrows, np.uint8)
    if restrict:  # reach: slots with a path down to a wanted slot (rows are topological)
        reach = np.zeros(S.shape[0], np.uint8)
        for s in wanted:
            reach[s] = 1
        for r in range(nrows):
            k = rows[r]
            p, no, ni = R[k, R_IPOS], R[k, R_NOUT], R[k, R_NIN]
            hit = False
            for j in range(p + no, p + no + ni):
                if reach[I[j]]:
                    hit = True
            keep[r] = hit
            if hit:
                for j in range(p, p + no):
                    reach[I[j]] = 1
    size = 0
    nshape = 0
    freed = False
    listed = seen  # reused: marks slots whose shape is listed
    listed[:] = 0
    for r in range(nrows):
        if keep[r]:
            k = rows[r]
            p, no, ni = R[k, R_IPOS], R[k, R_NOUT], R[k, R_NIN]
            size += 4 + no + 2 * ni
            freed |= R[k, R_SAVED] == SAVES_FREED
            for j in range(p, p + no + ni):
                i = I[j]
                if not listed[i]:
                    listed[i] = 1
                    nshape += 2 + S[i, S_NDIM]
    shapes = np.empty(nshape, np.int64)
    q = 0
    listed[:] = 0
    for r in range(nrows):
        if keep[r]:
            k = rows[r]
            p, no, ni = R[k, R_IPOS], R[k, R_NOUT], R[k, R_NIN]
            for j in range(p, p + no + ni):
                i = I[j]
                if not listed[i]:
                    listed[i] = 1
                    nd = S[i, S_NDIM]
                    shapes[q] = i
                    shapes[q + 1] = nd
                    for d in range(nd):
                        shapes[q + 2 + d] = S[i, S_SHAPE + d]
                    q += 2 + nd
    out = np.empty(size, np.int64)
    q = 0
    for r in range(nrows - 1, -1, -1):
        if not keep[r]:
            continue
        k = rows[r]
        p, no, ni = R[k, R_IPOS], R[k, R_NOUT], R[k, R_NIN]
        out[q] = k
        out[q + 1] = R[k, R_CODE]
        out[q + 2] = no
        out[q + 3] = ni
        q += 4
        for j in range(p, p + no + ni):
            out[q] = I[j]
            q += 1
        for j in range(p + no, p + no + ni):
            out[q] = 1 if S[I[j], S_RG] != 0 else 0
            q += 1
    return out, shapes, freed


@njit(cache=True, error_model="numpy")
def signature(R, I, S, flat, root, wanted):  # noqa: E741 - the tape's name
    """The structure of a walk (`walk`'s rows, with `restrict`) as int64s that two graphs
    share exactly when everything but their slot and row numbers and their values agree:
    slots are renumbered (root 0, wanted[i] 1 + i, the others in order of first use), each
    with its dtype, requires-grad flag and shape where first listed; rows give code, slots,
    rg flags and int attrs. Returns (signature, slot of each number, row of each walk row)."""
    ids = np.full(S.shape[0], -1, np.int64)
    nrows, size, q = 0, 0, 0
    while q < flat.size:  # bound the output: rows, their slots' shapes, int attrs
        k, no, ni = flat[q], flat[q + 2], flat[q + 3]
        nrows += 1
        size += 4 + (no + ni) * (5 + S.shape[1]) + R[k, R_ILEN]
        q += 4 + no + 2 * ni
    size += (1 + wanted.size) * (5 + S.shape[1])
    out = np.empty(size, np.int64)
    slots = np.empty(1 + wanted.size + size, np.int64)
    rows = np.empty(nrows, np.int64)
    n, o = 0, 0
    for s in np.concatenate((np.array([root]), wanted)):
        if s < 0:  # (a wanted leaf no op recorded: it has no slot)
            out[o] = -2
            o += 1
            slots[n] = -1
            n += 1
            continue
        if ids[s] < 0:
            ids[s] = n
        slots[n] = s
        n += 1
        o = _slot_sig(S, s, ids[s], out, o)
    q, r = 0, 0
    while q < flat.size:
        k, no, ni = flat[q], flat[q + 2], flat[q + 3]
        rows[r] = k
        r += 1
        out[o], out[o + 1], out[o + 2] = flat[q + 1], no, ni
        o += 3
        for j in range(q + 4, q + 4 + no + ni):
            s = flat[j]
            if ids[s] < 0:  # first use: its number and what it is
                ids[s] = n
                slots[n] = s
                n += 1
                o = _slot_sig(S, s, ids[s], out, o)
            else:
                out[o] = ids[s]
                o += 1
        for j in range(q + 4 + no + ni, q + 4 + no + 2 * ni):
            out[o] = flat[j]
            o += 1
        p = R[k, R_IPOS] + no + ni
        e = R[k, R_IPOS] + R[k, R_ILEN]
        out[o] = e - p
        o += 1
        for j in range(p, e):
            out[o] = I[j]
            o += 1
        q += 4 + no + 2 * ni
    return out[:o].copy(), slots[:n].copy(), rows


@njit(cache=True, error_model="numpy")
def _slot_sig(S, s, i, out, o):
    nd = S[s, S_NDIM]
    out[o], out[o + 1], out[o + 2], out[o + 3] = i, S[s, S_DT], S[s, S_RG] != 0, nd
    for d in range(nd):
        out[o + 4 + d] = S[s, S_SHAPE + d]
    return o + 4 + nd


@njit(cache=True, error_model="numpy")
def walk_signature(R, I, S, root, wanted):  # noqa: E741 - the tape's name
    """`walk` from slot `root` down to the `wanted` slots (-1s skipped), then `signature`
    of its rows: (rows, shapes, freed, signature, slot numbers, row numbers) in one call."""
    flat, shp, freed = walk(R, I, S, np.array([root]), wanted[:0], wanted[wanted >= 0], True)
    sig, slots, rows = signature(R, I, S, flat, root, wanted)
    return flat, shp, freed, sig, slots, rows
