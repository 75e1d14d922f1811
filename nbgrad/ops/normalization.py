"""layer_norm: one fused forward kernel and one fused VJP kernel.

The input is seen as M rows of N = prod(normalized_shape) elements. Composed of recorded
ops, a layer norm makes about ten passes over its input each way (nn.LayerNorm(1000) on
(4096, 1000) float32 took 42 ms of CPU forward and backward); fused, each row is read
from memory once per pass and its statistics are computed while it sits in cache. The
VJP recomputes a row's mean and variance from the saved input instead of saving them,
so the row reads nothing by address but its own slots (a compiled replay needs no more).

CUDA tensors, batched tensors and mixed dtypes take the composite
(`nn/_fn_norm.py`). The op is declared at the end with all its facets
(`registry.declare`): its differentiable VJP (create_graph, forward mode) is composed of
recorded ops.
"""

import math

import numpy as np
from numba import njit, prange

from .._optable import attrs, declare
from ..backends.cpu.rowio import cot, fattr, first, iattr, in_slot, out_slot, value, wants
from ..backends.cpu.vecloops import rdot, rsum
from ..tensor import TENSOR_TYPES
from .recording import emit

# a row: M rows of N elements, whether the weight and the bias are inputs; and eps
A = attrs("M", "N", "has_w", "has_b")
F = attrs("eps")
PAR_MIN = 1 << 15  # elements; below this a kernel runs on one thread
BLOCKS = 64  # row blocks of the VJP: weight/bias gradients are summed per block, then
# the blocks in order, so the result does not depend on the thread count


@njit(cache=True, error_model="numpy")
def _center(x, xc):
    """xc = x - mean(x); returns (mean, biased variance), in x's dtype."""
    nf = x.dtype.type(x.size)
    mu = rsum(x) / nf
    for i in range(x.size):
        xc[i] = x[i] - mu
    return mu, rdot(xc, xc) / nf


@njit(cache=True, error_model="numpy")
def _rstd(x, var, eps):
    """1 / sqrt(var + eps) in x's dtype."""
    return x.dtype.type(1.0 / math.sqrt(var + eps))


@njit(cache=True, error_model="numpy")
def _fwd_row(x, y, w, b, eps):
    _, var = _center(x, y)
    r = _rstd(x, var, eps)
    if w.size and b.size:
        for i in range(y.size):
            y[i] = y[i] * r * w[i] + b[i]
    elif w.size:
        for i in range(y.size):
            y[i] = y[i] * r * w[i]
    elif b.size:
        for i in range(y.size):
            y[i] = y[i] * r + b[i]
    else:
        for i in range(y.size):
            y[i] *= r


@njit(cache=True, error_model="numpy")
def fwd(x, y, w, b, M, N, eps):
    """y = (x - mean) / sqrt(var + eps) * w + b over each row of N (w, b: N or empty)."""
    for r in range(M):
        _fwd_row(x[r * N : (r + 1) * N], y[r * N : (r + 1) * N], w, b, eps)


@njit(cache=True, parallel=True, error_model="numpy")
def fwd_par(x, y, w, b, M, N, eps):
    for r in prange(M):
        _fwd_row(x[r * N : (r + 1) * N], y[r * N : (r + 1) * N], w, b, eps)


