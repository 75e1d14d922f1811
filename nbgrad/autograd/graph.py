"""The differentiable sweep: the backward pass as recorded (or batched) nbgrad ops.

`backward`/`grad` normally run the compiled sweep (fused VJP kernels, nothing recorded).
With `create_graph=True` or `is_grads_batched=True` they come here instead: the same rows,
walked newest first in Python, each row's gradient computed by its differentiable VJP
(`derivatives/`). Every such VJP is a handful of whole-tensor ops, so a batch of
cotangents (a leading dim) goes through the graph in ONE sweep, each VJP vectorised over
the batch; with `create_graph` the ops are recorded, so the result can be differentiated
again (double backward, Hessians).

GPU rows take the same path: their VJPs are the same nbgrad ops on CUDA tensors, and a
device move's VJP moves the cotangent back, so a CPU leaf moved to the GPU gets its
gradient on the CPU.
"""

import numpy as np

from .. import _versions as versions
from .._atomic import interruptible
from .._optable import OPS
from ..backends.cpu import walk
from ..tape import (
    R_CODE,
    R_IPOS,
    R_NIN,
    R_NOUT,
    R_SAVED,
    S_PROD,
    SAVES_FREED,
    SAVES_LIVE,
    TAPE,
)
from . import hooks, saved_hooks, version_check
from .derivatives import DVJP, Row, _load, on_device, per_sample, sum_to
from .derivatives.per_sample import Diag
from .grad_mode import set_grad_enabled
from .node import AccumulateGrad, Node  # noqa: F401 - public as torch.autograd.graph.Node

_loaded: list[bool] = []


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


def _walk(roots, stop=(), wanted=None, shapes=None, live=False):
    """[(row, (out slots, in slots, op code, which ins take gradients))], newest first,
    for the rows that produced `roots`, transitively, not walking past `stop` slots (and
    only those on a path down to a `wanted` slot, if given). Each row is decoded once here
    (by one compiled call) and reused by the sweep; `shapes` (a dict) gets their slots'
    shapes. `live`: refuse rows whose saved values a backward freed (a sweep reads them)."""
    T = TAPE
    restrict = wanted is not None
    flat, shp, freed = walk.walk(
        T.R,
        T.I,
        T.S,
        np.array(list(roots), np.int64),
        np.array(list(stop), np.int64),
        np.array(list(wanted) if restrict else (), np.int64),
        restrict,
    )
    if live and freed:
        from .engine import SECOND_BACKWARD

        raise RuntimeError(SECOND_BACKWARD)
    return decode(flat, shp, shapes)


def decode(flat, shp, shapes=None):
    """`walk.walk`'s flat rows as [(row, (outs, ins, code, rg))]; `shapes` (a dict) gets
    the slots' shapes."""
    if shapes is not None:
        shp = shp.tolist()
        q, n = 0, len(shp)
        while q < n:
            e = q + 2 + shp[q + 1]
            shapes[shp[q]] = tuple(shp[q + 2 : e])
            q = e
    flat = flat.tolist()
    out, q, n = [], 0, len(flat)
    while q < n:  # rg flags stay 0/1 ints (read for their truth)
        ni = flat[q + 3]
        a = q + 4
        b = a + flat[q + 2]
        e = b + ni
        q = e + ni
        out.append((flat[a - 4], (flat[a:b], flat[b:e], flat[a - 3], tuple(flat[e:q]))))
    return out


def ancestor_rows(roots, stop=()):
    """The set of rows that produced `roots`, transitively, not walking past `stop` slots."""
    return {k for k, _ in _walk(roots, stop)}


def needed_rows(roots, wanted=None):
    """Rows on a path from `roots` down (to a `wanted` slot, if given), newest first."""
    return [k for k, _ in _walk(roots, (), wanted)]


