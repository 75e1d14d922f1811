"""Differentiable VJPs of reductions, activations, softmax and losses.

Each VJP below is its op's compiled VJP (ops/reduce.py, select.py, activations.py,
softmax.py, losses.py) written with nbgrad ops, so it is recorded under create_graph and
broadcasts over the cotangent's leading batch dims. What is piecewise constant in the
inputs (masks of ties, of active pieces, one-hot targets, signs) is a constant array;
what varies smoothly is recomputed with nbgrad ops from the values the row saved (or read
as the row's saved output, tied to its slot), so the VJP can be differentiated again.

Each op family decodes its row's attrs in one small helper (`_reduced`, `_param`,
`_ce_row`, `_nll_row`, `_pw_row`) that reads them as the family's compiled VJP does.
"""

import math

import numpy as np

from ..._array import contig
from ...ops import activations as act
from ...ops import joins, select
from ...ops import losses as L
from ...ops import softmax as sm
from ...tensor import Tensor
from . import defvjp


def _const(row, arr):
    """A constant (no gradient) in the dtype of the row's first input."""
    return Tensor._make(contig(arr, dtype=row.dtype(row.ins[0]).np), -1, False)


def _saved_x(row):
    """The saved input as a NumPy array (for masks and other piecewise constants)."""
    return row.x()._data


# -- reductions over a dim mask ---------------------------------------------------------
def _reduced(row, off=0):
    """(input shape, output shape with reduced dims kept as 1, reduced dims as negative
    indices, valid with or without batch dims) from the mask at int attr `off`."""
    xs = row.shape(row.ins[0])
    mask = row.iattrs[off : off + len(xs)]
    keep = tuple(1 if m else n for m, n in zip(mask, xs))
    dims = tuple(d - len(xs) for d, m in enumerate(mask) if m)
    return xs, keep, dims


def _keep_g(row, g, keep):
    return g.reshape(row.bshape + keep)


@defvjp("norm", "pnorm")
def _vector_norm(row, g):
    """d||x||_p = sign(x) |x|^(p-1) / y^(p-1) (x / y for p = 2; 0 where y = 0); p = 0
    gives 0; p = +-inf shares g among the ties |x| == y."""
    xs, keep, dims = _reduced(row)
    p = 2.0 if row.name == "norm" else float(row.fattrs[0])
    if p == 0:
        return (row.zeros(row.ins[0]),)
    gk = _keep_g(row, g, keep)
    xd = _saved_x(row)
    sign = np.sign(np.nan_to_num(xd))  # 0 for NaN, as the kernel's (x > 0) - (x < 0)
    if math.isinf(p):
        share = _ties(np.abs(xd), row.y()._data.reshape(keep), dims, nan=False)
        return (gk * _const(row, sign * share),)
    if p == 1:
        return (gk * _const(row, sign),)
    x, y = row.x(), row.y().reshape(keep)
    y = y + _const(row, y._data == 0)  # y = 0 only where x = 0: divide by 1 instead
    if p == 2:
        return (gk * x / y,)
    return (gk * _const(row, sign) * x.abs() ** (p - 1) / y ** (p - 1),)


def _ties(x, y, dims, nan=True):
    """1 / (number of ties) where x == y (and NaN == NaN, for max/min), else 0: how
    max/min and the inf-norms share the gradient."""
    hit = x == y
    if nan:
        hit |= np.isnan(x) & np.isnan(y)
    cnt = hit.sum(axis=dims, keepdims=True)
    return np.divide(hit, cnt, out=np.zeros(hit.shape), where=cnt > 0)  # none: a NaN norm


@defvjp("amax_AmaxBackward0", "amax_AminBackward0", "amax_MaxBackward1", "amax_MinBackward1")
def _amax(row, g):
    xs, keep, dims = _reduced(row)
    y = row.y()._data.reshape(keep)
    return (_keep_g(row, g, keep) * _const(row, _ties(_saved_x(row), y, dims)),)


