"""scaled_dot_product_attention as one fused op on the CPU.

Composed of recorded ops (two batched products, a scale, a softmax, the products' and the
softmax's VJPs), attention on (8, 4, 64, 32) float32 took 2x PyTorch's time: each op
walks all heads once, on one thread, and pays Python's cost. Here the forward is one call
that runs each (batch, head) whole while it sits in cache, p = softmax(q k^T scale + mask)
then p v, the heads spread over Numba's threads; the VJP is one call too. Per head the VJP
runs the forward's first half again (one product and the softmax) rather than saving p,
so a row reads nothing but its own slots and a compiled replay needs no more (the
layer_norm and LSTM rows do the same, docs/design.md "Fused layers"). Given p and the
cotangent g of the output:
    gv = p^T g,  dp = g v^T,  ds = p (dp - rowsum(dp p)) scale,  gq = ds k,  gk = ds^T q.

The op takes 4-D inputs with equal batch dims (where PyTorch runs its own fused kernel, and
names its node alike), no dropout, and a mask that is causal, boolean or a float constant
(an input of no gradient, (L, S) for every head or one per head). A row whose every key is
masked out gives zeros, as PyTorch's kernel does. Everything else (CUDA, batched tensors,
broadcast batch dims, dropout, a float mask that takes a gradient) runs the composite in
`nn/_fn_attention.py`. The differentiable VJP (create_graph, forward mode) writes the same
rule with recorded ops.
"""

import math

import numpy as np
from numba import njit, prange

from .._optable import attrs, declare
from ..backends.cpu.blas import gemm
from ..backends.cpu.rowio import cot, fattr, first, iattr, in_slot, out_slot, value, wants
from ..backends.cpu.vecloops import exp_flush, rdot, rmax, rsum
from ..tensor import TENSOR_TYPES, Tensor
from .recording import emit

# a row: BH heads of L queries and S keys, of widths E (q, k) and Ev (v); causal; the mask
# input: 0 none, 1 one (L, S) for every head, 2 one per head
A = attrs("BH", "L", "S", "E", "Ev", "causal", "mask")
F = attrs("scale")
PAR_MIN = 1 << 16  # multiply-adds of the forward below which it runs on one thread


@njit(cache=True, error_model="numpy")
def _probs(q, k, m, p, scale, causal):
    """p (L, S) = softmax(q k^T scale + m) by rows; causal: key j > query i masked out; m
    (L, S) or empty. A row with no key left is zeros.

    Three passes over the rows (maxima, exps, sums): a row's sum read right after its exps
    were stored waited on the stores (rows of 64 floats took twice as long)."""
    gemm(False, q, True, k, p, 0.0)
    L, S = p.shape
    sc = p.dtype.type(scale)
    # with no mask, max(x sc) is max(x) sc exactly for sc > 0, and x needs no pass of its
    # own; otherwise x sc + m is stored first
    f = sc if m.size == 0 and sc > 0 else p.dtype.type(1.0)
    mx = np.empty(L, p.dtype)
    for i in range(L):
        r = p[i][: min(i + 1, S) if causal else S]  # (p[i, :n]: typed non-contiguous)
        if m.size:
            mr = m[i][: r.size]
            for j in range(r.size):
                r[j] = r[j] * sc + mr[j]
        elif f != sc:
            for j in range(r.size):
                r[j] *= sc
        mx[i] = rmax(r) * f
    for i in range(L):
        r = p[i][: min(i + 1, S) if causal else S]
        c = mx[i]
        if c != -np.inf:
            for j in range(r.size):
                r[j] = exp_flush(r[j] * f - c)
    for i in range(L):
        n = min(i + 1, S) if causal else S
        r = p[i]
        if mx[i] == -np.inf:
            r[:] = 0
            continue
        c = r.dtype.type(1.0) / rsum(r[:n])
        for j in range(n):
            r[j] *= c
        r[n:] = 0


