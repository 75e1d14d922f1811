"""Differentiable VJPs of reductions, views, matrix products and dtype casts.

Many linear ops move elements without arithmetic (slices, transposes, expand, gathers):
their output is `x.flat[pos]` for positions computed from the row, so their VJP is a
scatter-add of `g` at `pos` (`scatter`), and a scatter's VJP is the gather back
(`gather`): both are recorded ops, so these VJPs differentiate again.
"""

import numpy as np

from ...ops import indexing
from ...tensor import Tensor
from ..grad_mode import is_grad_enabled
from . import defvjp, on_device, sum_to


# -- gathers and scatters by flat position, over leading batch dims -------------------
def _batched_pos(pos, n, bshape):
    """Positions into a (batch + shape) buffer: pos offset by n per batch element."""
    nbatch = int(np.prod(bshape)) if bshape else 1
    if nbatch == 1:
        return pos
    return (np.arange(nbatch, dtype=np.int64)[:, None] * n + pos[None, :]).reshape(-1)


def gather(t, pos, shape, nb=0):
    """t (batch + any shape) -> t.flat[pos] per batch element, shaped batch + `shape`."""
    bshape = tuple(t.shape[:nb])
    n = int(np.prod(t.shape[nb:])) if len(t.shape) > nb else 1
    bpos = _batched_pos(np.asarray(pos, np.int64).reshape(-1), n, bshape)
    return indexing.take(t, bpos, bshape + tuple(shape), node="IndexBackward0")


def scatter(g, pos, shape, nb=0):
    """The transpose of `gather`: zeros(batch + shape) with g added at pos (per batch)."""
    bshape = tuple(g.shape[:nb])
    n = int(np.prod(shape)) if shape else 1
    pos = np.asarray(pos, np.int64).reshape(-1)
    bpos = _batched_pos(pos, n, bshape)
    zero = on_device(np.zeros(bshape + tuple(shape), g._data.dtype), g.is_cuda)
    src_pos = np.arange(bpos.size, dtype=np.int64)
    return indexing.put_add(zero, g, bpos, src_pos, node="IndexAddBackward0")


# -- views ----------------------------------------------------------------------------
@defvjp("view", "unsafe_view", "unsqueeze", "squeeze", "squeeze_dim", "clone")
def _flat(row, g):
    """Same elements in the same order: g reshaped to the input's shape."""
    return (g.reshape(row.bshape + row.shape(row.ins[0])),)


def strided_positions(offset, strides, shape):
    """Flat input positions of a strided view's elements, in the view's order."""
    pos = np.full((), offset, np.int64)
    for n, st in zip(shape, strides):
        pos = pos[..., None] + np.arange(n, dtype=np.int64) * st
    return pos.reshape(-1)


@defvjp("slice", "select", "transpose", "permute", "expand", "index_basic", "t", "unsqueeze_index")
def _strided(row, g):
    if row.cuda:
        return _strided_cuda(row, g)
    ys = row.shape(row.outs[0])
    a = row.attrs()
    pos = strided_positions(a.offset, list(a.strides[: len(ys)]), ys)
    return (scatter(g, pos, row.shape(row.ins[0]), row.nb),)


def _strided_cuda(row, g):
    """The same ops on the GPU: transposes record their permutation, expand nothing (its
    VJP is a sum back), and slices and selects are takes by saved positions."""
    if row.name == "expand":
        return (row.sum_to(g, row.ins[0]),)
    if row.name in ("transpose", "permute", "t"):
        nb = row.nb
        inv = np.argsort(row.iattrs).tolist()
        return (g.permute(*range(nb), *(nb + i for i in inv)),)
    from .shape import _take

    return _take(row, g)


# -- matrix products ------------------------------------------------------------------
def _mT(t):
    return t.transpose(-1, -2)


