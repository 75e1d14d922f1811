"""The differentiable sweep: the backward pass as recorded (or batched) nbgrad ops.

`backward`/`grad` normally run the compiled sweep (fused VJP kernels, nothing recorded).
With `create_graph=True` or `is_grads_batched=True` they come here instead: the same rows,
walked newest first in Python, each row's gradient computed by its differentiable VJP
(`derivatives/`). Every such VJP is a handful of whole-tensor ops, so a batch of
cotangents (a leading dim) goes through the graph in ONE sweep, each VJP vectorised over
the batch; with `create_graph` the ops are recorded, so the result can be differentiated
again (double backward, Hessians).
"""

import numpy as np

from ..ops.registry import OPS
from ..tape import (
    R_CODE,
    R_IPOS,
    R_NIN,
    R_NOUT,
    R_SAVED,
    S_PROD,
    S_RG,
    SAVES_FREED,
    SAVES_LIVE,
    TAPE,
)
from ..tensor import Tensor
from .derivatives import DVJP, Row, _load, diag, sum_to
from .grad_mode import set_grad_enabled

_loaded = []


def _ensure_loaded():
    if not _loaded:
        _load()
        _loaded.append(True)


def _ins(k):
    T = TAPE
    r = T.R[k].tolist()
    p, no = r[R_IPOS], r[R_NOUT]
    io = T.I[p : p + no + r[R_NIN]].tolist()
    return io[:no], io[no:]


def vjp_of(name):
    """The differentiable VJP of an op, or a clear error for an op that has none."""
    fn = DVJP.get(name)
    if fn is None:
        raise NotImplementedError(
            f"create_graph=True, is_grads_batched=True and forward AD are not supported yet "
            f"through the op {name!r}"
        )
    return fn


def _walk(roots, stop=()):
    """{row: (out slots, in slots, op code, which ins take gradients)} for the rows that
    produced `roots`, transitively, not walking past `stop` slots. Each row is decoded
    once here and reused by the sweep."""
    T = TAPE
    R, I, item = T.R, T.I, T.S.item  # item: a Python int, no NumPy scalar on the way
    rows, seen, stack = {}, set(), list(roots)
    while stack:
        s = stack.pop()
        if s in seen or s in stop:
            continue
        seen.add(s)
        k = item(s, S_PROD)
        if k < 0 or k in rows:
            continue
        r = R[k].tolist()
        p, no = r[R_IPOS], r[R_NOUT]
        io = I[p : p + no + r[R_NIN]].tolist()
        ins = io[no:]
        rg = tuple([item(i, S_RG) != 0 for i in ins])
        rows[k] = (io[:no], ins, r[R_CODE], rg)
        stack += [i for i, w in zip(ins, rg) if w]
    return rows


def ancestor_rows(roots, stop=()):
    """The set of rows that produced `roots`, transitively, not walking past `stop` slots."""
    return set(_walk(roots, stop))


def needed_rows(roots, wanted=None):
    """Rows on a path from `roots` down (to a `wanted` slot, if given), newest first."""
    return [k for k, _ in _needed(roots, wanted)]


def _needed(roots, wanted):
    """[(row, _walk's entry)] on a path from `roots` (down to a `wanted` slot), newest
    first."""
    rows = _walk(roots)
    order = sorted(rows)
    if wanted is not None:
        useful, reach = [], set(wanted)  # reach: slots with a path down to a wanted slot
        for k in order:
            outs, ins = rows[k][:2]
            if not reach.isdisjoint(ins):
                useful.append(k)
                reach.update(outs)
        order = useful
    return [(k, rows[k]) for k in reversed(order)]


def run(outputs, seeds, wanted, create_graph, retain_graph, nb):
    """Backward from `outputs` seeded with `seeds` (Tensors: `nb` batch dims + shape).

    Returns {slot: gradient Tensor} for every slot reached (leaves and non-leaves)."""
    _ensure_loaded()
    with TAPE.pin():  # VJPs recording rows must not renumber the rows being walked
        return _run(outputs, seeds, wanted, create_graph, retain_graph, nb)


# rows that move between devices: a graph through them has GPU rows, whose differentiable
# VJPs (NumPy and CPU ops on the rows' saved arrays) do not exist yet
_DEVICE_MOVES = ("to_cuda", "to_cpu")


def refuse_cuda(tensors, rows):
    """PyTorch-like refusal (not a wrong answer) of a Python sweep over GPU rows."""
    moves = {OPS[c].name for _, (_, _, c, _) in rows} & set(_DEVICE_MOVES)
    if moves or any(t.is_cuda for t in tensors):
        raise NotImplementedError(
            "create_graph=True, is_grads_batched=True and forward-mode AD (and so "
            "autograd.functional and nbgrad.func) are not supported on CUDA tensors yet; "
            "this graph reaches a tensor on cuda:0"
        )