def run(outputs, seeds, wanted, create_graph, retain_graph, nb):
    """Backward from `outputs` seeded with `seeds` (Tensors: `nb` batch dims + shape).

    Returns {slot: gradient Tensor} for every slot reached (leaves and non-leaves)."""
    _ensure_loaded()
    with TAPE.pin():  # VJPs recording rows must not renumber the rows being walked
        return _run(outputs, seeds, wanted, create_graph, retain_graph, nb)


def _on_device_of(g, out):
    """A cotangent on its output's device (implicit ones are made on the host), as the
    compiled sweeps copy it."""
    if g.is_cuda == out.is_cuda:
        return g
    return g.cuda() if out.is_cuda else g.cpu()


def _run(outputs, seeds, wanted, create_graph, retain_graph, nb):
    T = TAPE
    roots = [o._slot for o in outputs]
    cache = {}  # slot -> shape, shared by this sweep's Rows
    rows = _walk(roots, (), wanted, cache, True)
    version_check.check([k for k, _ in rows])
    if saved_hooks.PACKED:  # values packed by saved-tensor hooks: unpack them now
        saved_hooks.unpack_rows([k for k, _ in rows])
    seeds = [_on_device_of(g, o) for g, o in zip(seeds, outputs)]
    bshape = tuple(seeds[0].shape[:nb]) if seeds else ()
    grads = {}
    for s, g in zip(roots, seeds):
        grads[s] = g if s not in grads else grads[s] + g
    fast_add = not create_graph and all(type(g._data) is np.ndarray for g in seeds)
    use_diag = False
    owned = set()  # slots whose gradient array is a sum this sweep made
    if fast_add and nb == 1:  # per-sample seeds (eye(B) over B losses) stay diagonal
        for o, s in zip(outputs, roots):
            dg = per_sample.diag_seed(grads[s], o.shape)
            if dg is not None:
                grads[s], use_diag = dg, True
    hooked = bool(T.hooks) and nb == 0
    stepping = (hooks.NODES[0] or hooks.ANOMALY[0]) and nb == 0  # node hooks, anomaly mode
    if stepping:
        from . import stepped
    # nothing recorded: elementwise rules run on NumPy arrays, IEEE inf/nan as the kernels
    with set_grad_enabled(create_graph), np.errstate(all="ignore"):
        for k, (outs, ins, code, rg) in rows:
            if len(outs) == 1:
                gouts = [grads.get(outs[0])]
                if gouts[0] is None:
                    continue
            else:
                gouts = [grads.get(s) for s in outs]
                if all(g is None for g in gouts):  # (not list.count: Tensor == is an op)
                    continue
            if hooked:  # gradient hooks of the outputs: their gradients are complete here
                gouts = _hooked(outs, gouts, grads)
            name = OPS[code].name
            row = Row(k, name, nb, bshape, outs, ins, cache, rg)
            if stepping:
                gouts = stepped.pre(k, gouts)
                if all(g is None for g in gouts):
                    continue  # node pre hooks dropped every gradient
                if name != "custom":
                    gouts = [row.zeros(s) if g is None else g for s, g in zip(outs, gouts)]
            gins = None
            if use_diag:
                if len(gouts) == 1 and type(gouts[0]) is Diag:
                    gins = per_sample.vjp(row, gouts[0])
                if gins is None and any(type(g) is Diag for g in gouts):
                    gouts = [g.dense() if type(g) is Diag else g for g in gouts]
            if gins is not None:
                pass
            elif name == "custom":
                gins = _custom(row, gouts, create_graph)
            else:
                gins = (DVJP.get(name) or vjp_of(name))(row, *gouts)
            if stepping:
                gins = stepped.post(k, gouts, gins)
            for s, g, w in zip(ins, gins, rg):
                if g is None or not w:
                    continue
                cur = grads.get(s)
                if cur is None:
                    grads[s] = g
                elif fast_add and (use_diag or type(g._data) is np.ndarray):
                    # a sum made here is this sweep's own until s's row reads it (rows
                    # run newest first, so every addend comes before): add in place
                    grads[s] = per_sample.add(cur, g, s in owned)
                    owned.add(s)
                else:
                    grads[s] = cur + g
        if hooked:  # leaves' hooks: their whole gradients
            leaf = [s for s in (grads if wanted is None else wanted)
                    if s in grads and s in T.hooks and T.S[s, S_PROD] < 0]  # fmt: skip
            for s, g in zip(leaf, _hooked(leaf, [grads[s] for s in leaf], grads)):
                grads[s] = g
    if use_diag:  # only the wanted gradients are read: densify those, drop the rest
        grads = {
            s: g.dense() if type(g) is Diag else g
            for s, g in grads.items()
            if wanted is None or s in wanted
        }
    if not retain_graph:
        if saved_hooks.PACKED:
            saved_hooks.drop([k for k, _ in rows])
        for k, _ in rows:
            if T.R[k, R_SAVED] == SAVES_LIVE:
                T.R[k, R_SAVED] = SAVES_FREED
                sv = T.saved[k]
                if OPS[int(T.R[k, R_CODE])].name == "custom":
                    sv.release()
                else:
                    T.saved[k] = None
    return grads


