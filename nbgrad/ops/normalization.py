"""layer_norm: one fused forward kernel and one fused VJP kernel.

The input is seen as M rows of N = prod(normalized_shape) elements. Composed of recorded
ops, a layer norm makes about ten passes over its input each way (nn.LayerNorm(1000) on
(4096, 1000) float32 took 42 ms of CPU forward and backward); fused, each row is read
from memory once per pass and its statistics are computed while it sits in cache. The
VJP recomputes a row's mean and variance from the saved input instead of saving them,
so the row reads nothing by address but its own slots (a compiled replay needs no more).

CUDA tensors, batched tensors and mixed dtypes take the composite
(`nn/_fn_norm.py`); the differentiable VJP (create_graph, forward mode) is composed of
recorded ops in `autograd/derivatives/normalization.py`.
"""

import math

import numpy as np
from numba import njit, prange

from ..backends.cpu.rowio import cot, fattr, first, iattr, in_slot, out_slot, value, wants
from ..tensor import TENSOR_TYPES
from .recording import emit
from .registry import register
from .vecloops import rdot, rsum

_LAYER_NORM = register(
    "layer_norm", "NativeLayerNormBackward0", "nbgrad.ops.normalization:vjp_layer_norm"
)
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
    and gh = g * w; pw += g * xh, pb += g (each empty when not wanted)."""
    xh = np.empty(N, x.dtype)
    gh = np.empty(N if want_x else 0, x.dtype)
    nf = x.dtype.type(N)
    for r in range(r0, r1):
        gr = g[r * N : (r + 1) * N]
        _, var = _center(x[r * N : (r + 1) * N], xh)
        rs = _rstd(x, var, eps)
        for i in range(N):
            xh[i] *= rs
        for i in range(pw.size):
            pw[i] += gr[i] * xh[i]
        for i in range(pb.size):
            pb[i] += gr[i]
        if not want_x:
            continue
        if w.size:
            for i in range(N):
                gh[i] = gr[i] * w[i]
        else:
            for i in range(N):
                gh[i] = gr[i]
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
    M, N, has_w, has_b = iattr(T, k, 0), iattr(T, k, 1), iattr(T, k, 2), iattr(T, k, 3)
    eps = fattr(T, k, 0)
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
    flags = (int(weight is not None), int(bias is not None))
    saved = tuple(t._data for t in ins)
    return emit(_LAYER_NORM, out, ins, iattrs=(M, N) + flags, fattrs=(float(eps),), saved=saved)