@defvjp("var", "std")
def _var(row, g):
    """var: gx = g * 2 (x - mean) / den; std: gx = g * (x - mean) / (den * std); the mean
    is recomputed from x so that its dependence on x is differentiated too."""
    xs, keep, dims = _reduced(row, off=1)
    is_std, den = bool(row.iattrs[0]), float(row.fattrs[0])
    x = row.x()
    dev = x - x.mean(dim=dims, keepdim=True) if dims else x - x
    gk = _keep_g(row, g, keep)
    if is_std:
        return (gk * dev / (row.y().reshape(keep) * den),)
    return (gk * dev * 2.0 / den,)


@defvjp("logsumexp")
def _logsumexp(row, g):
    """gx = g * exp(x - y) (0 where y = -inf)."""
    xs, keep, dims = _reduced(row)
    y = row.y().reshape(keep)
    ninf = y._data == -np.inf
    if ninf.any():  # an all -inf group: exp(-inf - 0) = 0
        y = select.where(Tensor._make(ninf, -1, False), 0.0, y)
    return (_keep_g(row, g, keep) * (row.x() - y).exp(),)


def _outer_n_inner(row):
    """prod/cumsum's (outer, n, inner) layout around the reduced dim."""
    return tuple(int(v) for v in row.iattrs[:3])


@defvjp("prod", "prod_dim")
def _prod(row, g):
    """gx = g * (product of the other elements of the group): the exclusive prefix times
    the exclusive suffix product, which is exact with zeros (no division)."""
    outer, n, inner = _outer_n_inner(row)
    xs = row.shape(row.ins[0])
    x3 = row.x().reshape(outer, n, inner)
    others = _exclusive_prod(x3, False) * _exclusive_prod(x3, True)
    gk = g.reshape(row.bshape + (outer, 1, inner))
    return ((gk * others).reshape(row.bshape + xs),)


def _exclusive_prod(x3, reverse):
    """Products of the elements before (after, if reverse) each one along dim 1, by
    log2(n) doubling steps of shifted products (Hillis-Steele)."""
    outer, n, inner = x3.shape
    p = _shift(x3, 1, reverse)
    s = 1
    while s < n:
        p = p * _shift(p, s, reverse)
        s *= 2
    return p


def _shift(t, s, reverse):
    """t moved s places along dim 1 (towards the end, or the start if reverse), ones in."""
    outer, n, inner = t.shape
    s = min(s, n)
    ones = Tensor._make(np.ones((outer, s, inner), t._data.dtype), -1, False)
    if s == n:
        return ones
    return joins.cat([t[:, s:], ones] if reverse else [ones, t[:, : n - s]], dim=1)


@defvjp("cumsum")
def _cumsum(row, g):
    """gx = the reverse cumulative sum of g along the dim."""
    outer, n, inner = _outer_n_inner(row)
    d = row.nb + 1
    g3 = g.reshape(row.bshape + (outer, n, inner))
    gx = g3.flip(d).cumsum(d).flip(d)
    return (gx.reshape(row.bshape + row.shape(row.ins[0])),)


# -- activations with float parameters ----------------------------------------------------
def _param(row):
    """(kind, p0, p1, p2) as activations.vjp_param reads them."""
    return (int(row.iattrs[0]), *(float(v) for v in row.fattrs[:3]))


@defvjp("leaky_relu", "elu", "hardtanh", "softplus", "clamp")
def _activation(row, g):
    """gx = g * f'(x): a constant slope where f is piecewise linear, the smooth piece
    recomputed from x where it is not (elu's exponential, softplus's sigmoid)."""
    kind, p0, p1, p2 = _param(row)
    xd = _saved_x(row)
    if kind == act.LEAKY:
        return (g * _const(row, np.where(xd > 0, 1.0, p0)),)
    if kind == act.HARDTANH:
        return (g * _const(row, (xd > p0) & (xd < p1)),)
    if kind == act.CLAMP:
        return (g * _const(row, (xd >= p0) & (xd <= p1)),)
    x = row.x()
    if kind == act.ELU:  # p0 alpha, p1 scale, p2 input_scale
        pos = xd > 0
        neg = _const(row, ~pos)  # x masked to the negative piece: exp cannot overflow
        curve = (x * neg * p2).exp() * (p0 * p1 * p2) * neg
        return (g * (curve + _const(row, np.where(pos, p1, 0.0))),)
    # softplus: p0 beta, p1 threshold; the identity above the threshold
    lin = xd * p0 > p1
    return (g * ((x * p0).sigmoid() * _const(row, ~lin) + _const(row, lin)),)