@njit(cache=True, error_model="numpy")
def _grad_rows(x, g, w, gx, pw, pb, r0, r1, N, eps, want_x, init):
    """Rows r0..r1: gx = rstd (gh - mean(gh) - xh mean(gh xh)) with xh the normalized row
    and gh = g * w; pw += g * xh, pb += g (each empty when not wanted). A row takes six
    passes over N elements, all in cache: sum, center, square-sum, one loop for xh, gh and
    the parameter partials, the two means, gx."""
    xh = np.empty(N, x.dtype)
    gh = np.empty(N, x.dtype)
    nf = x.dtype.type(N)
    aff = w.size != 0
    for r in range(r0, r1):
        gr = g[r * N : (r + 1) * N]
        _, var = _center(x[r * N : (r + 1) * N], xh)
        rs = _rstd(x, var, eps)
        if pw.size and pb.size:
            for i in range(N):
                h = xh[i] * rs
                xh[i] = h
                pw[i] += gr[i] * h
                pb[i] += gr[i]
                gh[i] = gr[i] * w[i] if aff else gr[i]
        elif pw.size:
            for i in range(N):
                h = xh[i] * rs
                xh[i] = h
                pw[i] += gr[i] * h
                gh[i] = gr[i] * w[i] if aff else gr[i]
        else:
            for i in range(N):
                xh[i] *= rs
                if pb.size:
                    pb[i] += gr[i]
                gh[i] = gr[i] * w[i] if aff else gr[i]
        if not want_x:
            continue
        c1 = rsum(gh) / nf
        c2 = rdot(gh, xh) / nf
        gxr = gx[r * N : (r + 1) * N]
        if init:
            for i in range(N):
                gxr[i] = rs * (gh[i] - c1 - xh[i] * c2)
        else:
            for i in range(N):
                gxr[i] += rs * (gh[i] - c1 - xh[i] * c2)


@njit(cache=True, parallel=True, error_model="numpy")
def _grad_par(x, g, w, gx, pw, pb, M, N, eps, want_x, init):
    nb = pw.shape[0]
    per = (M + nb - 1) // nb
    for q in prange(nb):
        lo, hi = min(q * per, M), min((q + 1) * per, M)
        _grad_rows(x, g, w, gx, pw[q], pb[q], lo, hi, N, eps, want_x, init)


@njit(cache=True, error_model="numpy")
def _settle(p, T, s, V):
    """Slot s's gradient = or += the sum of the block partials p (in block order)."""
    gd = cot(T, s, V)
    init = first(T, s)
    for i in range(gd.size):
        v = p[0, i]
        for q in range(1, p.shape[0]):
            v += p[q, i]
        if init:
            gd[i] = v
        else:
            gd[i] += v


@njit(cache=True, error_model="numpy")
def vjp_layer_norm(T, k, V):
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    M, N = iattr(T, k, A.M), iattr(T, k, A.N)
    has_w, has_b = iattr(T, k, A.has_w), iattr(T, k, A.has_b)
    eps = fattr(T, k, F.eps)
    s_w = in_slot(T, k, 1) if has_w else 0
    s_b = in_slot(T, k, 1 + has_w) if has_b else 0
    want_x = wants(T, s_x)
    want_w = has_w != 0 and wants(T, s_w)
    want_b = has_b != 0 and wants(T, s_b)
    if not (want_x or want_w or want_b):
        return
    g = cot(T, s_y, V)
    x = value(T, s_x, V)
    w = value(T, s_w, V) if has_w else x[:0]
    if want_x:
        gx = cot(T, s_x, V)
        init = first(T, s_x)
    else:
        gx = x[:0]
        init = False
    nb = min(M, BLOCKS)
    pw = np.zeros((nb, N if want_w else 0), x.dtype)
    pb = np.zeros((nb, N if want_b else 0), x.dtype)
    if M * N >= PAR_MIN:
        _grad_par(x, g, w, gx, pw, pb, M, N, eps, want_x, init)
    else:
        per = (M + nb - 1) // nb
        for q in range(nb):
            lo, hi = min(q * per, M), min((q + 1) * per, M)
            _grad_rows(x, g, w, gx, pw[q], pb[q], lo, hi, N, eps, want_x, init)
    if want_w:
        _settle(pw, T, s_w, V)
    if want_b:
        _settle(pb, T, s_b, V)


def _plain(t, x, shape):
    """Whether optional affine parameter t can go to the fused kernel with x."""
    return t is None or (
        type(t) in TENSOR_TYPES and t._data.dtype == x._data.dtype and t._data.shape == shape
    )


