"""An LSTM layer's recurrence (one direction, all time steps) as one fused op.

Composed of recorded ops, each step of nn.LSTM records about fifteen rows (the hidden
projection, four gate slices, five activations, the cell and hidden updates), and
Python's cost per op dominated: nn.LSTM(16, 32) over 50 steps, batch 16, took 5x
torch's time. Here the recurrence is one forward call and one VJP call. Its input is the
input projection of every step, xg = x W_ih^T + b_ih (S, B, 4H), computed before by one
matmul; its output is Y (S, B, 2H), each step's hidden state then cell state, which
`nn.LSTM` slices into its outputs.

The VJP runs the forward again from its inputs (the gate activations and cells are
S*B*5H numbers, cheap to recompute beside the products), so a row reads nothing by
address and a compiled replay needs no more than its slots. Gradients of W_hh and the
bias are one product and one sum over all steps after the backward recurrence. The
activations are the elementwise kernels' own (`ops/scalar.py`), so the values are those
of the composed ops. The op is declared at the end with all its facets
(`registry.declare`); its differentiable VJP (create_graph, forward mode) runs the steps
again with recorded ops, then writes the backward recurrence (the fused kernel's rule)
with ops.
"""

import numpy as np
from numba import njit

from ..backends.cpu.blas import gemm
from ..backends.cpu.rowio import cot, first, iattr, in_slot, out_slot, value, wants
from ..tensor import TENSOR_TYPES
from .joins import stack
from .recording import emit
from .registry import attrs, declare
from .scalar import sigmoid, tanh

# a row: S steps of B rows of hidden size H; whether b_hh, h0, c0 are inputs; direction
A = attrs("S", "B", "H", "has_b", "has_h", "has_c", "reverse")


@njit(cache=True, error_model="numpy")
def _gates(x, a, b, cp, c, h, has_c):
    """One batch row of one step: a (4H) = the hidden projection on entry, the activated
    gates i, f, g, o on exit; c, h = the new cell and hidden states from cell cp. Loops
    run over slices from 0 (see docs/design.md: they vectorise)."""
    G = a.size
    H = G // 4
    if b.size:
        for j in range(G):
            a[j] = x[j] + (a[j] + b[j])
    else:
        for j in range(G):
            a[j] = x[j] + a[j]
    s, g, o = a[: 2 * H], a[2 * H : 3 * H], a[3 * H :]
    for j in range(2 * H):
        s[j] = sigmoid(s[j])
    for j in range(H):
        g[j] = tanh(g[j])
    for j in range(H):
        o[j] = sigmoid(o[j])
    i, f = s[:H], s[H:]
    if has_c:
        for j in range(H):
            c[j] = f[j] * cp[j] + i[j] * g[j]
    else:
        for j in range(H):
            c[j] = i[j] * g[j]
    for j in range(H):
        h[j] = o[j] * tanh(c[j])


@njit(cache=True, error_model="numpy")
def run(xg, w, b, h0, c0, rev, act, hs, cs):
    """The recurrence over xg (S, B, 4H): act[t] = the gates i, f, g, o after their
    activations, cs[t] and hs[t] the cell and hidden states of step t. b, h0, c0 may be
    empty (no bias, zero states); rev runs the steps from last to first."""
    S, B, G = xg.shape
    for step in range(S):
        t = S - 1 - step if rev else step
        a = act[t]
        p = t + 1 if rev else t - 1
        if step == 0 and h0.size == 0:
            a[:, :] = 0
        else:
            gemm(False, h0 if step == 0 else hs[p], True, w, a, 0)
        for r in range(B):
            if step == 0:
                _gates(
                    xg[t, r], a[r], b, c0[r] if c0.size else a[r], cs[t, r], hs[t, r], c0.size > 0
                )
            else:
                _gates(xg[t, r], a[r], b, cs[p, r], cs[t, r], hs[t, r], True)


@njit(cache=True, error_model="numpy")
def forward(xg, w, b, h0, c0, rev, y):
    """y (S, B, 2H) = each step's hidden state, then its cell state."""
    S, B, G = xg.shape
    H = G // 4
    act = np.empty((S, B, G), xg.dtype)
    hs = np.empty((S, B, H), xg.dtype)
    cs = np.empty((S, B, H), xg.dtype)
    run(xg, w, b, h0, c0, rev, act, hs, cs)
    y[:, :, :H] = hs
    y[:, :, H:] = cs


@njit(cache=True, error_model="numpy")
def _store(dst, src, init):
    if init:
        dst[:] = src
    else:
        dst += src