# -- softmax -------------------------------------------------------------------------------
@defvjp("softmax", "log_softmax")
def _softmax(row, g):
    """softmax: gx = y (g - sum(g y)); log_softmax: gx = g - exp(y) sum(g), along the dim."""
    outer, n, inner, log = (int(v) for v in row.iattrs[:4])
    g3 = g.reshape(row.bshape + (outer, n, inner))
    y3 = row.y().reshape(outer, n, inner)
    if log:
        gx = g3 - y3.exp() * g3.sum(dim=-2, keepdim=True)
    else:
        gx = y3 * (g3 - (g3 * y3).sum(dim=-2, keepdim=True))
    return (gx.reshape(row.bshape + row.shape(row.ins[0])),)


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
    N, C, inner, red, ignore, t, w, scale = _nll_row(row)
    coef, hot = _class_coef(t, w, N, C, inner, ignore, 0.0)
    if red == L.NONE:
        gs = g.reshape(row.bshape + (N, 1, inner))
    else:  # the scale folded into the constant, only at the targets (a NaN scale too)
        gs = g.reshape(row.bshape + (1, 1, 1))
        with np.errstate(invalid="ignore"):
            coef = np.where(hot, coef * scale, 0.0)
    return ((gs * _const(row, -coef)).reshape(row.bshape + row.shape(row.ins[0])),)


# -- pointwise losses ----------------------------------------------------------------------
def _pw_row(row):
    """The pointwise losses' attrs as losses.vjp_pointwise reads them: kind, reduction,
    parameter (beta / delta), mean scale and the saved weight / pos_weight (or None)."""
    kind, red, hw, hp = int(row.iattrs[0]), int(row.iattrs[1]), row.iattrs[4], row.iattrs[5]
    p, scale = float(row.fattrs[0]), float(row.fattrs[1])
    shape = row.shape(row.ins[0])
    w = row.saved[2].reshape(shape) if hw else None
    pw = row.saved[3].reshape(shape) if hp else None
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
    """(d loss / d a, d loss / d b) as Tensors (None where that input takes no gradient)."""
    a, b = row.x(0), row.x(1)
    if kind in (L.MSE, L.L1, L.SMOOTH_L1, L.HUBER):
        d = a - b
        dd = d._data
        sgn = _const(row, np.sign(dd))
        if kind == L.MSE:
            v = d * 2.0
        elif kind == L.L1:
            v = sgn
        elif kind == L.SMOOTH_L1:  # d / beta inside |d| < beta, else sign(d)
            inside = np.abs(dd) < p
            v = d * _const(row, inside / p) + sgn * _const(row, ~inside)
        else:  # huber: d inside |d| <= delta, else delta sign(d)
            inside = np.abs(dd) <= p
            v = d * _const(row, inside) + sgn * _const(row, np.where(inside, 0.0, p))
        return v, -v
    wt = 1.0 if w is None else _const(row, w)
    if kind == L.BCE:  # unclamped logs for the target, as the kernel (and torch)
        da = (a - b) / ((1.0 - a) * a).clamp(min=1e-12) * wt
        db = ((-a).log1p() - a.log()) * wt
        return da, db
    # with logits: w ((pw b + 1 - b) sigmoid(a) - pw b), w ((pw - 1) softplus(-a) - a)
    pwt = 1.0 if pw is None else _const(row, pw)
    da = ((b * pwt + 1.0 - b) * a.sigmoid() - b * pwt) * wt
    db = (act.softplus(-a) * (pwt - 1.0) - a) * wt
    return da, db
