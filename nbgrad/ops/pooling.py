"""The window search behind max pooling (ops/conv_pool.py): the position of each
window's maximum, found in one compiled pass (NumPy's argmax over a short last axis pays
a call per window). The pool reads the values with a recorded gather at these positions."""

import functools

import numpy as np
from numba import njit

from .._array import contig


@njit(cache=True, error_model="numpy")
def _window_argmax(w, arg, pos):
    n = w.shape[1]
    for r in range(w.shape[0]):
        best, a = w[r, 0], 0
        for j in range(1, n):
            c = w[r, j]
            if c > best or c != c:  # as PyTorch's pools: the first maximum, the last NaN
                best, a = c, j
        arg[r] = a
        pos[r] = r * n + a


def window_argmax(w):
    """For a 2-D float array of windows (one a row): the index of each row's first maximum
    (its last NaN if it has one, as PyTorch's max pools), and that element's flat position
    in w."""
    w = contig(w)
    arg = np.empty(w.shape[0], np.int64)
    pos = np.empty(w.shape[0], np.int64)
    _window_argmax(w, arg, pos)
    return arg, pos


@njit(cache=True, error_model="numpy")
def _pool_positions(x, pos, geo, offs):
    """pos[window] = the flat position in x of its maximum; offs: the offsets of a
    window's elements from its corner."""
    P, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW, inside = (
        geo[0], geo[1], geo[2], geo[3], geo[4], geo[5], geo[6], geo[7], geo[8], geo[9],
        geo[10], geo[11], geo[12], geo[13],
    )  # fmt: skip
    for p in range(P):
        base = p * H * W
        for oh in range(OH):
            for ow in range(OW):
                q0 = base + (oh * SH - PH) * W + ow * SW - PW  # the window's corner
                if inside:  # no window reaches past the input: no bounds to test
                    best, at = x[q0], q0
                    for t in range(1, offs.size):  # one loop: two short ones cost 2x
                        q = q0 + offs[t]
                        c = x[q]
                        if c > best or c != c:  # the first maximum, the last NaN
                            best, at = c, q
                else:
                    best, at = x[base], -1
                    for i in range(KH):
                        ih = oh * SH - PH + i * DH
                        if ih < 0 or ih >= H:
                            continue
                        for j in range(KW):
                            iw = ow * SW - PW + j * DW
                            if iw < 0 or iw >= W:
                                continue
                            q = base + ih * W + iw
                            c = x[q]
                            if at < 0 or c > best or c != c:
                                best, at = c, q
                pos[(p * OH + oh) * OW + ow] = at


@functools.lru_cache(maxsize=256)
def _geometry(xshape, kernel, stride, padding, dilation, out):
    h, w = ([1] + list(xshape[2:]))[-2:]
    k, s, p, d, o = (
        [f] * (2 - len(v)) + list(v)
        for f, v in zip((1, 1, 0, 1, 1), (kernel, stride, padding, dilation, out))
    )
    inside = p == [0, 0] and all(
        (oo - 1) * ss + (kk - 1) * dd < n for oo, ss, kk, dd, n in zip(o, s, k, d, (h, w))
    )
    geo = np.array((xshape[0] * xshape[1], h, w, *k, *s, *p, *d, *o, inside), np.int64)
    offs = (np.arange(k[0])[:, None] * d[0] * w + np.arange(k[1])[None, :] * d[1]).reshape(-1)
    return geo, offs.astype(np.int64)


def pool_positions(x, kernel, stride, padding, dilation, out):
    """For x (N, C, *spatial) float, 1-D or 2-D: the flat position in x of each pooling
    window's maximum, (N, C, *out) int64, as PyTorch's max pools pick it (the first
    maximum, the last NaN; padding never wins). Every window must hold an input element."""
    geo, offs = _geometry(x.shape, kernel, stride, padding, dilation, out)
    pos = np.empty(x.shape[:2] + tuple(out), np.int64)
    _pool_positions(contig(x).reshape(-1), pos.reshape(-1), geo, offs)
    return pos
