"""An LSTM layer (one direction, all time steps) as one fused op.

Composed of recorded ops, each step of nn.LSTM records about fifteen rows (the hidden
projection, four gate slices, five activations, the cell and hidden updates), and
Python's cost per op dominated: nn.LSTM(16, 32) over 50 steps, batch 16, took 5x
torch's time. Here a layer is one forward call and one VJP call, from the input x
(S, B, I), the weights, the biases and the initial states. Every step's input projection
x W_ih^T is one product over the whole sequence, written where the step's gates go; a
step adds its hidden projection there (a product of B rows), then activates the gates in
place. The output is Y (PLANES, S, B, H): each step's hidden state, cell state, the tanh
of its cell state, then the activated gates i, f, g, o (Y[3:] seen as (S, B, 4H)).
`nn.LSTM` takes its outputs as views of Y[0] and Y[1].

The gates are in the output so the VJP reads everything the backward recurrence needs
from the row's own slots (a compiled replay makes them too) and runs in one pass: per
step, elementwise work and the product that carries the hidden state's gradient back;
then x's, W_ih's and W_hh's gradients are one product each over the whole sequence (its
steps stacked) and the biases' one column sum. In float32 the activations are
`vecloops.sigmoid_fast`/`tanh_fast` (<= 3 ulp; they were two thirds of the forward's
time), in float64 the elementwise kernels' own; the VJP reads tanh(c) from Y and computes
no transcendental. The steps run on the calling thread: on a 2-core machine, groups of
batch rows on Numba's threads sped the cells up at most 1.4x (concurrent small BLAS
products did not scale), and after the sequence's large products OpenBLAS's own threads
keep spinning for a while, so the two pools fought over the cores and a step took twice
as long. The op is
declared at the end with all its facets (`registry.declare`); its differentiable VJP
(create_graph, forward mode) runs the steps again with recorded ops, then writes the
backward recurrence (the fused kernel's rule) with ops.
"""

import numpy as np
from numba import njit

from .._optable import attrs, declare
from ..backends.cpu.blas import gemm, gemm_blas
from ..backends.cpu.rowio import cot, first, iattr, in_slot, out_slot, value, wants
from ..backends.cpu.vecloops import sigmoid_fast as sigmoid
from ..backends.cpu.vecloops import tanh_fast as tanh
from ..tensor import TENSOR_TYPES
from .joins import stack
from .recording import emit

# a row: S steps of B rows of I inputs and hidden size H; whether the biases (b_ih and
# b_hh), h0, c0 are inputs; direction
A = attrs("S", "B", "I", "H", "has_b", "has_h", "has_c", "reverse")
PLANES = 7  # Y (PLANES, S, B, H): h, c, tanh(c), then the gates as (S, B, 4H), xg's layout


@njit(cache=True, error_model="numpy", inline="always")
def _cell(a, b, cp, c, tc, h):
    """One batch row of one step: a (4H) = the input and hidden projections on entry, the
    activated gates i, f, g, o on exit (pre-activations a + b); c, tc, h = the new cell
    state, its tanh and the hidden state from cell cp. Loops run over slices from 0 (see
    docs/design.md: they vectorise); inlined, as a call per row cost more than the row's
    arithmetic."""
    H = c.size
    s, bs = a[: 2 * H], b[: 2 * H]
    for j in range(2 * H):
        s[j] = sigmoid(s[j] + bs[j])
    g, bq = a[2 * H : 3 * H], b[2 * H : 3 * H]
    for j in range(H):
        g[j] = tanh(g[j] + bq[j])
    o, bo = a[3 * H :], b[3 * H :]
    for j in range(H):
        o[j] = sigmoid(o[j] + bo[j])
    i, f = s[:H], s[H:]
    for j in range(H):
        cj = f[j] * cp[j] + i[j] * g[j]
        c[j] = cj
        t = tanh(cj)
        tc[j] = t
        h[j] = o[j] * t


