"""Differentiable VJPs of reductions, activations and losses.

Each VJP below is its op's compiled VJP (ops/reduce.py, select.py, activations.py,
losses.py) written with nbgrad ops, so it is recorded under create_graph and
broadcasts over the cotangent's leading batch dims. What is piecewise constant in the
inputs (masks of ties, of active pieces, one-hot targets, signs) is a constant array;
what varies smoothly is recomputed with nbgrad ops from the values the row saved (or read
as the row's saved output, tied to its slot), so the VJP can be differentiated again.

Each op family decodes its row's attrs in one small helper (`_param`,
`_ce_row`, `_nll_row`, `_pw_row`) that reads them as the family's compiled VJP does; for
a GPU row (`row.cuda`) it reads the CUDA kernels' layout, and the rule is shared. Masks
are built with nbgrad ops on the saved (detached) values, so they stay on the row's
device.
"""

import numpy as np

from ..._array import contig
from ...functions import where
from ...ops import activations as act
from ...ops import losses as L
from ...ops import softmax as sm
from . import defvjp, wrap


def _const(row, arr):
    """A constant (no gradient) in the dtype of the row's first input, on its device."""
    return row.const(contig(arr, dtype=row.dtype(row.ins[0]).np))


def _mask(row, m):
    """A bool Tensor as 0/1 in the dtype of the row's first input."""
    return m.to(row.dtype(row.ins[0]))


def _sign(row, v):
    """sign(v) as 0/1/-1 (0 for NaN: the kernels' (v > 0) - (v < 0)), a constant."""
    return _mask(row, v > 0) - _mask(row, v < 0)


# -- activations with float parameters ----------------------------------------------------
def _param(row):
    """(kind, p0, p1, p2) as activations.vjp_param reads them."""
    return (int(row.iattrs[0]), *(float(v) for v in row.fattrs[:3]))


@defvjp("leaky_relu", "elu", "hardtanh", "softplus", "clamp")
def _activation(row, g):
    """gx = g * f'(x): a constant slope where f is piecewise linear, the smooth piece
    recomputed from x where it is not (elu's exponential, softplus's sigmoid)."""
    kind, p0, p1, p2 = _param(row)
    x = row.x()
    xd = x.detach()
    if kind == act.LEAKY:
        return (where(xd > 0, g, g * p0),)
    if kind == act.HARDTANH:
        return (g * _mask(row, (xd > p0) & (xd < p1)),)
    if kind == act.CLAMP:
        return (g * _mask(row, (xd >= p0) & (xd <= p1)),)
    if kind == act.ELU:  # p0 alpha, p1 scale, p2 input_scale
        pos = xd > 0
        neg = _mask(row, ~pos)  # x masked to the negative piece: exp cannot overflow
        curve = (x * neg * p2).exp() * (p0 * p1 * p2) * neg
        return (g * (curve + _mask(row, pos) * p1),)
    # softplus: p0 beta, p1 threshold; the identity above the threshold
    lin = xd * p0 > p1
    return (g * ((x * p0).sigmoid() * _mask(row, ~lin) + _mask(row, lin)),)


# -- class losses --------------------------------------------------------------------------
def _ce_row(row):
    """cross_entropy's attrs as losses.vjp_cross_entropy reads them (M = N * inner rows,
    the input indices of a probability target and of a weight that takes a gradient, or
    -1), and its saved target indices (M int64) and class weights (C, or None)."""
    M, C, inner, prob, red, ignore, has_w, _, it, iw = (int(v) for v in row.iattrs[:10])
    eps, scale = float(row.fattrs[0]), float(row.fattrs[1])
    t, w = row.saved[1], row.saved[2] if has_w else None
    return M // inner, C, inner, bool(prob), red, ignore, t, w, eps, scale, it, iw


def _nll_row(row):
    """nll_loss's attrs as losses.vjp_nll reads them (no smoothing, index targets)."""
    N, C, inner, red, ignore, has_w = (int(v) for v in row.iattrs[:6])
    t, w = row.saved[1], row.saved[2] if has_w else None
    return N, C, inner, red, ignore, t, w, float(row.fattrs[0])


def _class_coef(t, w, N, C, inner, ignore, eps):
    """a[n, c, d]: the coefficient of class c in sample (n, d)'s loss sum_c a (lse - x_c):
    its one-hot target smoothed by eps, times the class weight; 0 for ignored samples.
    Also the one-hot targets of the samples that count (not ignored)."""
    t2 = t.reshape(N, 1, inner)
    keep = t2 != ignore
    hot = (np.arange(C)[None, :, None] == t2) & keep
    wc = np.ones(C) if w is None else w
    return ((1.0 - eps) * hot + eps / C) * wc[None, :, None] * keep, hot


