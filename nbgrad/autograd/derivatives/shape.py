"""Differentiable VJPs of indexing, joins, views by strides, where and einsum.

All but einsum move elements without arithmetic, so each VJP is one of three rules on flat
positions read from the row (the arrays and attrs its compiled VJP reads):

* take (`out = x.flat[pos]`): gx = g scatter-added at pos (duplicates accumulate);
* add into (`out = x; out.flat[dpos] += alpha * src.flat[spos]`): gx = g,
  gsrc = alpha * g[dpos] summed at spos;
* overwrite (`out = x; out.flat[dpos] = src.flat[spos]`): gsrc as above (alpha 1),
  gx = g with the overwritten positions zeroed.

They are written with `gather`/`scatter` (tensorops.py), `where` and slicing, all recorded
ops whose own VJPs are here, so the set is closed under differentiation.
"""

import numpy as np

from ... import functions as F
from ...ops.einsum import einsum, equation
from . import defvjp, host
from .tensorops import gather, scatter, strided_positions

_TAKE = ("Index", "Gather", "IndexSelect", "Max", "Min", "TakeAlongDim", "MaskedSelect", "Take")


@defvjp(*(f"take_{n}Backward0" for n in _TAKE))
def _take(row, g):
    return (scatter(g, host(row.saved[0]), row.shape(row.ins[0]), row.nb),)


def _gather_src(row, g, dpos, spos, alpha=1.0):
    """The source's cotangent: alpha * g.flat[dpos] summed into src.flat[spos]."""
    ss = row.shape(row.ins[1])
    if np.array_equal(spos, np.arange(row.numel(row.ins[1]))):  # one source per write
        gs = gather(g, dpos, ss, row.nb)
    else:
        gs = scatter(gather(g, dpos, (dpos.size,), row.nb), spos, ss, row.nb)
    return gs * alpha if alpha != 1.0 else gs


def _overwrite(row, g, dpos, spos):
    gx = gs = None
    if row.wants(0):
        keep = np.ones(row.numel(row.ins[0]), np.bool_)
        keep[dpos] = False
        keep = row.const(keep.reshape(row.shape(row.ins[0])))
        gx = F.where(keep, g, 0.0)
    if row.wants(1):
        gs = _gather_src(row, g, dpos, spos)
    return gx, gs


@defvjp("putadd_ScatterAddBackward0", "putadd_IndexAddBackward0", "putadd_IndexPutBackward0")
def _put_add(row, g):
    dpos, spos = (host(a) for a in row.saved)
    gs = _gather_src(row, g, dpos, spos, row.float_attrs().alpha) if row.wants(1) else None
    return (g if row.wants(0) else None), gs


@defvjp("put_IndexPutBackward0", "put_CopySlices")
def _put(row, g):
    return _overwrite(row, g, *(host(a) for a in row.saved))


@defvjp("setitem")
def _setitem(row, g):
    """An overwrite of a strided view of x by v broadcast to it (iattrs: offset, ndim, view
    shape, the view's strides in x, v's broadcast strides in v)."""
    a = row.attrs()
    nd = a.nd
    shp, xst, vst = (list(a.dims[i * nd : (i + 1) * nd]) for i in range(3))
    dpos = strided_positions(a.offset, xst, shp)
    return _overwrite(row, g, dpos, strided_positions(0, vst, shp))


# -- joins and strided views ----------------------------------------------------------
@defvjp("cat", "stack")
def _cat(row, g):
    """Input j is columns [off, off + L_j) of the output seen as (outer, total); on the
    GPU, the output positions the row saved for each input."""
    if row.cuda:
        return tuple(
            gather(g, host(p), row.shape(s), row.nb) if row.wants(j) else None
            for j, (s, p) in enumerate(zip(row.ins, row.saved))
        )
    a = row.attrs()
    g2 = g.reshape(row.bshape + (a.outer, a.total))
    out, off = [], 0
    for j in range(a.nin):
        L = a.lengths[j]
        gj = g2[..., off : off + L].reshape(row.bshape + row.shape(row.ins[j]))
        out.append(gj if row.wants(j) else None)
        off += L
    return tuple(out)


_VIEWS = ("Flip", "Repeat", "Permute", "Slice", "Select", "Narrow", "Split", "Unbind")


@defvjp(*(f"view_{n}Backward0" for n in _VIEWS + ("SplitWithSizes",)))
def _view(row, g):
    """Output element i is x.flat[offset + idx(i) . strides] (iattrs: offset, ndim, the
    view's shape and strides; repeat's view shape differs from its output's). On the
    GPU these rows are takes by saved positions."""
    if row.cuda:
        return _take(row, g)
    a = row.attrs()
    nd = a.nd
    pos = strided_positions(a.offset, list(a.dims[nd:]), list(a.dims[:nd]))
    return (scatter(g, pos, row.shape(row.ins[0]), row.nb),)


# -- einsum ---------------------------------------------------------------------------
@defvjp("einsum", "einsum_bmm")
def _einsum(row, g):
    """gX_j = einsum(g, X_k) onto X_j's subscripts (the row records the equation).

    Letters only X_j has get g's contraction broadcast along them; a letter repeated in
    X_j (a diagonal) takes the result onto the diagonal, zeros elsewhere."""
    eq = equation(row.name, row.attrs())
    subs, so = eq.split("->")
    subs = subs.split(",")
    size = {}
    for s, sub in zip(row.ins, subs):
        size.update(zip(sub, row.shape(s)))
    out = []
    for j, sub in enumerate(subs):
        if not row.wants(j):
            out.append(None)
            continue
        others = [(row.x(k), subs[k]) for k in range(len(subs)) if k != j]
        have = set(so).union(*(o for _, o in others))
        uniq = "".join(dict.fromkeys(sub))
        core = "".join(c for c in uniq if c in have)
        spec = ",".join(["..." + so] + [o for _, o in others]) + "->..." + core
        r = einsum(spec, g, *(t for t, _ in others))
        if core != uniq:  # broadcast along X_j's own letters
            keep = tuple(size[c] if c in have else 1 for c in uniq)
            r = r.reshape(row.bshape + keep).expand(row.bshape + tuple(size[c] for c in uniq))
        if uniq != sub:  # repeated letters: onto the diagonal
            st = dict.fromkeys(uniq, 0)
            stride = 1
            for c, n in reversed(list(zip(sub, row.shape(row.ins[j])))):
                st[c] += stride
                stride *= n
            pos = strided_positions(0, [st[c] for c in uniq], [size[c] for c in uniq])
            r = scatter(r, pos, row.shape(row.ins[j]), row.nb)
        out.append(r)
    return tuple(out)