@defvjp("matmul_dot", "matmul_mv", "matmul_mm", "matmul_bmm", "matmul_batched")
def _matmul(row, g):
    """ga = g @ b^T, gb = a^T @ g on the operands seen as (batch of) matrices."""
    sa, sb = row.shape(row.ins[0]), row.shape(row.ins[1])
    if len(sa) + len(sb) == 3 and not is_grad_enabled() and type(g._data) is np.ndarray:
        a = row.saved_array(0, row.ins[0]) if row.wants(1) else None
        b = row.saved_array(1, row.ins[1]) if row.wants(0) else None
        return _matvec_arrays(g._data, a, b, sa, sb, row.bshape)
    a = row.value(row.ins[0], 0) if row.wants(1) else None  # the row saves (a, b)
    b = row.value(row.ins[1], 1) if row.wants(0) else None
    if len(sa) + len(sb) == 3:  # matrix @ vector or vector @ matrix: no batched matvecs
        return _matvec(row, g, a, b, sa, sb)
    a2 = sa if len(sa) > 1 else (1,) + sa
    b2 = sb if len(sb) > 1 else sb + (1,)
    y2 = a2[:-2] if len(a2) >= len(b2) else b2[:-2]
    g2 = g.reshape(row.bshape + y2 + (a2[-2], b2[-1]))
    ga = gb = None
    if row.wants(0):
        ga = sum_to(g2 @ _mT(b.reshape(b2)), a2, row.nb).reshape(row.bshape + sa)
    if row.wants(1):
        gb = sum_to(_mT(a.reshape(a2)) @ g2, b2, row.nb).reshape(row.bshape + sb)
    return ga, gb


def _matvec(row, g, a, b, sa, sb):
    """y = A v or v A: the cotangents' batch dims fold into one matrix product with A,
    and A's gradient is the outer product of g and v (both expanded: same-shape kernels)."""
    bs = row.bshape
    ga = gb = None
    if len(sa) == 2:  # v = b: ga = g b^T, gb = g @ a
        if row.wants(0):
            ga = g.reshape(bs + (sa[0], 1)).expand(bs + sa) * b.expand(bs + sa)
        if row.wants(1):
            gb = g @ a
    else:  # v = a: ga = g @ b^T, gb = a g^T
        if row.wants(0):
            ga = g @ _mT(b)
        if row.wants(1):
            gb = a.reshape(sa[0], 1).expand(bs + sb) * g.reshape(bs + (1, sb[1])).expand(bs + sb)
    return ga, gb


def _matvec_arrays(gd, a, b, sa, sb, bs):
    """`_matvec` when nothing is recorded, on the operands' arrays `a`, `b` (None: not
    needed): NumPy, the batch folded into one matrix product (BLAS reads A^T in place)."""
    ga = gb = None
    if len(sa) == 2:  # A @ v
        if b is not None:
            ga = np.multiply(gd.reshape(bs + (sa[0], 1)), b)
        if a is not None:
            gb = gd.reshape(-1, sa[0]) @ a
    else:  # v @ A
        if b is not None:
            ga = gd.reshape(-1, sb[1]) @ b.T
        if a is not None:
            gb = np.multiply(a.reshape(sa[0], 1), gd.reshape(bs + (1, sb[1])))
    return tuple(
        None if v is None else Tensor._make(v.reshape(bs + s), -1, False)
        for v, s in ((ga, sa), (gb, sb))
    )


@defvjp("linear", "linear_nobias")
def _linear(row, g):
    """y = x @ w^T (+ b): gx = g @ w, gw = g^T @ x, gb = g summed over rows."""
    m, i_, o, _ = row.attrs()
    x = row.value(row.ins[0]) if row.wants(1) else None
    w = row.value(row.ins[1]) if row.wants(0) else None
    g2 = g.reshape(row.bshape + (m, o))
    gx = gw = gb = None
    if row.wants(0):
        gx = (g2 @ w).reshape(row.bshape + row.shape(row.ins[0]))
    if row.wants(1):
        gw = _mT(g2) @ x.reshape(m, i_)
    if len(row.ins) > 2 and row.wants(2):
        gb = g2.sum(dim=row.nb).reshape(row.bshape + row.shape(row.ins[2]))
    return (gx, gw) if len(row.ins) == 2 else (gx, gw, gb)