def _per_sample(row, g, red, scale, keep):
    """The loss's cotangent per sample (batch, N, 1, inner): g for reduction 'none', else
    g * scale; 0 for the samples that do not count (`keep` false: ignored), which the
    kernels skip (so a NaN scale does not reach them)."""
    sc = np.where(keep, 1.0 if red == L.NONE else scale, 0.0)
    gs = g.reshape(row.bshape + (keep.shape if red == L.NONE else (1, 1, 1)))
    return gs * _const(row, sc)


@defvjp("cross_entropy", "cross_entropy_ls", "cross_entropy_prob", "cross_entropy_prob_sum")
def _cross_entropy(row, g):
    """Sample loss sum_c a_c (lse - x_c): gx = s (softmax(x) A - a), A = sum_c a_c, and
    for probability targets (a = w ((1 - eps) t + eps / C)) gt = -s (1 - eps) w log_softmax(x)
    and gw = -s ((1 - eps) t + eps / C) log_softmax(x) summed over samples.
    log_softmax is recomputed from x (the saved logsumexps are constants to it)."""
    N, C, inner, prob, red, ignore, t, w, eps, scale, it, iw = _ce_row(row)
    xs = row.shape(row.ins[0])
    ls = sm.log_softmax(row.x().reshape(N, C, inner), 1)
    if iw >= 0:  # a weight that takes a gradient is an input (probability targets only)
        wc = row.x(iw).reshape(1, C, 1)
    else:
        wc = _const(row, np.ones((1, C, 1)) if w is None else w.reshape(1, C, 1))
    if prob:
        tt = row.x(it) if it >= 0 else _const(row, row.saved[6])
        # the smoothed target without the weight (what the weight's gradient multiplies)
        q = tt.reshape(N, C, inner) * (1.0 - eps) + eps / C
        a = q * wc
        keep = np.ones((N, 1, inner), bool)
    else:
        coef, hot = _class_coef(t, w, N, C, inner, ignore, eps)
        a = _const(row, coef)
        keep = hot.any(axis=1, keepdims=True)
    s = _per_sample(row, g, red, scale, keep)
    grads = [None] * len(row.ins)
    if row.wants(0):
        grads[0] = (s * (ls.exp() * a.sum(dim=1, keepdim=True) - a)).reshape(row.bshape + xs)
    if it >= 0 and row.wants(it):
        grads[it] = (s * ls * wc * -(1.0 - eps)).reshape(row.bshape + xs)
    if iw >= 0 and row.wants(iw):
        nb = len(row.bshape)
        gw = (s * ls * q * -1.0).sum(dim=(nb, nb + 2))
        grads[iw] = gw.reshape(row.bshape + (C,))
    return tuple(grads)


@defvjp("nll_loss")
def _nll(row, g):
    """gx = -s w[t] at each sample's target class, 0 elsewhere."""
    if row.cuda:
        return _nll_cuda(row, g)
    N, C, inner, red, ignore, t, w, scale = _nll_row(row)
    coef, hot = _class_coef(t, w, N, C, inner, ignore, 0.0)
    if red == L.NONE:
        gs = g.reshape(row.bshape + (N, 1, inner))
    else:  # the scale folded into the constant, only at the targets (a NaN scale too)
        gs = g.reshape(row.bshape + (1, 1, 1))
        with np.errstate(invalid="ignore"):
            coef = np.where(hot, coef * scale, 0.0)
    return ((gs * _const(row, -coef)).reshape(row.bshape + row.shape(row.ins[0])),)


def _nll_cuda(row, g):
    """The GPU's nll_loss row (cross_entropy is log_softmax then this row): rows of
    log-probabilities lp (M, C), the loss of row r -sum_c a[r, c] lp[r, c] with a =
    w_c ((1 - eps) target + eps / C) (one-hot class targets, 0 for ignored rows, or
    probabilities, which with the weight may be inputs), divided by the saved target
    weights' sum for a mean. gx = -s a, gt = -s (1 - eps) w lp, gw = -sum_r s q lp."""
    C, prob, has_w, ign, none, it, iw = (int(v) for v in row.iattrs[:7])
    eps = float(row.fattrs[0])
    _, tsave, wsave, den = row.saved
    M = row.numel(row.ins[0]) // C if C else 0
    bs, nb = row.bshape, row.nb
    if iw >= 0:
        wc = row.value(row.ins[iw], 2).reshape(1, C)
    else:
        wc = wrap(wsave).reshape(1, C) if has_w else 1.0
    keep = None
    if prob:
        tt = row.value(row.ins[it], 1) if it >= 0 else wrap(tsave).reshape(M, C)
        q = tt * (1.0 - eps) + eps / C
        a = q * wc
    else:
        t = wrap(tsave).reshape(M, 1)
        keep = t != ign
        hot = (row.const(np.arange(C).reshape(1, C)) == t) & keep
        a = (_mask(row, hot) * (1.0 - eps) + eps / C) * _mask(row, keep) * wc
    if none:
        s = g.reshape(bs + (M, 1))
    else:
        s = g.reshape(bs + (1, 1)) / wrap(den).reshape(1, 1)  # NaN for a zero sum
    grads = [None] * len(row.ins)
    if row.wants(0):
        gx = s * a * -1.0
        if keep is not None and not none:  # ignored rows: 0, also for a NaN scale
            gx = where(keep, gx, 0.0)
        grads[0] = gx.reshape(bs + (M, C))
    if it >= 0 and row.wants(it):
        lp = row.value(row.ins[0], 0)
        grads[it] = (s * lp * wc * -(1.0 - eps)).reshape(bs + (M, C))
    if iw >= 0 and row.wants(iw):
        lp = row.value(row.ins[0], 0)
        grads[iw] = (s * q * lp * -1.0).sum(dim=nb).reshape(bs + (C,))
    return tuple(grads)


