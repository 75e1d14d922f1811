"""Differentiable VJP of the fused layer_norm (`ops/normalization.py`), composed of recorded
ops: the row's statistics are recomputed from its saved input, so a gradient of the VJP
(create_graph, forward mode) flows through them too."""

from . import defvjp


@defvjp("layer_norm")
def _layer_norm(row, g):
    """xh = (x - mean) rstd per row of N; gh = g w. gx = rstd (gh - mean(gh) -
    xh mean(gh xh)), gw = sum over rows of g xh, gb = sum over rows of g."""
    M, N, has_w, has_b = (int(v) for v in row.iattrs[:4])
    eps = float(row.fattrs[0])
    x = row.value(row.ins[0], 0).reshape(M, N)
    g2 = g.reshape(row.bshape + (M, N))
    xc = x - x.mean(-1, keepdim=True)
    rstd = ((xc * xc).mean(-1, keepdim=True) + eps).rsqrt()
    xh = xc * rstd
    grads = [None] * (1 + has_w + has_b)
    if row.wants(0):
        gh = g2 * row.value(row.ins[1], 1).reshape(N) if has_w else g2
        gx = rstd * (gh - gh.mean(-1, keepdim=True) - xh * (gh * xh).mean(-1, keepdim=True))
        grads[0] = gx.reshape(row.bshape + row.shape(row.ins[0]))
    if has_w and row.wants(1):
        grads[1] = (g2 * xh).sum(row.nb).reshape(row.bshape + row.shape(row.ins[1]))
    if has_b and row.wants(1 + has_w):
        grads[-1] = g2.sum(row.nb).reshape(row.bshape + row.shape(row.ins[-1]))
    return tuple(grads)
