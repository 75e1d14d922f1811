"""Per-sample cotangents kept diagonal: B one-hot cotangents without B times the work.

Per-sample gradients are one batched VJP of per-sample losses (B,) seeded with eye(B).
Taken literally, every intermediate of shape (B, ...) then carries B cotangents, (B, B,
...), of which only the diagonal is non-zero while the ops work row by row: B times the
work of one backward. `Diag(d)` stands for the batched cotangent G with G[b, i] = 0 for
i != b and G[b, b] = d[b] (d has the slot's own shape, its dim 0 the sample dim). Rows
that keep rows apart (elementwise ops, reshapes that keep dim 0, linear layers over the
rows) map a `Diag` to a `Diag`, or to an ordinary batched cotangent where they sum over
the rows (a weight's gradient: one per sample); any other row gets the dense form.

Used only by batched sweeps that record nothing (`graph._run`), on CPU arrays; per-sample
gradients w.r.t. shared parameters take `shared_grads` first, which needs the rules only
where the parameters enter.
"""

import numpy as np

from ... import _versions as versions
from ..._optable import OPS
from ...backends.cpu import walk
from ...backends.cpu.plan import finish
from ...backends.cpu.vecloops import row_outer
from ...tape import R_SEQ, TAPE
from ...tensor import Tensor
from .. import hooks, node, saved_hooks, version_check
from . import Row, sum_to
from .elementwise import RULES, _env


class Diag:
    """The batched cotangent zeros(B, *d.shape) with [b, b] = d[b] (d: an ndarray)."""

    __slots__ = ("d",)

    def __init__(self, d):
        self.d = d

    def dense(self):
        d = self.d
        n = d.shape[0]
        out = np.zeros((n,) + d.shape, d.dtype)
        out[np.arange(n), np.arange(n)] = d
        return Tensor._make(out, -1, False)


_IDENTITY: dict = {}  # (batch size, dtype) -> the identity seed of the last per-sample grads


def identity_seed(n, dtype):
    """eye(n) as a batched seed that `diag_seed` knows without reading it (kept: sweeps
    only read their seeds)."""
    from ... import eye

    key = (n, dtype)
    seed = _IDENTITY.get(key)
    if seed is None:
        _IDENTITY.clear()
        seed = _IDENTITY[key] = eye(n, dtype=dtype)
    return seed


def diag_seed(g, out_shape):
    """`Diag` for a batched seed that is a diagonal (B, B) over an output of shape (B,)."""
    gd = g._data
    if type(gd) is not np.ndarray or gd.ndim != 2 or tuple(out_shape) != gd.shape[:1]:
        return None
    if _IDENTITY.get((gd.shape[0], g.dtype)) is g:
        return Diag(np.ones(gd.shape[0], gd.dtype))
    if gd.shape[0] != gd.shape[1] or gd.shape[0] < 2:
        return None
    d = gd.reshape(-1)[:: gd.shape[0] + 1].copy()  # the diagonal (gd is C-contiguous)
    if np.count_nonzero(gd) != np.count_nonzero(d):
        return None
    return Diag(d)


_VIEWS = ("view", "unsafe_view", "squeeze", "squeeze_dim", "unsqueeze", "clone")


def shared_grads(losses, leaves):
    """Per-sample gradients of `losses` (B,) w.r.t. `leaves` (shared parameters, leaves of
    their own) by one compiled sweep, or None where this does not apply (the caller then
    takes the Diag walk of `graph._run`).

    A `Diag(d)` cotangent stands for d alone, which is the gradient of losses.sum(): so
    where every row between the losses and the parameters keeps samples apart, the compiled
    sweep of losses.sum() gives each `Diag` at once, down to the rows where a parameter
    enters (summed over the samples there: a linear layer's weight, a broadcast operand).
    Only those rows' parameter inputs take the per-sample rules below, from their outputs'
    gradients. Returns one (B, *shape) array per leaf."""
    if not _SWEEPS:
        from .. import engine  # (it imports this module)

        _SWEEPS.append(engine)
    T = TAPE
    B = losses._data.shape[0]
    if B < 2 or type(losses._data) is not np.ndarray:  # (B == 1: rows and broadcasts alike)
        return None
    if hooks.ANOMALY[0]:  # (multi-grad hooks are gradient hooks, found by the walk)
        return None  # (the Diag walk keeps its behaviour)
    root = losses._slot
    with T.pin():
        plan, slots, ks = _plan_of(root, [t._slot for t in leaves])
        if T.hooks and any(T.hooks.get(s) for s in slots):
            return None  # gradient hooks in the graph: the Diag walk (which skips them)
        if _hooked(ks):
            return None  # (the Diag walk keeps their behaviour)
        if plan is None:
            return None
        if ks.size and versions.LAST[0] > T.R.item(ks[-1], R_SEQ):
            version_check.check(ks)
        out = _apply(plan, losses, leaves, slots, ks, B)
        if out is None:
            return None  # (nothing freed yet: the caller's walk runs instead)
        # freed as a backward without retain_graph frees them (one compiled call marks
        # them: NumPy's fancy indexing cost ~4x as much)
        T.saved[finish(T.R, T.gaddr, T.ginit, _NO_SLOTS, _NO_SLOTS, ks, True)] = None
    return out


