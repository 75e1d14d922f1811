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
    R_IPOS,
    R_NIN,
    R_NOUT,
    R_SAVED,
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