@njit(inline="always", cache=True, error_model="numpy")
def _views(q, k, v, m, o, BH, L, S, E, Ev, mask):
    """The flat arrays of a row as (heads, rows, width); m as (1 or BH, L, S), or
    (1, 0, 0) when there is no mask."""
    return (
        q.reshape((BH, L, E)),
        k.reshape((BH, S, E)),
        v.reshape((BH, S, Ev)),
        m.reshape((BH if mask == 2 else 1, L if mask else 0, S if mask else 0)),
        o.reshape((BH, L, Ev)),
    )


@njit(inline="always", cache=True, error_model="numpy")
def _at(a3, h):
    """Head h of a (BH, ...) array; its one entry when it has one (a shared mask, or an
    empty stand-in for a gradient not wanted)."""
    return a3[h if a3.shape[0] > 1 else 0]


@njit(cache=True, error_model="numpy")
def _head(h, q3, k3, v3, m3, o3, p, scale, causal):
    _probs(q3[h], k3[h], _at(m3, h), p, scale, causal)
    gemm(False, p, False, v3[h], o3[h], 0.0)


@njit(cache=True, error_model="numpy")
def fwd(q, k, v, m, o, BH, L, S, E, Ev, scale, causal, mask):
    """o = softmax(q k^T scale + m) v per head, on the calling thread (flat arrays)."""
    q3, k3, v3, m3, o3 = _views(q, k, v, m, o, BH, L, S, E, Ev, mask)
    p = np.empty((L, S), q.dtype)
    for h in range(BH):
        _head(h, q3, k3, v3, m3, o3, p, scale, causal)


@njit(cache=True, parallel=True, error_model="numpy")
def fwd_par(q, k, v, m, o, BH, L, S, E, Ev, scale, causal, mask):
    q3, k3, v3, m3, o3 = _views(q, k, v, m, o, BH, L, S, E, Ev, mask)
    for h in prange(BH):
        # (prange's index is unsigned: `h if c else 0` inside would be a float)
        _head(np.int64(h), q3, k3, v3, m3, o3, np.empty((L, S), q.dtype), scale, causal)


@njit(cache=True, error_model="numpy")
def _parallel(BH, L, S, E, Ev):
    return BH > 1 and BH * L * S * (E + Ev) >= PAR_MIN


@njit(cache=True, error_model="numpy")
def _grad_head(h, q3, k3, v3, m3, g3, gq3, gk3, gv3, p, dp, scale, causal, bq, bk, bv):
    """Head h's gradients into gq3, gk3, gv3 (each (1, 0, 0) when not wanted), stored
    (beta 0) or added (beta 1), in the order q, k, v (an input passed twice gets its betas
    from that order)."""
    q, k, g = q3[h], k3[h], g3[h]
    _probs(q, k, _at(m3, h), p, scale, causal)
    if gq3.size or gk3.size:
        gemm(False, g, True, v3[h], dp, 0.0)
        sc = p.dtype.type(scale)
        for i in range(p.shape[0]):
            pr, dr = p[i], dp[i]
            c = rdot(dr, pr)
            for j in range(dr.size):
                dr[j] = pr[j] * (dr[j] - c) * sc
        if gq3.size:
            gemm(False, dp, False, k, gq3[h], bq)
        if gk3.size:
            gemm(True, dp, False, q, gk3[h], bk)
    if gv3.size:
        gemm(True, p, False, g, gv3[h], bv)


@njit(cache=True, parallel=True, error_model="numpy")
def _grad_par(q3, k3, v3, m3, g3, gq3, gk3, gv3, scale, causal, bq, bk, bv):
    L, S = q3.shape[1], k3.shape[1]
    for h in prange(q3.shape[0]):
        p, dp = np.empty((L, S), q3.dtype), np.empty((L, S), q3.dtype)
        _grad_head(np.int64(h), q3, k3, v3, m3, g3, gq3, gk3, gv3, p, dp, scale, causal, bq, bk, bv)


@njit(cache=True, error_model="numpy")
def _grad_seq(q3, k3, v3, m3, g3, gq3, gk3, gv3, scale, causal, bq, bk, bv):
    L, S = q3.shape[1], k3.shape[1]
    p, dp = np.empty((L, S), q3.dtype), np.empty((L, S), q3.dtype)
    for h in range(q3.shape[0]):
        _grad_head(h, q3, k3, v3, m3, g3, gq3, gk3, gv3, p, dp, scale, causal, bq, bk, bv)