@njit(cache=True, error_model="numpy")
def forward(x, w_ih, w_hh, b, h0, c0, has_h, rev, y):
    """The layer over x (S, B, I) into y (PLANES, S, B, H). b (4H) = b_ih + b_hh; h0 and
    c0 (B, H) are zeros where the row has none (PyTorch's zero state), and without h0
    the first step skips its hidden projection. rev runs the steps from last to first."""
    S, B, I = x.shape
    G = w_hh.shape[0]
    act = y[3:].reshape(S, B, G)
    gemm(False, x.reshape(S * B, I), True, w_ih, act.reshape(S * B, G), 0)  # every step's
    wt = np.ascontiguousarray(w_hh.T)  # (H, 4H): each step's product reads it row by row
    hs, cs, tcs = y[0], y[1], y[2]
    for step in range(S):
        t = S - 1 - step if rev else step
        p = t + 1 if rev else t - 1
        if step > 0 or has_h:  # a product of B rows, S times: the BLAS's (gemm_blas)
            gemm_blas(False, h0 if step == 0 else hs[p], False, wt, act[t], 1)
        cp = c0 if step == 0 else cs[p]
        for r in range(B):
            _cell(act[t, r], b, cp[r], cs[t, r], tcs[t, r], hs[t, r])


@njit(cache=True, error_model="numpy", inline="always")
def _cell_grad(a, cp, tcs, gyh, gyc, gyt, ga, dh, dc, da):
    """One batch row of one step backwards, from the saved gates a (4H), the previous cell
    cp and tanh(c): gy* and ga the output's cotangents (ga: the gates'), dh/dc the
    gradients flowing in from the next step (dc leaves as the previous cell's); da (4H) =
    the gradient of the gates' pre-activations."""
    H = tcs.size
    one = tcs.dtype.type(1)
    i, f, g, o = a[:H], a[H : 2 * H], a[2 * H : 3 * H], a[3 * H :]
    gi, gf, gg, go = ga[:H], ga[H : 2 * H], ga[2 * H : 3 * H], ga[3 * H :]
    di, df, dg, do = da[:H], da[H : 2 * H], da[2 * H : 3 * H], da[3 * H :]
    for j in range(H):
        tc = tcs[j]
        gh = dh[j] + gyh[j]
        gc = dc[j] + gyc[j] + (gh * o[j] + gyt[j]) * (one - tc * tc)
        di[j] = (gc * g[j] + gi[j]) * (i[j] * (one - i[j]))
        df[j] = (gc * cp[j] + gf[j]) * (f[j] * (one - f[j]))
        dg[j] = (gc * i[j] + gg[j]) * (one - g[j] * g[j])
        do[j] = (gh * tc + go[j]) * (o[j] * (one - o[j]))
        dc[j] = gc * f[j]


@njit(cache=True, error_model="numpy")
def backward(y, gy, w, c0, has_h, rev, da, dh, dc):
    """The backward recurrence in one pass over the saved y and its cotangent gy: da
    (S, B, 4H) = the gradient of every step's gate pre-activations; dh, dc (B, H) end as
    the initial states'."""
    S, B, H = y.shape[1:]
    dh[:, :] = 0
    dc[:, :] = 0
    cs, tcs = y[1], y[2]
    act, gact = y[3:].reshape(S, B, 4 * H), gy[3:].reshape(S, B, 4 * H)
    for step in range(S - 1, -1, -1):
        t = S - 1 - step if rev else step
        cp = c0 if step == 0 else cs[t + 1 if rev else t - 1]
        for r in range(B):
            _cell_grad(act[t, r], cp[r], tcs[t, r], gy[0, t, r], gy[1, t, r], gy[2, t, r],
                       gact[t, r], dh[r], dc[r], da[t, r])  # fmt: skip
        if step > 0 or has_h:
            gemm_blas(False, da[t], False, w, dh, 0)


@njit(cache=True, error_model="numpy")
def _colsum(a, out, init):
    """out (=|+=) the column sums of a (rows of out.size), summed row by row."""
    s = np.zeros(out.size, a.dtype)
    for q in range(a.shape[0]):
        s += a[q]
    if init:
        out[:] = s
    else:
        out += s