@njit(cache=True, error_model="numpy")
def _gate_grads(a, cp, c, gy, da, dh, dc):
    """One batch row of one step backwards: a = the activated gates, cp/c the cell before
    and after, gy the output's cotangent (h then c), dh/dc the gradients flowing in from
    the next step (dc leaves as the previous cell's); da = the gates' pre-activations'."""
    H = c.size
    i, f, g, o = a[:H], a[H : 2 * H], a[2 * H : 3 * H], a[3 * H :]
    di, df, dg, do = da[:H], da[H : 2 * H], da[2 * H : 3 * H], da[3 * H :]
    gyh, gyc = gy[:H], gy[H:]
    for j in range(H):
        tc = tanh(c[j])
        gh = dh[j] + gyh[j]
        gc = dc[j] + gyc[j] + gh * o[j] * (1 - tc * tc)
        di[j] = gc * g[j] * (i[j] * (1 - i[j]))
        df[j] = gc * cp[j] * (f[j] * (1 - f[j]))
        dg[j] = gc * i[j] * (1 - g[j] * g[j])
        do[j] = gh * tc * (o[j] * (1 - o[j]))
        dc[j] = gc * f[j]


@njit(cache=True, error_model="numpy")
def backward(xg, w, b, h0, c0, rev, gy, da, dh, dc, hp):
    """The backward recurrence: da (S, B, 4H) = the gradient of each step's gate
    pre-activations; dh, dc (B, H) end as the gradients of the initial states; hp
    (S, B, H) = the hidden state each step started from (for W_hh's gradient)."""
    S, B, G = xg.shape
    H = G // 4
    act = np.empty((S, B, G), xg.dtype)
    hs = np.empty((S, B, H), xg.dtype)
    cs = np.empty((S, B, H), xg.dtype)
    run(xg, w, b, h0, c0, rev, act, hs, cs)
    for step in range(S):
        t = S - 1 - step if rev else step
        if step > 0:
            hp[t] = hs[t + 1 if rev else t - 1]
        elif h0.size:
            hp[t] = h0
        else:
            hp[t] = 0
    dh[:, :] = 0
    dc[:, :] = 0
    zero = np.zeros(H, xg.dtype)
    for step in range(S - 1, -1, -1):
        t = S - 1 - step if rev else step
        p = t + 1 if rev else t - 1
        for r in range(B):
            if step > 0:
                cp = cs[p, r]
            elif c0.size:
                cp = c0[r]
            else:
                cp = zero
            _gate_grads(act[t, r], cp, cs[t, r], gy[t, r], da[t, r], dh[r], dc[r])
        if step > 0 or h0.size:
            gemm(False, da[t], False, w, dh, 0)


@njit(cache=True, error_model="numpy")
def vjp_lstm(T, k, V):
    s_y = out_slot(T, k, 0)
    S, B, H = iattr(T, k, A.S), iattr(T, k, A.B), iattr(T, k, A.H)
    has_b, has_h, has_c = iattr(T, k, A.has_b), iattr(T, k, A.has_h), iattr(T, k, A.has_c)
    rev = iattr(T, k, A.reverse)
    G = 4 * H
    s_x, s_w = in_slot(T, k, 0), in_slot(T, k, 1)
    s_b = in_slot(T, k, 2) if has_b else 0
    s_h = in_slot(T, k, 2 + has_b) if has_h else 0
    s_c = in_slot(T, k, 2 + has_b + has_h) if has_c else 0
    xg = value(T, s_x, V).reshape(S, B, G)
    w = value(T, s_w, V).reshape(G, H)
    b = value(T, s_b, V) if has_b else xg.reshape(-1)[:0]
    h0 = value(T, s_h, V).reshape(B, H) if has_h else w[:0]
    c0 = value(T, s_c, V).reshape(B, H) if has_c else w[:0]
    gy = cot(T, s_y, V).reshape(S, B, 2 * H)
    da = np.empty((S, B, G), xg.dtype)
    dh = np.empty((B, H), xg.dtype)
    dc = np.empty((B, H), xg.dtype)
    hp = np.empty((S, B, H), xg.dtype)
    backward(xg, w, b, h0, c0, rev != 0, gy, da, dh, dc, hp)
    flat = da.reshape(S * B, G)
    if wants(T, s_x):
        _store(cot(T, s_x, V), da.reshape(-1), first(T, s_x))
    if wants(T, s_w):  # sum over steps of da_t^T h_{t-1}: one product
        gw = cot(T, s_w, V).reshape(G, H)
        gemm(True, flat, False, hp.reshape(S * B, H), gw, 0 if first(T, s_w) else 1)
    if has_b and wants(T, s_b):
        gb = cot(T, s_b, V)
        init = first(T, s_b)
        s = np.zeros(G, xg.dtype)
        for q in range(S * B):
            s += flat[q]
        _store(gb, s, init)
    if has_h and wants(T, s_h):
        _store(cot(T, s_h, V), dh.reshape(-1), first(T, s_h))
    if has_c and wants(T, s_c):
        _store(cot(T, s_c, V), dc.reshape(-1), first(T, s_c))


