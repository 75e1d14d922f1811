"""conv1d/conv2d on CPU as one row: im2col and a GEMM per group in one compiled call.

Composed of recorded ops (ops/conv_pool.py), a convolution pays for a padded copy of its
input, a gather by a position array, the product, and a copy from (N, H, W, O) to
(N, O, H, W), each a row with its own VJP (the view's VJP walks element by element). Here
the forward unfolds the input into columns (C*KH*KW, OH*OW*N), the batch innermost so that
each copy is a run of N values however small the image, multiplies W (O, C*KH*KW) by
them and writes y in (N, O, OH, OW) order; the VJP recomputes the
columns from the saved input (nothing is saved by address, so a compiled program replays
the row as it is) for the weight's gradient, and scatters W.T @ g back into the input's.
A 1-D convolution is the 2-D one with H = KH = 1.

CUDA tensors, batched tensors and mixed dtypes take the composite. The differentiable VJP
(create_graph, forward mode, batched gradients) is composed of recorded ops: a transposed
convolution for the input, a product with the unfolded input for the weight.
"""

import functools

import numpy as np
from numba import njit

from .._optable import attrs, declare
from ..backends.cpu.blas import gemm
from ..backends.cpu.rowio import cot, first, iattrs, in_slot, out_slot, value, wants
from ..backends.cpu.vecloops import rdot, rsum
from ..tensor import TENSOR_TYPES
from .recording import emit

# a row: input (N, C, H, W), weight (O, C / G, KH, KW), output (N, O, OH, OW); stride,
# leading padding and dilation per dim; groups; whether a bias is an input
A = attrs(
    "N", "C", "H", "W", "O", "KH", "KW", "OH", "OW", "SH", "SW", "PH", "PW", "DH", "DW", "G",
    "has_b",
)  # fmt: skip
# the weight gradient skips the columns where a group's C/G*KH*KW is at most this: thin
# columns (a first layer's few channels) make a product that packs poorly (16x27x4096:
# 58 us to make the columns and 87 us for the GEMM, against 78 us for the dot products)
THIN = 32


@njit(cache=True, error_model="numpy")
def _batch_last(x, xt):
    """xt[q, n] = x[n, q] (2-D arrays): the batch becomes the contiguous axis."""
    for n in range(x.shape[0]):
        for q in range(x.shape[1]):
            xt[q, n] = x[n, q]


@njit(cache=True, error_model="numpy")
def _im2col(xt, cols, a):
    """cols[(c, i, j), (oh, ow), n] = x[n, c, oh*SH - PH + i*DH, ow*SW - PW + j*DW], 0
    outside the input, from xt = x as (C, H*W, N). Batch innermost: each entry is a run
    of N contiguous values, where a small image's rows hold only a few."""
    C, H, W, KH, KW = a[A.C], a[A.H], a[A.W], a[A.KH], a[A.KW]
    OH, OW, SH, SW = a[A.OH], a[A.OW], a[A.SH], a[A.SW]
    PH, PW, DH, DW = a[A.PH], a[A.PW], a[A.DH], a[A.DW]
    for c in range(C):
        for i in range(KH):
            for j in range(KW):
                r = (c * KH + i) * KW + j
                for oh in range(OH):
                    ih = oh * SH - PH + i * DH
                    for ow in range(OW):
                        iw = ow * SW - PW + j * DW
                        d = cols[r, oh * OW + ow]
                        if ih >= 0 and ih < H and iw >= 0 and iw < W:
                            d[:] = xt[c, ih * W + iw]
                        else:
                            d[:] = 0