@njit(cache=True, error_model="numpy")
def _operands(T, k, V):
    """Row k's sizes, flags and input values: x, w_ih, w_hh, b = b_ih + b_hh, h0, c0
    (absent bias and states as zeros)."""
    S, B, I, H = iattr(T, k, A.S), iattr(T, k, A.B), iattr(T, k, A.I), iattr(T, k, A.H)
    has_b, has_h, has_c = iattr(T, k, A.has_b), iattr(T, k, A.has_h), iattr(T, k, A.has_c)
    x = value(T, in_slot(T, k, 0), V).reshape(S, B, I)
    w_ih = value(T, in_slot(T, k, 1), V).reshape(4 * H, I)
    w_hh = value(T, in_slot(T, k, 2), V).reshape(4 * H, H)
    zs = np.zeros((B, H), x.dtype)
    b = np.zeros(4 * H, x.dtype)
    if has_b:
        b[:] = value(T, in_slot(T, k, 3), V) + value(T, in_slot(T, k, 4), V)
    h0 = value(T, in_slot(T, k, 3 + 2 * has_b), V).reshape(B, H) if has_h else zs
    c0 = value(T, in_slot(T, k, 3 + 2 * has_b + has_h), V).reshape(B, H) if has_c else zs
    flags = (has_b, has_h, has_c, iattr(T, k, A.reverse) != 0)
    return (S, B, I, H) + flags + (x, w_ih, w_hh, b, h0, c0)


@njit(cache=True, error_model="numpy")
def vjp_lstm(T, k, V):
    S, B, I, H, has_b, has_h, has_c, rev, x, w_ih, w_hh, b, h0, c0 = _operands(T, k, V)
    G = 4 * H
    s_y, s_x, s_wi, s_wh = out_slot(T, k, 0), in_slot(T, k, 0), in_slot(T, k, 1), in_slot(T, k, 2)
    y = value(T, s_y, V).reshape(PLANES, S, B, H)
    gy = cot(T, s_y, V).reshape(PLANES, S, B, H)
    da = np.empty((S, B, G), x.dtype)
    dh = np.empty((B, H), x.dtype)
    dc = np.empty((B, H), x.dtype)
    backward(y, gy, w_hh, c0, has_h, rev, da, dh, dc)
    flat = da.reshape(S * B, G)
    if wants(T, s_x):
        gemm(False, flat, False, w_ih, cot(T, s_x, V).reshape(S * B, I), 0 if first(T, s_x) else 1)
    if wants(T, s_wi):  # every step's input projection at once
        gw = cot(T, s_wi, V).reshape(G, I)
        gemm(True, flat, False, x.reshape(S * B, I), gw, 0 if first(T, s_wi) else 1)
    if wants(T, s_wh):  # sum over steps of da_t^T h_{t-1}: one product over the sequence
        gw = cot(T, s_wh, V).reshape(G, H)
        beta = 0 if first(T, s_wh) else 1
        hs = y[0]
        if S > 1:
            d, h = (da[: S - 1], hs[1:]) if rev else (da[1:], hs[: S - 1])
            gemm(True, d.reshape(-1, G), False, h.reshape(-1, H), gw, beta)
            beta = 1
        if has_h:
            gemm(True, da[S - 1] if rev else da[0], False, h0, gw, beta)
        elif beta == 0:  # one step from a zero state: W_hh took no part
            gw[:, :] = 0
    if has_b:  # both biases' gradient: the column sums of da
        s_bi, s_bh = in_slot(T, k, 3), in_slot(T, k, 4)
        if wants(T, s_bi) or wants(T, s_bh):
            gb = np.zeros(G, x.dtype)
            _colsum(flat, gb, True)
            if wants(T, s_bi):
                _store(cot(T, s_bi, V), gb, first(T, s_bi))
            if wants(T, s_bh):
                _store(cot(T, s_bh, V), gb, first(T, s_bh))
    if has_h and wants(T, in_slot(T, k, 3 + 2 * has_b)):
        s_h = in_slot(T, k, 3 + 2 * has_b)
        _store(cot(T, s_h, V), dh.reshape(-1), first(T, s_h))
    if has_c and wants(T, in_slot(T, k, 3 + 2 * has_b + has_h)):
        s_c = in_slot(T, k, 3 + 2 * has_b + has_h)
        _store(cot(T, s_c, V), dc.reshape(-1), first(T, s_c))


@njit(cache=True, error_model="numpy")
def _store(dst, src, init):
    if init:
        dst[:] = src
    else:
        dst += src