def _run(outputs, seeds, wanted, create_graph, retain_graph, nb):
    T = TAPE
    roots = [o._slot for o in outputs]
    rows = _needed(roots, wanted)
    refuse_cuda(list(outputs) + list(seeds), rows)
    saved_state = T.R[:, R_SAVED]
    for k, _ in rows:
        if saved_state[k] == SAVES_FREED:
            from .engine import SECOND_BACKWARD

            raise RuntimeError(SECOND_BACKWARD)
    bshape = tuple(seeds[0].shape[:nb]) if seeds else ()
    grads = {}
    for s, g in zip(roots, seeds):
        grads[s] = g if s not in grads else grads[s] + g
    cache = {}  # slot -> shape, shared by this sweep's Rows
    fast_add = not create_graph and all(type(g._data) is np.ndarray for g in seeds)
    use_diag = False
    if fast_add and nb == 1:  # per-sample seeds (eye(B) over B losses) stay diagonal
        for o, s in zip(outputs, roots):
            dg = diag.diag_seed(grads[s], o.shape)
            if dg is not None:
                grads[s], use_diag = dg, True
    # nothing recorded: elementwise rules run on NumPy arrays, IEEE inf/nan as the kernels
    with set_grad_enabled(create_graph), np.errstate(all="ignore"):
        for k, (outs, ins, code, rg) in rows:
            gouts = [grads.get(s) for s in outs]
            if all(g is None for g in gouts):  # (not list.count: Tensor == is an op)
                continue
            name = OPS[code].name
            row = Row(k, name, nb, bshape, outs, ins, cache, rg)
            gins = None
            if use_diag and any(isinstance(g, diag.Diag) for g in gouts):
                if len(gouts) == 1:
                    gins = diag.vjp(row, gouts[0])
                if gins is None:
                    gouts = [g.dense() if isinstance(g, diag.Diag) else g for g in gouts]
            if gins is not None:
                pass
            elif name == "custom":
                gins = _custom(row, gouts, create_graph)
            else:
                gins = (DVJP.get(name) or vjp_of(name))(row, *gouts)
            for s, g, w in zip(ins, gins, rg):
                if g is None or not w:
                    continue
                if s not in grads:
                    grads[s] = g
                elif use_diag and (isinstance(g, diag.Diag) or isinstance(grads[s], diag.Diag)):
                    grads[s] = diag.add(grads[s], g)
                elif fast_add and type(g._data) is np.ndarray:
                    grads[s] = Tensor._make(grads[s]._data + g._data, -1, False)
                else:
                    grads[s] = grads[s] + g
    if use_diag:  # only the wanted gradients are read: densify those, drop the rest
        grads = {
            s: g.dense() if isinstance(g, diag.Diag) else g
            for s, g in grads.items()
            if wanted is None or s in wanted
        }
    if not retain_graph:
        for k, _ in rows:
            if T.R[k, R_SAVED] == SAVES_LIVE:
                T.R[k, R_SAVED] = SAVES_FREED
                sv = T.saved[k]
                if OPS[int(T.R[k, R_CODE])].name == "custom":
                    sv.release()
                else:
                    T.saved[k] = None
    return grads


def _custom(row, gouts, create_graph):
    """A custom Function's Python backward; a batch of cotangents runs it per element."""
    from .engine import SECOND_BACKWARD, _check_custom

    outs, ins, nb, bshape = row.outs, row.ins, row.nb, row.bshape
    ctx = TAPE.saved[row.k]
    if ctx.freed:
        raise RuntimeError(SECOND_BACKWARD)
    filled = [
        g if g is not None else (row.zeros(s) if ctx.materialize_grads else None)
        for s, g in zip(outs, gouts)
    ]
    if nb == 0:
        return _custom_one(ctx, row, filled, ins, create_graph, _check_custom)
    from ..ops.joins import stack

    per = [
        _custom_one(
            ctx,
            row,
            [g[b] if g is not None else None for g in filled],
            ins,
            create_graph,
            _check_custom,
        )
        for b in range(bshape[0])
    ]
    out = []
    for j, s in enumerate(ins):
        col = [p[j] for p in per]
        if all(c is None for c in col):
            out.append(None)
            continue
        zero = np.zeros(row.shape(s), row.dtype(s).np)
        out.append(stack([c if c is not None else Tensor._make(zero, -1, False) for c in col]))
    return out


def _custom_one(ctx, row, grads, ins, create_graph, check):
    ctx.in_graph = create_graph
    try:
        with set_grad_enabled(create_graph):
            res = ctx.fn_cls.backward(ctx, *grads)
    finally:
        ctx.in_graph = False
    res = res if isinstance(res, tuple) else (res,)
    check(ctx, res)
    out = []
    for j, pos in enumerate(ctx.tensor_positions):
        g = res[pos]
        if g is None:
            out.append(None)
            continue
        shape = row.shape(ins[j])
        if tuple(g.shape) != shape:
            from .engine import _sum_to

            _sum_to(np.empty(g.shape, np.int8), shape, ctx.node_name, pos)  # the shape check
            g = sum_to(g, shape, 0)
        out.append(g.to(row.dtype(ins[j])))
    return out


def as_seed(g, out, nb):
    """A cotangent as a Tensor of out's dtype (with `nb` batch dims)."""
    if g.dtype != out.dtype:
        g = g.to(out.dtype)
    return g


__all__ = ["needed_rows", "run"]