@njit(cache=True, error_model="numpy")
def _col2im(cols, gxt, a):
    """gxt (C, H*W, N) += every column entry _im2col read from there."""
    C, H, W, KH, KW = a[A.C], a[A.H], a[A.W], a[A.KH], a[A.KW]
    OH, OW, SH, SW = a[A.OH], a[A.OW], a[A.SH], a[A.SW]
    PH, PW, DH, DW = a[A.PH], a[A.PW], a[A.DH], a[A.DW]
    for c in range(C):
        for i in range(KH):
            for j in range(KW):
                r = (c * KH + i) * KW + j
                for oh in range(OH):
                    ih = oh * SH - PH + i * DH
                    if ih < 0 or ih >= H:
                        continue
                    for ow in range(OW):
                        iw = ow * SW - PW + j * DW
                        if iw >= 0 and iw < W:
                            d = gxt[c, ih * W + iw]
                            src = cols[r, oh * OW + ow]
                            for n in range(d.size):
                                d[n] += src[n]


@njit(cache=True, error_model="numpy")
def _batch_last_input(x, a):
    """x as (C, H*W, N)."""
    N, C, HW = a[A.N], a[A.C], a[A.H] * a[A.W]
    xt = np.empty((C, HW, N), x.dtype)
    _batch_last(x.reshape((N, C * HW)), xt.reshape((C * HW, N)))
    return xt


@njit(cache=True, error_model="numpy")
def _columns(x, a):
    """The unfolded input, (G * C/G * KH * KW, OH * OW, N)."""
    C, KH, KW = a[A.C], a[A.KH], a[A.KW]
    cols = np.empty((C * KH * KW, a[A.OH] * a[A.OW], a[A.N]), x.dtype)
    _im2col(_batch_last_input(x, a), cols, a)
    return cols