@njit(inline="always", cache=True, error_model="numpy")
def _grad_buf(T, s, V, want, none, BH, n, w):
    """Slot s's gradient as (BH, n, w) and its gemm beta (0.0: store, 1.0: add), or
    `none` when s takes none. Called in input order (q, k, v)."""
    if not want:
        return none, 0.0
    buf = cot(T, s, V).reshape((BH, n, w))
    return buf, 0.0 if first(T, s) else 1.0


@njit(cache=True, error_model="numpy")
def vjp_attention(T, k, V):
    s_q, s_k, s_v = in_slot(T, k, 0), in_slot(T, k, 1), in_slot(T, k, 2)
    wq, wk, wv = wants(T, s_q), wants(T, s_k), wants(T, s_v)
    if not (wq or wk or wv):
        return
    BH, L, S = iattr(T, k, A.BH), iattr(T, k, A.L), iattr(T, k, A.S)
    E, Ev, mask = iattr(T, k, A.E), iattr(T, k, A.Ev), iattr(T, k, A.mask)
    g = cot(T, out_slot(T, k, 0), V)
    m = value(T, in_slot(T, k, 3), V) if mask else g[:0]
    q3, k3, v3, m3, g3 = _views(
        value(T, s_q, V), value(T, s_k, V), value(T, s_v, V), m, g, BH, L, S, E, Ev, mask
    )
    none = g[:0].reshape((1, 0, 0))
    gq3, bq = _grad_buf(T, s_q, V, wq, none, BH, L, E)
    gk3, bk = _grad_buf(T, s_k, V, wk, none, BH, S, E)
    gv3, bv = _grad_buf(T, s_v, V, wv, none, BH, S, Ev)
    causal, scale = iattr(T, k, A.causal) != 0, fattr(T, k, F.scale)
    if _parallel(BH, L, S, E, Ev):
        _grad_par(q3, k3, v3, m3, g3, gq3, gk3, gv3, scale, causal, bq, bk, bv)
    else:
        _grad_seq(q3, k3, v3, m3, g3, gq3, gk3, gv3, scale, causal, bq, bk, bv)


@njit(cache=True, error_model="numpy")
def replay_attention(T, k, V):
    """The eager kernel, as eager picks it (nbgrad.compile)."""
    BH, L, S = iattr(T, k, A.BH), iattr(T, k, A.L), iattr(T, k, A.S)
    E, Ev, mask = iattr(T, k, A.E), iattr(T, k, A.Ev), iattr(T, k, A.mask)
    q, kk, v = (
        value(T, in_slot(T, k, 0), V),
        value(T, in_slot(T, k, 1), V),
        value(T, in_slot(T, k, 2), V),
    )
    m = value(T, in_slot(T, k, 3), V) if mask else q[:0]
    o = value(T, out_slot(T, k, 0), V)
    causal, scale = iattr(T, k, A.causal) != 0, fattr(T, k, F.scale)
    if _parallel(BH, L, S, E, Ev):
        fwd_par(q, kk, v, m, o, BH, L, S, E, Ev, scale, causal, mask)
    else:
        fwd(q, kk, v, m, o, BH, L, S, E, Ev, scale, causal, mask)


# -- eager entry --------------------------------------------------------------------------
def _plain(t, dt):
    d = t._data
    return type(t) in TENSOR_TYPES and d.dtype == dt and d.ndim == 4 and d.flags.c_contiguous