def _hooked(slots, gouts, grads):
    """The gradients `gouts` of `slots` after their gradient hooks (stored in `grads`)."""
    from .hooks import run_gradient_hooks

    out = []
    for s, g in zip(slots, gouts):
        hooks = TAPE.hooks.get(s)
        if hooks and g is not None:
            g = run_gradient_hooks(hooks, g.dense() if type(g) is Diag else g)
            if g is None:  # dropped by an AccumulateGrad pre hook
                grads.pop(s, None)
            else:
                grads[s] = g
        out.append(g)
    return out


def _custom(row, gouts, create_graph):
    """A custom Function's Python backward; a batch of cotangents runs it per element."""
    from .engine import SECOND_BACKWARD

    outs, ins, nb, bshape = row.outs, row.ins, row.nb, row.bshape
    ctx = TAPE.saved[row.k]
    if ctx.freed:
        raise RuntimeError(SECOND_BACKWARD)
    filled = [
        g if g is not None else (row.zeros(s) if ctx.materialize_grads else None)
        for s, g in zip(outs, gouts)
    ]
    if nb == 0:
        return _custom_one(ctx, row, filled, ins, create_graph)
    from ..ops.joins import stack

    per = [
        _custom_one(
            ctx,
            row,
            [g[b] if g is not None else None for g in filled],
            ins,
            create_graph,
        )
        for b in range(bshape[0])
    ]
    out = []
    for j, s in enumerate(ins):
        col = [p[j] for p in per]
        if all(c is None for c in col):
            out.append(None)
            continue
        zero = on_device(np.zeros(row.shape(s), row.dtype(s).np), row.on_cuda(s))
        out.append(stack([c if c is not None else zero for c in col]))
    return out


def _custom_one(ctx, row, grads, ins, create_graph):
    ctx.in_graph = create_graph
    try:
        with set_grad_enabled(create_graph), interruptible():
            res = ctx.run_backward(grads)
    finally:
        ctx.in_graph = False
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


def increment_version(tensor):
    """Bump the version counter of `tensor`'s storage, as an in-place write would
    (PyTorch's `torch.autograd.graph.increment_version`)."""
    for t in tensor if isinstance(tensor, (list, tuple)) else (tensor,):
        versions.bump(t._data)


from .hooks import register_multi_grad_hook  # noqa: E402, F401 - torch.autograd.graph's
from .saved_hooks import (  # noqa: E402 - public as torch.autograd.graph's
    disable_saved_tensors_hooks,
    save_on_cpu,
    saved_tensors_hooks,
)

__all__ = [  # torch.autograd.graph's names (the sweep itself is nbgrad's internals)
    "Node",
    "disable_saved_tensors_hooks",
    "increment_version",
    "register_multi_grad_hook",
    "save_on_cpu",
    "saved_tensors_hooks",
]