def _apply(plan, losses, leaves, slots, ks, B):
    """`plan` run on this call's graph (`slots`, `ks`: its slot and row numbers): the
    sweep of losses.sum() down to the boundary rows' outputs and the leaves in the region
    (a leaf's Diag gradient), then the boundary rows' per-sample rules."""
    dt = losses._data.dtype
    refs = [leaves[m - 1] if 0 < m <= len(leaves) else _Slot(slots[m]) for m in plan.targets]
    res = _SWEEPS[0]._run([losses], [_ones(B, dt)], True, refs, True) if refs else {}  # (locked)
    if plan.at_root:
        res[losses._slot] = np.ones(B, dt)  # (a rule's result may alias d)
    out = [None] * len(leaves)
    for i, shape in plan.leaves:  # the gradients are the Diags' d
        d = res.get(leaves[i]._slot)
        if d is not None:
            out[i] = Diag(d.reshape(shape)).dense()._data
    for r, name, outs, ins, params, mask, shapes, iattrs in plan.boundary:
        d = res.get(slots[outs[0]])
        if d is None:
            continue
        shapes = {slots[m]: sh for m, sh in shapes}
        outs, ins = [slots[m] for m in outs], [slots[m] for m in ins]
        row = Row(ks.item(r), name, 1, (B,), outs, ins, shapes, mask)
        row._ia = iattrs  # (part of the signature: the same at every call of the plan)
        gins = vjp(row, Diag(d.reshape(shapes[outs[0]])))
        if gins is None:
            return None
        for j, i in params:
            g = gins[j]
            if g is None or type(g) is Diag:
                return None
            out[i] = g._data if out[i] is None else out[i] + g._data
    return out


class _Plan:
    """What `_classify` found for one graph structure, in `walk.signature`'s numbers
    (slot m: slots[m] of a call; row r: the walk's r-th row): the slots the compiled sweep
    stops at, the leaves it reaches (leaf i: its Diag gradient's shape), whether the root
    is a boundary row's output, and the boundary rows (r, op name, out and in slot
    numbers, [(input position, leaf)], the rule's input mask, [(slot number, shape)], int
    attrs)."""

    __slots__ = ("targets", "leaves", "at_root", "boundary")


_PLANS: dict = {}  # walk.signature's bytes -> its _Plan (None: shared_grads does not apply)
_MAX_PLANS = 64  # (graphs of other structures: the dict is emptied when this many)
_MISSING = object()


def _plan_of(root, leaf_slots):
    """The plan for the graph from `root` down to `leaf_slots` (-1: a leaf no op took),
    looked up by the graph's structure (its classification depends on nothing else); this
    graph's slot numbers (by the plan's numbering) and rows (newest first, an array)."""
    T = TAPE
    flat, shp, freed, sig, slots, ks = walk.walk_signature(
        T.R, T.I, T.S, root, np.array(leaf_slots, np.int64)
    )
    if freed:
        from ..engine import SECOND_BACKWARD

        raise RuntimeError(SECOND_BACKWARD)
    key = sig.tobytes()
    slots = slots.tolist()
    plan = _PLANS.get(key, _MISSING)
    if plan is _MISSING:
        plan = _build(flat, shp, slots, ks.tolist(), root, leaf_slots)
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan, slots, ks