def lstm(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse):
    """Y (PLANES, S, B, H) of one LSTM layer and direction over x (S, B, I): Y[0] and Y[1]
    are each step's hidden and cell states; or None where the composed steps must run
    (CUDA or batched tensors, mixed dtypes, one bias without the other)."""
    ts = [t for t in (x, w_ih, w_hh, b_ih, b_hh, h0, c0) if t is not None]
    dt = x._data.dtype
    if dt.kind != "f" or any(type(t) not in TENSOR_TYPES or t.is_cuda for t in ts):
        return None
    if any(t._data.dtype != dt for t in ts) or (b_ih is None) != (b_hh is None):
        return None
    S, B, I = x.shape
    G, H = w_hh.shape
    y = np.empty((PLANES, S, B, H), dt)
    if y.size:
        zs = np.zeros((B, H), dt)
        b = b_ih._data + b_hh._data if b_ih is not None else np.zeros(G, dt)
        h = h0._data if h0 is not None else zs
        c = c0._data if c0 is not None else zs
        forward(x._data, w_ih._data, w_hh._data, b, h, c, h0 is not None, bool(reverse), y)
    ia = LSTM.pack(
        S=S, B=B, I=I, H=H, has_b=int(b_ih is not None), has_h=int(h0 is not None),
        has_c=int(c0 is not None), reverse=int(reverse),
    )  # fmt: skip
    # the VJP reads y (its saved gates and states), the inputs and weights, the states
    return emit(LSTM, y, tuple(ts), iattrs=ia, saved=(*[t._data for t in ts], y))


@njit(cache=True, error_model="numpy")
def replay_lstm(T, k, V):
    """The eager kernel (nbgrad.compile)."""
    S, B, I, H, has_b, has_h, has_c, rev, x, w_ih, w_hh, b, h0, c0 = _operands(T, k, V)
    y = value(T, out_slot(T, k, 0), V).reshape(PLANES, S, B, H)
    if y.size:
        forward(x, w_ih, w_hh, b, h0, c0, has_h != 0, rev, y)


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
    S, B, I, H, has_b, has_h, has_c, rev = row.attrs()
    vals = [row.value(s, j) for j, s in enumerate(row.ins)]
    x, w_ih, w = vals[0].reshape(S, B, I), vals[1], vals[2]
    opt = iter(vals[3:])
    b = next(opt) + next(opt) if has_b else None
    h0, c0 = (next(opt) if on else None for on in (has_h, has_c))
    xg = x.matmul(w_ih.t())
    order = range(S - 1, -1, -1) if rev else range(S)
    gy = gy.reshape(row.bshape + (PLANES, S, B, H))
    gact = gy[..., 3:, :, :, :].reshape(row.bshape + (S, B, 4 * H))
    nb = row.nb
    da, gw, dh, dc = [None] * S, None, None, None
    for t, hp, cp, i, f, g, o, tc in reversed(_steps(xg, w, b, h0, c0, order)):
        gh = gy[..., 0, t, :, :] if dh is None else gy[..., 0, t, :, :] + dh
        gc = gy[..., 1, t, :, :] if dc is None else gy[..., 1, t, :, :] + dc
        gc = gc + (gh * o + gy[..., 2, t, :, :]) * (1 - tc * tc)
        gyi, gyf, gyg, gyo = gact[..., t, :, :].chunk(4, -1)
        df = (gc * cp + gyf) * (f * (1 - f)) if cp is not None else gyf * (f * (1 - f))
        di, dg = (gc * g + gyi) * (i * (1 - i)), (gc * i + gyg) * (1 - g * g)
        a = stack([di, df, dg, (gh * tc + gyo) * (o * (1 - o))], -2)
        a = a.reshape(a.shape[:-2] + (4 * H,))  # (..., B, 4H): gates i, f, g, o
        da[t], dc = a, gc * f
        if hp is not None:
            dh = a.matmul(w)
            gwt = a.transpose(-1, -2).matmul(hp)
            gw = gwt if gw is None else gw + gwt
    dall = stack(da, nb)  # (..., S, B, 4H)
    flat = dall.reshape(row.bshape + (S * B, 4 * H))
    grads = [flat.matmul(w_ih).reshape(row.bshape + (S, B, I))]
    grads.append(flat.transpose(-1, -2).matmul(x.reshape(S * B, I)))
    if gw is None:  # one step from a zero state: W_hh took no part
        gw = row.zeros(row.ins[2])
    grads.append(gw.reshape(row.bshape + row.shape(row.ins[2])))
    if has_b:
        gb = flat.sum(nb)
        grads += [gb, gb]
    if has_h:
        grads.append(dh.reshape(row.bshape + (B, H)))
    if has_c:
        grads.append(dc.reshape(row.bshape + (B, H)))
    return tuple(g if row.wants(j) else None for j, g in enumerate(grads))


LSTM = declare("lstm_seq", "LstmBackward0", a=A, vjp=vjp_lstm, replay=replay_lstm, dvjp=_dvjp)