@njit(cache=True, error_model="numpy")
def _weight_grad_rows(xt, gt, gw, a, init):
    """gw (O, C/G*KH*KW) (+)= gt (O, OH*OW*N) @ columns.T without the columns, for stride 1
    along W: an output row's entries for kernel tap (i, j) read one contiguous run of xt
    (C, H*W*N), so each (o, c, i, j) is a few dot products of runs of OW*N values."""
    N, C, H, W, O, KH, KW = a[A.N], a[A.C], a[A.H], a[A.W], a[A.O], a[A.KH], a[A.KW]
    OH, OW, SH, PH, PW, DH, DW = a[A.OH], a[A.OW], a[A.SH], a[A.PH], a[A.PW], a[A.DH], a[A.DW]
    cg, og = C // a[A.G], O // a[A.G]
    x2 = xt.reshape((C * H, W * N))
    g2 = gt.reshape((O * OH, OW * N))
    for o in range(O):
        for cl in range(cg):
            c = (o // og) * cg + cl
            for i in range(KH):
                for j in range(KW):
                    off = j * DW - PW  # input column of output column 0
                    lo, hi = max(-off, 0), min(W - off, OW)
                    acc = gw.dtype.type(0)
                    for oh in range(OH):
                        ih = oh * SH - PH + i * DH
                        if ih >= 0 and ih < H and hi > lo:
                            xr = x2[c * H + ih, (lo + off) * N : (hi + off) * N]
                            acc += rdot(g2[o * OH + oh, lo * N : hi * N], xr)
                    r = (cl * KH + i) * KW + j
                    gw[o, r] = acc if init else gw[o, r] + acc


@njit(cache=True, error_model="numpy")
def _forward(x, w, b, y, a):
    N, C, O, KH, KW, G = a[A.N], a[A.C], a[A.O], a[A.KH], a[A.KW], a[A.G]
    L, ck, og = a[A.OH] * a[A.OW], (C // G) * KH * KW, O // G
    cols = _columns(x, a).reshape((G * ck, L * N))
    w2 = w.reshape((O, ck))
    prod = np.empty((O, L * N), x.dtype)
    for q in range(G):
        gemm(False, w2[q * og : (q + 1) * og], False, cols[q * ck : (q + 1) * ck],
             prod[q * og : (q + 1) * og], 0.0)  # fmt: skip
    p3 = prod.reshape((O, L, N))
    y3 = y.reshape((N, O, L))
    for o in range(O):  # o outermost: p3[o] stays in cache while it is read across
        bo = b[o] if a[A.has_b] else 0
        for n in range(N):
            d = y3[n, o]
            for i in range(L):
                d[i] = p3[o, i, n] + bo


@njit(cache=True, error_model="numpy")
def replay_conv(T, k, V):
    """The eager kernel (nbgrad.compile)."""
    a = iattrs(T, k, 0, len(A))
    x, w = value(T, in_slot(T, k, 0), V), value(T, in_slot(T, k, 1), V)
    b = value(T, in_slot(T, k, 2), V) if a[A.has_b] else x[:0]
    _forward(x, w, b, value(T, out_slot(T, k, 0), V), a)


@njit(cache=True, error_model="numpy")
def vjp_conv(T, k, V):
    """g (N, O, L) as gt (O, L*N): gw = gt @ cols.T, gcols = W.T @ gt scattered back into
    gx, gb = g summed over (L, N); per group for the products."""
    a = iattrs(T, k, 0, len(A))
    N, C, O, KH, KW, OH, OW = a[A.N], a[A.C], a[A.O], a[A.KH], a[A.KW], a[A.OH], a[A.OW]
    G, has_b = a[A.G], a[A.has_b]
    s_y, s_x, s_w = out_slot(T, k, 0), in_slot(T, k, 0), in_slot(T, k, 1)
    s_b = in_slot(T, k, 2) if has_b else 0
    want_x, want_w = wants(T, s_x), wants(T, s_w)
    want_b = has_b != 0 and wants(T, s_b)
    if not (want_x or want_w or want_b):
        return
    L, ck, og = OH * OW, (C // G) * KH * KW, O // G
    g3 = cot(T, s_y, V).reshape((N, O, L))
    gt3 = np.empty((O, L, N), g3.dtype)
    for o in range(O):  # o outermost: gt3[o] stays in cache while it is written across
        for n in range(N):
            src = g3[n, o]
            for i in range(L):
                gt3[o, i, n] = src[i]
    gt = gt3.reshape((O, L * N))
    if want_b:
        gb = cot(T, s_b, V)
        init = first(T, s_b)
        for o in range(O):
            v = rsum(gt[o])
            gb[o] = v if init else gb[o] + v
    x = value(T, s_x, V)
    if want_w and a[A.SW] == 1 and ck <= THIN:
        gw = cot(T, s_w, V).reshape((O, ck))
        _weight_grad_rows(_batch_last_input(x, a), gt, gw, a, first(T, s_w))
    elif want_w:
        cols = _columns(x, a).reshape((G * ck, L * N))
        gw = cot(T, s_w, V).reshape((O, ck))
        beta = 0.0 if first(T, s_w) else 1.0
        for q in range(G):
            gemm(False, gt[q * og : (q + 1) * og], True, cols[q * ck : (q + 1) * ck],
                 gw[q * og : (q + 1) * og], beta)  # fmt: skip
    if want_x:
        w2 = value(T, s_w, V).reshape((O, ck))
        gcols = np.empty((G * ck, L * N), x.dtype)
        for q in range(G):
            gemm(True, w2[q * og : (q + 1) * og], False, gt[q * og : (q + 1) * og],
                 gcols[q * ck : (q + 1) * ck], 0.0)  # fmt: skip
        HW = a[A.H] * a[A.W]
        gxt = np.zeros((C, HW, N), x.dtype)
        _col2im(gcols.reshape((G * ck, L, N)), gxt, a)
        gxt2 = gxt.reshape((C * HW, N))
        gx = cot(T, s_x, V).reshape((N, C * HW))
        if first(T, s_x):
            for n in range(N):
                for q in range(C * HW):
                    gx[n, q] = gxt2[q, n]
        else:
            for n in range(N):
                for q in range(C * HW):
                    gx[n, q] += gxt2[q, n]


@functools.lru_cache(maxsize=256)
def _plan(xshape, wshape, geometry, groups, has_b):
    """A row's attributes (a tuple, and an array for the kernels) and its output shape."""
    s, p, dl, out = ([f] * (2 - len(v)) + list(v) for f, v in zip((1, 0, 1, 1), geometry))
    h, w = ([1] + list(xshape[2:]))[-2:]
    kh, kw = ([1] + list(wshape[2:]))[-2:]
    ia = CONV.pack(
        N=xshape[0], C=xshape[1], H=h, W=w, O=wshape[0], KH=kh, KW=kw, OH=out[0], OW=out[1],
        SH=s[0], SW=s[1], PH=p[0], PW=p[1], DH=dl[0], DW=dl[1], G=groups, has_b=int(has_b),
    )  # fmt: skip
    a = np.array(ia, np.int64)
    return ia, a, (xshape[0], wshape[0]) + tuple(geometry[3])


def fused(x, weight, bias, geometry, groups):
    """conv of x (N, C, *spatial), 1-D or 2-D, by the fused kernels, or None where the
    composite must run. `geometry`: (stride, leading padding, dilation, output size), one
    entry per spatial dim; the caller has checked the shapes."""
    d, wd = x._data, weight._data
    if type(x) not in TENSOR_TYPES or type(weight) not in TENSOR_TYPES or x.is_cuda:
        return None
    if (
        d.dtype not in (np.float32, np.float64)
        or wd.dtype != d.dtype
        or d.size == 0
        or wd.size == 0
    ):
        return None
    if bias is not None and (
        type(bias) not in TENSOR_TYPES
        or bias._data.dtype != d.dtype
        or bias._data.shape != wd.shape[:1]
    ):
        return None
    ia, a, yshape = _plan(d.shape, wd.shape, geometry, groups, bias is not None)
    y = np.empty(yshape, d.dtype)
    b = bias._data if bias is not None else d.reshape(-1)[:0]
    _forward(d.reshape(-1), wd.reshape(-1), b, y.reshape(-1), a)
    ins = (x, weight) if bias is None else (x, weight, bias)
    return emit(CONV, y, ins, iattrs=ia, saved=tuple(t._data for t in ins))


def _dvjp(row, g):
    """Composed of recorded ops, in 2-D (a 1-D row as H = KH = 1): gx is the transposed
    convolution of g cut to the input's extent, gw the product of g with the unfolded
    input per group, gb g summed over batch and positions."""
    from .conv_pool import conv_transpose2d
    from .spatial import pad, window_gather

    a = row.attrs()
    bs = row.bshape
    B = int(np.prod(bs, dtype=np.int64))
    N, C, H, W, O, KH, KW, OH, OW = a[:9]
    G = a.G
    L = OH * OW
    x = row.value(row.ins[0], 0).reshape(N, C, H, W)
    w = row.value(row.ins[1], 1).reshape(O, C // G, KH, KW)
    g4 = g.reshape(bs + (N, O, OH, OW))
    grads = [None] * (2 + a.has_b)
    if row.wants(0):
        full = conv_transpose2d(
            g4.reshape(B * N, O, OH, OW), w, None, (a.SH, a.SW), 0, 0, G, (a.DH, a.DW)
        )
        fh, fw = full.shape[2:]
        gx = pad(full, (-a.PW, W + a.PW - fw, -a.PH, H + a.PH - fh))
        grads[0] = gx.reshape(bs + row.shape(row.ins[0]))
    if row.wants(1):
        cols = window_gather(
            x, (KH, KW), (a.SH, a.SW), (a.PH, a.PW), (a.DH, a.DW), (OH, OW), "conv"
        )
        cols = cols.reshape(N * L, G, -1).transpose(0, 1)  # (G, N*L, C/G*KH*KW)
        g2 = g4.reshape(bs + (N, G, O // G, L)).movedim(-3, -4)  # (..., G, N, O/G, L)
        g2 = g2.movedim(-2, -1).reshape(bs + (G, N * L, O // G))
        gw = g2.transpose(-1, -2).matmul(cols)  # (..., G, O/G, C/G*KH*KW)
        grads[1] = gw.reshape(bs + row.shape(row.ins[1]))
    if a.has_b and row.wants(2):
        nb = len(bs)
        grads[2] = g4.sum((nb, nb + 2, nb + 3))
    return tuple(grads)


CONV = declare("conv", "ConvolutionBackward0", a=A, vjp=vjp_conv, replay=replay_conv, dvjp=_dvjp)
