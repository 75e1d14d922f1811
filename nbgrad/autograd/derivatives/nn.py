"""Differentiable VJPs of reductions and activations (the losses': ops/losses.py).

Each VJP below is its op's compiled VJP (ops/reduce.py, select.py, activations.py)
written with nbgrad ops, so it is recorded under create_graph and broadcasts over the
cotangent's leading batch dims. What is piecewise constant in the inputs (masks of ties,
of active pieces, signs) is a constant array; what varies smoothly is recomputed with
nbgrad ops from the values the row saved (or read as the row's saved output, tied to its
slot), so the VJP can be differentiated again.

Each op family decodes its row's attrs in one small helper (`_reduced`, `_param`) that
reads them as the family's compiled VJP does; for a GPU row (`row.cuda`) it reads the
CUDA kernels' layout, and the rule is shared. Masks are built with nbgrad ops on the
saved (detached) values, so they stay on the row's device.
"""

import math

import numpy as np

from ..._array import contig
from ...functions import where
from ...ops import activations as act
from ...ops import joins
from . import defvjp, on_device


def _const(row, arr):
    """A constant (no gradient) in the dtype of the row's first input, on its device."""
    return row.const(contig(arr, dtype=row.dtype(row.ins[0]).np))


def _mask(row, m):
    """A bool Tensor as 0/1 in the dtype of the row's first input."""
    return m.to(row.dtype(row.ins[0]))


def _sign(row, v):
    """sign(v) as 0/1/-1 (0 for NaN: the kernels' (v > 0) - (v < 0)), a constant."""
    return _mask(row, v > 0) - _mask(row, v < 0)


# -- reductions over a dim mask ---------------------------------------------------------
def _run_dims(xs, outer, n):
    """The run of adjacent dims a GPU line row reduces: after `outer` elements, `n` long."""
    d0, p = 0, 1
    while d0 < len(xs) and p != outer:
        p *= xs[d0]
        d0 += 1
    d1, q = d0, 1
    while d1 < len(xs) and q != n:
        q *= xs[d1]
        d1 += 1
    return range(d0, d1)


def _reduced(row, off=0):
    """(input shape, output shape with reduced dims kept as 1, reduced dims as negative
    indices, valid with or without batch dims) from the mask at int attr `off` (a GPU
    row: its lines, line length and inner stride)."""
    xs = row.shape(row.ins[0])
    if row.cuda:
        nl, n, inner = (int(v) for v in row.iattrs[:3])
        run = _run_dims(xs, nl // inner if inner else 0, n)
        mask = [d in run for d in range(len(xs))]
    else:
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
    x = row.x()
    xd = x.detach()
    sign = _sign(row, xd)
    if math.isinf(p):
        share = _ties(row, xd.abs(), row.y().detach().reshape(keep), dims, nan=False)
        return (gk * (sign * share),)
    if p == 1:
        return (gk * sign,)
    y = row.y().reshape(keep)
    y = y + _mask(row, y.detach() == 0)  # y = 0 only where x = 0: divide by 1 instead
    if p == 2:
        return (gk * x / y,)
    return (gk * sign * x.abs() ** (p - 1) / y ** (p - 1),)


def _ties(row, x, y, dims, nan=True):
    """1 / (number of ties) where x == y (and NaN == NaN, for max/min), else 0: how
    max/min and the inf-norms share the gradient (a constant)."""
    hit = x == y
    if nan:
        hit = hit | ((x != x) & (y != y))
    h = _mask(row, hit)
    cnt = h.sum(dim=dims, keepdim=True) if dims else h
    return where(cnt > 0, h / cnt, 0.0)  # no ties: a NaN norm


@defvjp("amax_AmaxBackward0", "amax_AminBackward0", "amax_MaxBackward1", "amax_MinBackward1")
def _amax(row, g):
    xs, keep, dims = _reduced(row)
    y = row.y().detach().reshape(keep)
    return (_keep_g(row, g, keep) * _ties(row, row.x().detach(), y, dims),)


@defvjp("var", "std")
def _var(row, g):
    """var: gx = g * 2 (x - mean) / den; std: gx = g * (x - mean) / (den * std); the mean
    is recomputed from x so that its dependence on x is differentiated too."""
    xs, keep, dims = _reduced(row, off=1)
    if row.cuda:  # the attr is the correction
        is_std, den = row.name == "std", max(int(row.iattrs[1]) - float(row.fattrs[0]), 0.0)
    else:
        is_std, den = bool(row.iattrs[0]), float(row.fattrs[0])
    x = row.x()
    dev = x - x.mean(dim=dims, keepdim=True) if dims else x - x
    gk = _keep_g(row, g, keep)
    if is_std:  # 0 where std is 0, as the first-order VJP (a safe divisor: no NaN paths)
        y = row.y().reshape(keep)
        zero = y.detach() == 0
        return (where(zero, 0.0, gk * dev / (where(zero, 1.0, y) * den)),)
    return (gk * dev * 2.0 / den,)


@defvjp("logsumexp")
def _logsumexp(row, g):
    """gx = g * exp(x - y) (0 where y = -inf)."""
    xs, keep, dims = _reduced(row)
    y = row.y().reshape(keep)
    yd = y.detach()
    if row.cuda or (yd._data == -np.inf).any():  # an all -inf group: exp(-inf - 0) = 0
        y = where(yd == -math.inf, 0.0, y)
    return (_keep_g(row, g, keep) * (row.x() - y).exp(),)


def _outer_n_inner(row):
    """prod/cumsum's (outer, n, inner) layout around the reduced dim (a GPU row records
    the number of lines, outer * inner, first)."""
    a, n, inner = (int(v) for v in row.iattrs[:3])
    return (a // inner if inner else 0, n, inner) if row.cuda else (a, n, inner)


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
    ones = on_device(np.ones((outer, s, inner), t._data.dtype), t.is_cuda)
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
