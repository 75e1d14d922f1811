"""Differentiable VJP of the fused LSTM recurrence (`ops/recurrent.py`), composed of
recorded ops: the steps are run again from the row's saved inputs, then the backward
recurrence (the fused kernel's rule) is written with ops, so create_graph and forward
mode differentiate through it."""

from ...ops.joins import stack
from . import defvjp


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


@defvjp("lstm_seq")
def _lstm(row, gy):
    S, B, H, has_b, has_h, has_c, rev = (int(v) for v in row.iattrs[:7])
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