def _mask(mask, dt, B, H, L, S):
    """The mask as the op's input: kind 1 (one (L, S) for every head) or 2 (one per
    head), and a Tensor holding it additively in dtype dt, contiguous (the mask itself
    where it already is, so a compiled program sees its argument); None where the fused op
    does not take it."""
    if type(mask) not in TENSOR_TYPES or mask.is_cuda or mask.requires_grad:
        return None
    md = mask._data
    if md.ndim < 2 or (md.dtype != dt and md.dtype != np.bool_):
        return None
    try:
        full = np.broadcast_shapes(md.shape, (B, H, L, S))
    except ValueError:
        return None
    if full != (B, H, L, S):
        return None
    kind = 1 if all(n == 1 for n in md.shape[:-2]) else 2
    shape = (L, S) if kind == 1 else (B, H, L, S)
    if md.dtype == dt and md.flags.c_contiguous and md.shape[-2:] == (L, S):
        if md.size == math.prod(shape):
            return kind, mask
    md = np.broadcast_to(md.reshape(md.shape[-2:]) if kind == 1 else md, shape)
    if md.dtype == np.bool_:
        md = np.where(md, dt.type(0), dt.type(-np.inf))
    return kind, Tensor._make(np.ascontiguousarray(md), -1, False)


def fused(q, k, v, mask, causal, scale, dropout_p):
    """The fused op's result, or None where the composite must run (see the module's
    docstring)."""
    dt = q._data.dtype
    if dt.kind != "f" or dropout_p > 0.0 or q.is_cuda:
        return None
    if not (_plain(q, dt) and _plain(k, dt) and _plain(v, dt)):
        return None
    B, H, L, E = q._data.shape
    S, Ev = v._data.shape[2], v._data.shape[3]
    if k._data.shape != (B, H, S, E) or v._data.shape[:2] != (B, H) or 0 in (B, H, L, S, E):
        return None
    kind, m = 0, None
    if mask is not None:
        found = _mask(mask, dt, B, H, L, S)
        if found is None:
            return None
        kind, m = found
    BH = B * H
    o = np.empty((B, H, L, Ev), dt)
    md = m._data.reshape(-1) if kind else q._data.reshape(-1)[:0]
    args = (BH, L, S, E, Ev, float(scale), bool(causal), kind)
    (fwd_par if _parallel(BH, L, S, E, Ev) else fwd)(
        q._data.reshape(-1), k._data.reshape(-1), v._data.reshape(-1), md, o.reshape(-1), *args
    )
    ins = (q, k, v)
    if kind:
        ins += (m,)
    ia = ATTENTION.pack(BH=BH, L=L, S=S, E=E, Ev=Ev, causal=int(causal), mask=kind)
    fa = ATTENTION.pack_f(scale=float(scale))
    return emit(ATTENTION, o, ins, iattrs=ia, fattrs=fa, saved=tuple(t._data for t in ins))


# -- differentiable VJP (create_graph, forward mode) --------------------------------------
def _dvjp(row, g):
    """The rule of the module's docstring, written with recorded ops."""
    from .softmax import softmax

    a, scale = row.attrs(), row.float_attrs().scale
    q, k, v = (row.value(s, j) for j, s in enumerate(row.ins[:3]))
    s = q.matmul(k.transpose(-2, -1)) * scale
    dead = None
    if a.mask:
        m = row.value(row.ins[3], 3)
        s = s + m
        rows = np.isneginf(m.detach().numpy()).all(-1, keepdims=True)
        if rows.any():  # rows with no key left: zeros, as the forward
            dead = row.const(rows)
            s = s.masked_fill(dead, 0.0)
    if a.causal:
        s = s.masked_fill(row.const(~np.tril(np.ones((a.L, a.S), bool))), -np.inf)
    p = softmax(s, -1)
    if dead is not None:
        p = p.masked_fill(dead, 0.0)
    dp = g.matmul(v.transpose(-2, -1))
    ds = p * (dp - (dp * p).sum(-1, keepdim=True)) * scale
    grads = (ds.matmul(k), ds.transpose(-2, -1).matmul(q), p.transpose(-2, -1).matmul(g))
    out = tuple(gr if row.wants(j) else None for j, gr in enumerate(grads))
    return out + (None,) if a.mask else out


ATTENTION = declare(
    "sdpa",
    "ScaledDotProductFlashAttentionForCpuBackward0",
    a=A,
    f=F,
    vjp=vjp_attention,
    replay=replay_attention,
    dvjp=_dvjp,
)