def fused(x, shape, weight, bias, eps):
    """layer_norm of x over its trailing `shape` by the fused kernels, or None where the
    composite must run (CUDA, batched tensors, mixed dtypes, empty tensors)."""
    d = x._data
    if type(x) not in TENSOR_TYPES or x.is_cuda or d.dtype.kind != "f" or d.size == 0:
        return None
    if not (_plain(weight, x, shape) and _plain(bias, x, shape)):
        return None
    N = math.prod(shape)
    M = d.size // N
    w = weight._data.reshape(N) if weight is not None else d.reshape(-1)[:0]
    b = bias._data.reshape(N) if bias is not None else d.reshape(-1)[:0]
    out = np.empty_like(d)
    (fwd_par if d.size >= PAR_MIN and M > 1 else fwd)(
        d.reshape(-1), out.reshape(-1), w, b, M, N, float(eps)
    )
    ins = tuple(t for t in (x, weight, bias) if t is not None)
    ia = LAYER_NORM.pack(M=M, N=N, has_w=int(weight is not None), has_b=int(bias is not None))
    fa = LAYER_NORM.pack_f(eps=float(eps))
    saved = tuple(t._data for t in ins)
    return emit(LAYER_NORM, out, ins, iattrs=ia, fattrs=fa, saved=saved)


@njit(cache=True, error_model="numpy")
def replay_layer_norm(T, k, V):
    """The eager kernel, as eager picks it (nbgrad.compile)."""
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    x, y = value(T, s_x, V), value(T, s_y, V)
    M, N = iattr(T, k, A.M), iattr(T, k, A.N)
    has_w, has_b = iattr(T, k, A.has_w), iattr(T, k, A.has_b)
    w = value(T, in_slot(T, k, 1), V) if has_w else x[:0]
    b = value(T, in_slot(T, k, 1 + has_w), V) if has_b else x[:0]
    if x.size >= PAR_MIN and M > 1:
        fwd_par(x, y, w, b, M, N, fattr(T, k, F.eps))
    else:
        fwd(x, y, w, b, M, N, fattr(T, k, F.eps))


def _dvjp(row, g):
    """Composed of recorded ops; the row's statistics are recomputed from its saved input,
    so a gradient of the VJP flows through them too. xh = (x - mean) rstd per row of N,
    gh = g w: gx = rstd (gh - mean(gh) - xh mean(gh xh)), gw = sum over rows of g xh,
    gb = sum over rows of g."""
    a, eps = row.attrs(), row.float_attrs().eps
    M, N = a.M, a.N
    x = row.value(row.ins[0], 0).reshape(M, N)
    g2 = g.reshape(row.bshape + (M, N))
    xc = x - x.mean(-1, keepdim=True)
    rstd = ((xc * xc).mean(-1, keepdim=True) + eps).rsqrt()
    xh = xc * rstd
    grads = [None] * (1 + a.has_w + a.has_b)
    if row.wants(0):
        gh = g2 * row.value(row.ins[1], 1).reshape(N) if a.has_w else g2
        gx = rstd * (gh - gh.mean(-1, keepdim=True) - xh * (gh * xh).mean(-1, keepdim=True))
        grads[0] = gx.reshape(row.bshape + row.shape(row.ins[0]))
    if a.has_w and row.wants(1):
        grads[1] = (g2 * xh).sum(row.nb).reshape(row.bshape + row.shape(row.ins[1]))
    if a.has_b and row.wants(1 + a.has_w):
        grads[-1] = g2.sum(row.nb).reshape(row.bshape + row.shape(row.ins[-1]))
    return tuple(grads)


LAYER_NORM = declare(
    "layer_norm",
    "NativeLayerNormBackward0",
    a=A,
    f=F,
    vjp=vjp_layer_norm,
    replay=replay_layer_norm,
    dvjp=_dvjp,
)