# -- pointwise losses ----------------------------------------------------------------------
def _pw_row(row):
    """The pointwise losses' attrs as losses.vjp_pointwise reads them: kind, reduction,
    parameter (beta / delta), mean scale and the saved weight / pos_weight (or None)."""
    p, scale = float(row.fattrs[0]), float(row.fattrs[1])
    shape = row.shape(row.ins[0])
    if row.cuda:  # (kind, red, has weight, has pos_weight); only the given ones saved
        kind, red, hw, hp = (int(v) for v in row.iattrs[:4])
        extra = [wrap(a.reshape(shape)) for a in row.saved[2:]]
        w = extra.pop(0) if hw else None
        pw = extra.pop(0) if hp else None
        return kind, red, p, scale, w, pw
    kind, red, hw, hp = int(row.iattrs[0]), int(row.iattrs[1]), row.iattrs[4], row.iattrs[5]
    w = _const(row, row.saved[2].reshape(shape)) if hw else None
    pw = _const(row, row.saved[3].reshape(shape)) if hp else None
    return kind, red, p, scale, w, pw


@defvjp(
    "loss_MseLossBackward0",
    "loss_MeanBackward0",
    "loss_SmoothL1LossBackward0",
    "loss_HuberLossBackward0",
    "loss_BinaryCrossEntropyBackward0",
    "loss_BinaryCrossEntropyWithLogitsBackward0",
    "loss_l1_none",
    "loss_l1_sum",
)
def _pointwise_loss(row, g):
    """(ga, gb) = s * (d loss / d a, d loss / d b) per element, s = g (or g * scale for a
    mean): the derivatives of losses._pw_grad."""
    kind, red, p, scale, w, pw = _pw_row(row)
    shape = row.shape(row.ins[0])
    s = g if red == L.NONE else g.reshape(row.bshape + (1,) * len(shape))
    if red != L.NONE and scale != 1.0:
        s = s * scale
    da, db = _pw_grads(row, kind, p, w, pw)
    ga = s * da if row.wants(0) and da is not None else None
    gb = s * db if row.wants(1) and db is not None else None
    return ga, gb


def _pw_grads(row, kind, p, w, pw):
    """(d loss / d a, d loss / d b) as Tensors (None where that input takes no gradient);
    `w`, `pw`: constant Tensors or None."""
    a, b = row.x(0), row.x(1)
    if kind in (L.MSE, L.L1, L.SMOOTH_L1, L.HUBER):
        d = a - b
        dd = d.detach()
        sgn = dd.sign()
        if kind == L.MSE:
            v = d * 2.0
        elif kind == L.L1:
            v = sgn
        elif kind == L.SMOOTH_L1:  # d / beta inside |d| < beta, else sign(d)
            inside = dd.abs() < p
            v = d * (_mask(row, inside) / p) + sgn * _mask(row, ~inside)
        else:  # huber: d inside |d| <= delta, else delta sign(d)
            inside = dd.abs() <= p
            v = d * _mask(row, inside) + sgn * (_mask(row, ~inside) * p)
        return v, -v
    wt = 1.0 if w is None else w
    if kind == L.BCE:  # unclamped logs for the target, as the kernel (and torch)
        da = (a - b) / ((1.0 - a) * a).clamp(min=1e-12) * wt
        db = ((-a).log1p() - a.log()) * wt
        return da, db
    # with logits: w ((pw b + 1 - b) sigmoid(a) - pw b), w ((pw - 1) softplus(-a) - a)
    pwt = 1.0 if pw is None else pw
    da = ((b * pwt + 1.0 - b) * a.sigmoid() - b * pwt) * wt
    db = (act.softplus(-a) * (pwt - 1.0) - a) * wt
    return da, db
