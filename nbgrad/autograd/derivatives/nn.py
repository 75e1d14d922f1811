"""Differentiable VJPs of reductions and activations (the losses': ops/losses.py).

Each VJP below is its op's compiled VJP (ops/reduce.py, select.py, activations.py)
written with nbgrad ops, so it is recorded under create_graph and broadcasts over the
cotangent's leading batch dims. What is piecewise constant in the inputs (masks of ties,
of active pieces, signs) is a constant array; what varies smoothly is recomputed with
nbgrad ops from the values the row saved (or read as the row's saved output, tied to its
slot), so the VJP can be differentiated again.

Each op family decodes its row's attrs in one small helper (`_param`) that reads them
as the family's compiled VJP does; for a GPU row (`row.cuda`) it reads the CUDA kernels'
layout, and the rule is shared. Masks are built with nbgrad ops on the saved (detached)
values, so they stay on the row's device.
"""

from ..._array import contig
from ...functions import where
from ...ops import activations as act
from . import defvjp


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