def lstm(xg, w_hh, b_hh, h0, c0, reverse):
    """Y (S, B, 2H) of the recurrence over xg (S, B, 4H), or None where the composed
    steps must run (CUDA or batched tensors, mixed dtypes)."""
    ts = [t for t in (xg, w_hh, b_hh, h0, c0) if t is not None]
    dt = xg._data.dtype
    if dt.kind != "f" or any(type(t) not in TENSOR_TYPES or t.is_cuda for t in ts):
        return None
    if any(t._data.dtype != dt for t in ts):
        return None
    S, B, G = xg.shape
    H = G // 4
    arrs = [t._data for t in ts]
    b = b_hh._data if b_hh is not None else arrs[0].reshape(-1)[:0]
    w = arrs[1]
    h = h0._data if h0 is not None else w[:0]
    c = c0._data if c0 is not None else w[:0]
    y = np.empty((S, B, 2 * H), dt)
    if y.size:
        forward(arrs[0], w, b, h, c, bool(reverse), y)
    ia = LSTM.pack(
        S=S, B=B, H=H, has_b=int(b_hh is not None), has_h=int(h0 is not None),
        has_c=int(c0 is not None), reverse=int(reverse),
    )  # fmt: skip
    return emit(LSTM, y, tuple(ts), iattrs=ia, saved=tuple(arrs))


@njit(cache=True, error_model="numpy")
def replay_lstm(T, k, V):
    """The eager kernel (nbgrad.compile)."""
    S, B, H = iattr(T, k, A.S), iattr(T, k, A.B), iattr(T, k, A.H)
    has_b, has_h, has_c = iattr(T, k, A.has_b), iattr(T, k, A.has_h), iattr(T, k, A.has_c)
    xg = value(T, in_slot(T, k, 0), V).reshape(S, B, 4 * H)
    w = value(T, in_slot(T, k, 1), V).reshape(4 * H, H)
    b = value(T, in_slot(T, k, 2), V) if has_b else xg.reshape(-1)[:0]
    h0 = value(T, in_slot(T, k, 2 + has_b), V).reshape(B, H) if has_h else w[:0]
    c0 = value(T, in_slot(T, k, 2 + has_b + has_h), V).reshape(B, H) if has_c else w[:0]
    y = value(T, out_slot(T, k, 0), V).reshape(S, B, 2 * H)
    if y.size:
        forward(xg, w, b, h0, c0, iattr(T, k, A.reverse) != 0, y)


# -- differentiable VJP (create_graph, forward mode) ------------------------------------
def _steps(xg, w, b, h, c, order):
    """The forward again: per step (t, h and c before it, gates i, f, g, o, tanh(c))."""
    steps = []
    for t in order:
        pre = xg[t] if h is None else xg[t] + h.matmul(w.t())
        if b is not None:
            pre = pre + b
        i, f, g, o = pre.chunk(4, -1)
        i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
        cn = i * g if c is None else f * c + i * g
        tc = cn.tanh()
        steps.append((t, h, c, i, f, g, o, tc))
        h, c = o * tc, cn
    return steps


def _dvjp(row, gy):
    """The steps again, then the backward recurrence written with recorded ops."""
    S, B, H, has_b, has_h, has_c, rev = row.attrs()
    vals = [row.value(s, j) for j, s in enumerate(row.ins)]
    xg, w = vals[0].reshape(S, B, 4 * H), vals[1].reshape(4 * H, H)
    opt = iter(vals[2:])
    b, h0, c0 = (next(opt) if on else None for on in (has_b, has_h, has_c))
    order = range(S - 1, -1, -1) if rev else range(S)
    gy = gy.reshape(row.bshape + (S, B, 2 * H))
    nb = row.nb
    da, gw, dh, dc = [None] * S, None, None, None
    for t, hp, cp, i, f, g, o, tc in reversed(_steps(xg, w, b, h0, c0, order)):
        gh = gy[..., t, :, :H] if dh is None else gy[..., t, :, :H] + dh
        gc = gy[..., t, :, H:] if dc is None else gy[..., t, :, H:] + dc
        gc = gc + gh * o * (1 - tc * tc)
        df = gc * cp * (f * (1 - f)) if cp is not None else gc * 0.0
        a = stack([gc * g * (i * (1 - i)), df, gc * i * (1 - g * g), gh * tc * (o * (1 - o))], -2)
        a = a.reshape(a.shape[:-2] + (4 * H,))  # (..., B, 4H): gates i, f, g, o
        da[t], dc = a, gc * f
        if hp is not None:
            dh = a.matmul(w)
            gwt = a.transpose(-1, -2).matmul(hp)
            gw = gwt if gw is None else gw + gwt
    dall = stack(da, nb)  # (..., S, B, 4H)
    grads = [dall.reshape(row.bshape + row.shape(row.ins[0]))]
    if gw is None:  # one step from a zero state: W_hh took no part
        gw = row.zeros(row.ins[1])
    grads.append(gw.reshape(row.bshape + row.shape(row.ins[1])))
    if has_b:
        grads.append(dall.sum(nb).sum(nb).reshape(row.bshape + row.shape(row.ins[2])))
    if has_h:
        grads.append(dh.reshape(row.bshape + (B, H)))
    if has_c:
        grads.append(dc.reshape(row.bshape + (B, H)))
    return tuple(g if row.wants(j) else None for j, g in enumerate(grads))


LSTM = declare("lstm_seq", "LstmBackward0", a=A, vjp=vjp_lstm, replay=replay_lstm, dvjp=_dvjp)