def _build(flat, shp, slots, ks, root, leaf_slots):
    """Classify the walk's rows (`_classify`) and number what the calls need."""
    from .. import graph  # (it imports this module)

    shapes = {}
    rows = graph.decode(flat, shp, shapes)
    want = {s: i for i, s in enumerate(leaf_slots) if s >= 0}
    found = _classify(rows, root, want, shapes, shapes[root][0])
    if found is None:
        return None
    region, boundary = found
    num = {}
    for m, s in enumerate(slots):
        num.setdefault(s, m)
    place = {k: r for r, k in enumerate(ks)}
    plan = _Plan()
    plan.leaves = [(i, shapes[s]) for s, i in want.items() if s in region]
    targets = {o for o, _ in boundary.values() if o != root}
    plan.targets = [num[s] for s in targets] + [1 + i for i, _ in plan.leaves]
    plan.at_root = any(o == root for o, _ in boundary.values())
    plan.boundary = []
    by_row = dict(rows)
    for k, (_, params) in boundary.items():
        outs, ins, code, _ = by_row[k]
        mask = tuple([j in params for j in range(len(ins))])
        used = {num[s]: shapes[s] for s in (*outs, *ins)}
        iattrs = Row(k, OPS[code].name, 1, (), outs, ins, shapes, mask).iattrs
        plan.boundary.append((place[k], OPS[code].name, [num[s] for s in outs],
                              [num[s] for s in ins], [(j, want[ins[j]]) for j in params],
                              mask, list(used.items()), iattrs))  # fmt: skip
    return plan


def _hooked(ks):
    """Whether rows `ks` have node hooks or values packed by saved-tensor hooks (rows of
    other graphs, kept until the tape is compacted, do not count)."""
    if not (hooks.NODES[0] or saved_hooks.PACKED) or not len(ks):
        return False
    packed = saved_hooks.PACKED
    if packed and any(int(q) in packed for q in TAPE.R[ks, R_SEQ]):
        return True
    return bool(hooks.NODES[0] and node.hooked_positions(np.array(ks, np.int64)))


_SWEEPS: list = []  # the module autograd.engine, once loaded
_NO_SLOTS = np.zeros(0, np.int64)
_ONES: dict = {}  # (batch size, dtype) -> the seed of shared_grads' sweep (only read)


def _ones(n, dtype):
    seed = _ONES.get((n, dtype))
    if seed is None:
        _ONES.clear()
        seed = _ONES[(n, dtype)] = np.ones(n, dtype)
    return seed


class _Slot:
    """A non-leaf slot as the compiled sweep's `wanted_tensors` names it."""

    __slots__ = ("_slot",)

    def __init__(self, s):
        self._slot = s


def _classify(rows, root, want, shapes, B):
    """For `shared_grads`: the slots that carry a `Diag` (the region) and the boundary rows
    {row: (its output, positions of its parameter inputs)}, or None if some row does not
    keep samples apart or a parameter enters other than as a leaf."""
    made = {outs[0] for _, (outs, _, _, _) in rows if len(outs) == 1}
    region, boundary = {root}, {}
    for k, (outs, ins, code, rg) in rows:
        if len(outs) != 1 or outs[0] not in region:
            return None
        name = OPS[code].name
        params = []
        for j, s in enumerate(ins):
            if not rg[j] or (s not in want and s not in made):
                continue  # no gradient wanted through this input
            side = _side(k, name, j, B, outs, ins, rg, shapes)
            if side == "row":
                region.add(s)
            elif side == "param" and s in want:
                params.append(j)
            else:
                return None
        if params:
            boundary[k] = (outs[0], params)
    return region, boundary


def _side(k, name, j, B, outs, ins, rg, shapes):
    """Whether input j of row k keeps the samples apart ("row": its cotangent is a Diag),
    is summed over them ("param": a per-sample cotangent), or neither (None); mirrors
    `vjp` below."""
    sj, so = shapes[ins[j]], shapes[outs[0]]
    if name in RULES:
        if len(sj) == len(so) and sj[0] == B:
            return "row"
        return "param"
    if name in _VIEWS:
        return "row" if sj and sj[0] == B else None
    if name in ("linear", "linear_nobias"):
        if len(shapes[ins[0]]) != 2 or shapes[ins[0]][0] != B:
            return None
        return "row" if j == 0 else "param"
    if name in ("sum_dim", "mean_dim"):
        bits = Row(k, name, 1, (B,), outs, ins, shapes, rg).attrs().dims
        return "row" if sj and sj[0] == B and not bits & 1 else None
    if name.startswith("matmul_"):
        other = shapes[ins[1 - j]]
        if len(sj) + len(other) != 3 or len(sj) != 1 or rg[1 - j]:
            return None
        return "param"
    return None


def add(a, b, into=False):
    """a + b, either of which may be a `Diag`. `into`: a's array belongs to the caller's
    sweep alone (an earlier sum), so b is added to it in place."""
    if isinstance(a, Diag):
        if isinstance(b, Diag):
            if into:
                a.d += b.d
                return a
            return Diag(a.d + b.d)
        a, b, into = b, a, False
    ad = a._data
    if not isinstance(b, Diag):
        if into:
            ad += b._data
            return a
        return Tensor._make(ad + b._data, -1, False)
    out = ad if into else ad.copy()
    d = b.d
    n = d.shape[0]
    if d.ndim == 1:  # out is (n, n): its diagonal is every (n+1)-th element
        out.reshape(-1)[:: n + 1] += d
    else:
        i = np.arange(n)
        out.reshape(n, n, -1)[i, i] += d.reshape(n, -1)
    return a if into else Tensor._make(out, -1, False)


def vjp(row, g):
    """Input cotangents of `row` from a `Diag` output cotangent, or None if this row
    does not keep rows apart (the caller then densifies)."""
    if row.name in RULES:
        return _elementwise(row, g.d)
    if row.name in ("view", "unsafe_view", "squeeze", "squeeze_dim", "unsqueeze", "clone"):
        sx = row.shape(row.ins[0])
        if sx and sx[0] == g.d.shape[0]:
            return (Diag(g.d.reshape(sx)),)
        return None
    if row.name in ("linear", "linear_nobias"):
        return _linear(row, g.d)
    if row.name in ("sum_dim", "mean_dim") and not row.cuda:
        return _sum_dim(row, g.d)
    if row.name.startswith("matmul_"):
        return _matvec(row, g.d)
    return None


def _elementwise(row, d):
    """The rule at g := d is the unbatched VJP; each sample's row stays its own, unless an
    operand is broadcast over the rows (then its cotangent is per sample: batched)."""
    kind, rules, saves = RULES[row.name]
    env = _env(row, kind, saves, True)
    n = d.shape[0]
    out = []
    for j, _, fn, _ in rules:
        if not row.wants(j):
            out.append(None)
            continue
        v = fn(d, *env)
        if not (isinstance(v, np.ndarray) and v.shape == d.shape and v.dtype == d.dtype):
            v = np.asarray(d * 0.0 + v, d.dtype)  # a constant: at d's (the output's) shape
        sj = row.shape(row.ins[j])
        if len(sj) == v.ndim and sj[0] == n:  # rows kept: sum any other broadcast dims
            out.append(Diag(v if sj == v.shape else sum_to(_t(v), sj, 0)._data))
        elif len(sj) == v.ndim:  # sj[0] == 1: summed over the rows, one per sample
            out.append(sum_to(_t(v), sj[1:], 1).reshape((n,) + sj))
        else:
            out.append(sum_to(_t(v), sj, 1))
    return tuple(out)


def _sum_dim(row, d):
    """A sum (mean) over dims other than the rows: each row's cotangent, spread back."""
    xs = row.shape(row.ins[0])
    bits = row.attrs().dims
    if not xs or bits & 1 or xs[0] != d.shape[0]:
        return None
    if not row.wants(0):
        return (None,)
    gx = np.empty(xs, d.dtype)
    gx[...] = d.reshape(tuple(1 if bits >> i & 1 else n for i, n in enumerate(xs)))
    scale = row.fattr0()
    return (Diag(gx * scale if scale != 1.0 else gx),)


def _linear(row, d):
    """y = x @ w^T (+ b) over rows of a 2-D x: gx keeps rows; gw, gb are per sample."""
    m, i_, o, _ = row.attrs()
    if len(row.shape(row.ins[0])) != 2 or m != d.shape[0]:
        return None
    x, w = row.saved[0].reshape(m, i_), row.saved[1]
    gx = Diag(d @ w) if row.wants(0) else None
    gw = None
    if row.wants(1):
        gw = np.empty((m,) + w.shape, d.dtype)
        row_outer(np.ascontiguousarray(d), np.ascontiguousarray(x, d.dtype), gw)
        gw = _t(gw)
    if len(row.ins) == 2:
        return gx, gw
    gb = _t(d.reshape((m,) + row.shape(row.ins[2]))) if row.wants(2) else None
    return gx, gw, gb


def _matvec(row, d):
    """y = A v or v A (A a matrix that takes no gradient): gv[b] = d[b] times A's row
    (column) b, one per sample. Anything else: None (densified)."""
    sa, sb = row.shape(row.ins[0]), row.shape(row.ins[1])
    if len(sa) + len(sb) != 3:
        return None
    if len(sa) == 2:  # A @ v
        if row.wants(0):
            return None
        return None, _t(d[:, None] * row.array(row.ins[0])) if row.wants(1) else None
    if row.wants(1):  # v @ A
        return None
    return _t(np.multiply(d[:, None], row.array(row.ins[1]).T, order="C")), None


def _t(a):
    return Tensor._make(a, -1, False)  # a: C-contiguous, as every Tensor's data
