"""backward() and grad(): validate in Python, then plan + ONE compiled sweep.

The sweep returns to Python only at rows of custom Functions (their backward is Python).
Leaves' gradient buffers are supplied here: an existing `.grad` is accumulated into in
place (as PyTorch does), otherwise a fresh array becomes the new `.grad` with no copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nbgrad._array import contig

from .. import _versions as versions
from .._atomic import deferred, interruptible
from .._mt import CRITICAL, MT, register
from .._optable import BY_NAME, CUSTOM
from ..backends.cpu import dispatch
from ..backends.cpu import walk as _walk  # noqa: F401  (see below)
from ..backends.cpu.memory import address
from ..backends.cpu.plan import accumulate, finish, plan, read
from ..backends.cuda.record import ACTIVE as _CUDA_ACTIVE
from ..backends.cuda.record import CUDA_DT
from ..tape import R_CODE, R_IPOS, R_NIN, R_NOUT, S_DT, S_NDIM, S_PROD, S_SHAPE, TAPE
from ..tensor import _ENGINE as _TENSOR_BACKWARD
from ..tensor import Tensor
from . import hooks, node, saved_hooks, version_check
from .grad_mode import no_grad

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
_CUSTOM_CODE = BY_NAME[CUSTOM].code
# _walk (graph.py's kernel) is imported above, not on first use: `import nbgrad` points
# Numba's cache at nbgrad's own directory while kernels are defined (later, in the tree)
_EMPTY = np.empty(0, np.int64)
_CTX = np.zeros(dispatch.CTX_LEN, np.int64)
_NO_ARENA = np.empty(0, np.uint8)


def _one(char):
    a = np.ones(1, char)
    a.flags.writeable = False  # shared by every implicit seed of this dtype
    return a


_ONE = {c: _one(c) for c in "efdbhilqBHILQ?"}


def _tuple(x):
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _seeds(outputs, grad_outputs):
    """PyTorch's checks on (outputs, grad_outputs); returns float arrays to seed with."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(grad_outputs)} tensors and {len(outputs)} gradients")
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(out, Tensor):
            raise TypeError(f"outputs must be Tensors, got {type(out).__name__}")
        if not out._rg:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        if g is None:
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            one = _ONE.get(out._data.dtype.char)
            seeds.append(one if one is not None else np.ones(1, out._data.dtype))
            continue
        if not isinstance(g, Tensor):
            from ..ops.pointwise import is_scalar

            if is_scalar(g):
                g = Tensor._make(np.asarray(g, out._data.dtype), -1, False)
            else:
                raise TypeError(
                    f"gradients can be either Tensors or None, but got {type(g).__name__}"
                )
        if g._data.shape != out._data.shape:
            from .._size import Size

            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)} "
                f"and output[{i}] has a shape of {Size(out._data.shape)}."
            )
        if g.is_cuda or out.is_cuda:  # the CUDA sweep copies it to the output's device
            seeds.append(g._data if g.is_cuda else g._data.astype(out._data.dtype))
            continue
        seeds.append(contig(g._data, dtype=out._data.dtype).reshape(-1))
    return seeds


def _slot(t):
    return t._slot if t._slot >= 0 else TAPE.leaf_slot(t)


_DEPTH = [0]  # backward passes running (> 1: one inside a custom Function's backward)


def _run(outputs, seeds, retain_graph, wanted_tensors, locked=False):
    """One backward pass. `wanted_tensors`: tensors whose gradients to return (None:
    accumulate into watched leaves' .grad, as .backward() does). Returns {slot: ndarray}.

    The pass holds the tape's lock (other threads' ops wait for it: they would share its
    scratch) and Ctrl-C is deferred except inside user code and kernel compilation, so the
    scratch is always cleared for the next pass. `locked`: the caller holds both already
    (taking them again costs ~0.7 us, a tenth of a small graph's backward)."""
    if not locked:
        with TAPE.guard(), deferred():
            return _depth(outputs, seeds, retain_graph, wanted_tensors)
    return _depth(outputs, seeds, retain_graph, wanted_tensors)


def _depth(outputs, seeds, retain_graph, wanted_tensors):
    if not _DEPTH[0]:
        _DEPTH[0] = 1
        try:
            return _pass(outputs, seeds, retain_graph, wanted_tensors)
        finally:
            _DEPTH[0] = 0
    T = TAPE  # a pass inside a custom Function's backward: its own scratch
    outer = T.push_scratch()
    _DEPTH[0] += 1
    try:
        return _pass(outputs, seeds, retain_graph, wanted_tensors)
    finally:
        _DEPTH[0] -= 1
        T.pop_scratch(outer)


def _pass(outputs, seeds, retain_graph, wanted_tensors):
    T = TAPE
    roots = np.array([_slot(o) for o in outputs], np.int64)
    restrict = wanted_tensors is not None
    wanted = None
    if restrict:
        wanted_tensors = {_slot(t): t for t in wanted_tensors}
        wanted = list(wanted_tensors)
    ins = np.array(wanted, np.int64) if restrict else _EMPTY
    arena = T.arena
    T.arena = _NO_ARENA  # a nested backward (inside a custom Function) gets its own
    rows, arena, used, leaves, freed, missing, oldest, custom = plan(
        T.R, T.I, T.S, T.n, roots, ins, restrict, T.gaddr, T.ginit, dispatch.FN, T.mark, arena,
        _CUSTOM_CODE,
    )  # fmt: skip
    try:
        if freed >= 0:
            raise RuntimeError(SECOND_BACKWARD)
        if missing.size:
            dispatch.ensure([(int(m) // 2, int(m) % 2) for m in missing if m // 2 != _CUSTOM_CODE])
        # before any kernel runs: saved values written in place since (one comparison when
        # no write happened after the oldest row), leaves whose value changed shape
        if versions.LAST[0] > oldest >= 0:
            version_check.check(rows)
        if saved_hooks.PACKED:  # values packed by saved-tensor hooks: unpack them now
            saved_hooks.unpack_rows(rows)
        cuda = _CUDA_ACTIVE[0] and (T.R[rows, 1] >= CUDA_DT).any()  # a graph with CUDA rows
    except BaseException:
        T.gaddr[used] = 0
        T.arena = arena
        raise
    if cuda:
        from ..backends.cuda import sweep

        if not restrict:
            try:
                _check_leaves(leaves)
            except BaseException:
                T.gaddr[used] = 0
                T.arena = arena
                raise

        wt = wanted_tensors if restrict else None
        return sweep.run(
            outputs, roots, seeds, retain_graph, wt, rows, arena, used, leaves, CudaSweepNeeds
        )
    result = {}
    done = False
    T.pinned += 1  # a custom Function's backward may record: rows must not be renumbered
    try:
        result = _sweep(rows, roots, seeds, restrict, wanted_tensors, wanted, leaves, custom)
        done = True
    finally:
        # freed only after a whole pass: one stopped by an error or Ctrl-C leaves the graph
        # as it was (a retry works) rather than half freed
        freed_rows = finish(T.R, T.gaddr, T.ginit, used, leaves, rows, done and not retain_graph)
        if freed_rows.size:
            _free(freed_rows, custom)
        T.arena = arena  # kept for the next pass (results were copied out of it)
        T.unpin()  # (after `rows` was used: a custom backward that grew the tape compacts it)
    return result


def _lend(s, g, written):
    """Let a lone root's VJP read its gradient from the seed `g` itself, not a copy (a 16
    MB `y.backward(g)` spent 2.5 ms copying). Safe where only reads reach it: a root that
    is not a leaf is an input of no row of its own graph, so only its producer's VJP reads
    its gradient, and no VJP writes its outputs' gradients (tests/opinfo checks every op);
    hooks and custom backwards, which may, are excluded by the caller. `g` must not
    overlap a leaf buffer the pass writes (`y.backward(x.grad)`). (The caller copies a
    1-element seed, perhaps the shared implicit one: that costs nothing.)"""
    T = TAPE
    if T.S[s, S_PROD] < 0 or not T.gaddr[s] or not g.flags.aligned:
        return False
    for a in written:
        if a is not None and np.may_share_memory(a, g):
            return False
    T.gaddr[s] = address(g)
    T.ginit[s] = 1
    return True


def _sweep(rows, roots, seeds, restrict, wanted_tensors, wanted, leaves, custom):
    """Supply leaf buffers, seed the roots, run the compiled sweep (returning to Python at
    custom Functions' rows) and collect the results."""
    T = TAPE
    # Python that runs inside the pass (hooks, custom backwards) may raise: leaves then get
    # fresh buffers, added to .grad once the whole pass is done (a failed pass leaves it)
    # (node hooks count only on this graph's rows: a dead graph's stay until compaction)
    nodes = hooks.NODES[0] and bool(node.hooked_positions(rows))
    fresh = T.hooks or nodes or custom
    result = {}
    inplace = []  # existing .grad arrays the sweep adds into
    # leaf buffers: the leaf tensors know their shapes (no slot-table reads)
    for s in leaves.tolist():
        if restrict:
            t = wanted_tensors.get(s)
            if t is None:
                T.gaddr[s] = 0
                continue
            buf = np.empty(t._data.shape, t._data.dtype)
            result[s] = buf
        else:
            ref = T.watch.get(s)
            t = ref() if ref is not None else None
            if t is None or not t._rg:
                T.gaddr[s] = 0
                continue
            a = t._aux
            g = None if a is None else a[0]
            d = t._data
            if t._slot != s:  # `.data` was replaced since: the gradient is of the recorded
                shape, dt = _shape_dtype(s)  # value (its dtype may differ)
                check_leaf(t, shape)
                buf = result[s] = np.empty(shape, dt)
                T.gaddr[s] = address(buf)
                T.ginit[s] = 0
                continue
            gd = None if g is None else g._data
            if gd is not None and gd.shape != d.shape:  # (a `.grad.data =` of another shape)
                raise _size_error(gd.shape, d.shape)
            if (
                gd is not None
                and not fresh
                and gd.flags.writeable
                and gd.base is None
                and gd.shape == d.shape
                and gd.dtype == d.dtype
            ):
                T.gaddr[s] = address(gd)
                T.ginit[s] = 1
                result[s] = None  # accumulated in place
                inplace.append(gd)
                continue
            buf = np.empty(d.shape, d.dtype) if g is not None else hooks.new_grad_buffer(t, d)
            result[s] = buf
        T.gaddr[s] = address(buf)
        T.ginit[s] = 0
    lent = False
    if not fresh and roots.size == 1 and seeds[0].size > 1:
        lent = _lend(roots[0], seeds[0], [*result.values(), *inplace])
    for s, g in zip(roots.tolist(), seeds):
        if T.gaddr[s] and not lent:
            accumulate(T.gaddr, T.ginit, T.S, s, g)
    ctx_arr = _CTX if _DEPTH[0] == 1 else np.zeros(dispatch.CTX_LEN, np.int64)
    dispatch.pack(ctx_arr, T.R, T.I, T.F, T.S, T.gaddr, T.ginit, rows)
    ctx = address(ctx_arr)
    stops = _hook_stops(rows) if T.hooks else None  # positions of rows making hooked slots
    i = 0
    if nodes or hooks.ANOMALY[0]:  # node hooks, anomaly mode: stepped.py runs it
        from .stepped import sweep as stepped

        i = stepped(rows, stops, ctx_arr)
    while i < rows.size:
        part = rows[: stops[0]] if stops else rows
        i = dispatch.sweep(T.R, part, dispatch.FN, ctx, i, _CUSTOM_CODE)
        if i < -1:
            raise AssertionError(f"internal error: no VJP compiled for row {rows[-2 - i]}")
        if i < 0:
            if not stops:
                break
            i = stops.pop(0)  # the outputs' gradients of row rows[i] are complete
            _slot_hooks(int(rows[i]))
        else:
            _run_custom(int(rows[i]))
            i += 1
        # Python ran (possibly recording, even a nested backward): tape arrays may have
        # been reallocated, so describe them afresh before resuming
        dispatch.pack(ctx_arr, T.R, T.I, T.F, T.S, T.gaddr, T.ginit, rows)
    if T.hooks:  # a leaf's hooks: its whole gradient, before .grad takes it
        for s in leaves.tolist():
            if s in T.hooks and T.gaddr[s] and T.ginit[s]:
                _apply_hooks(s)
    if restrict:
        for s in wanted:
            if s in result:
                continue
            if T.gaddr.item(s) and T.ginit.item(s):
                shape, dt = _shape_dtype(s)
                buf = np.empty(shape, dt)
                read(T.gaddr, T.ginit, T.S, s, buf.reshape(-1))
                result[s] = buf
        for s in list(result):
            if not T.ginit[s]:
                del result[s]
    else:
        for s in list(result):
            if not T.ginit[s]:
                del result[s]
        _retained(result)
    return result


def _size_error(a, b):
    """PyTorch's error for a gradient of shape `b` meeting a tensor (or .grad) of shape `a`."""
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            return RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {max(len(a), len(b)) - i}"
            )
    return RuntimeError(
        f"Function AccumulateGrad returned an invalid gradient at index 0 - got {list(b)} but "
        f"expected shape compatible with {list(a)}"
    )


def check_leaf(t, shape):
    """A gradient of `shape` may reach leaf `t`: its value and its .grad have that shape."""
    if t._data.shape != shape:
        raise _size_error(t._data.shape, shape)
    g = t._grad
    if g is not None and g._data.shape != shape:
        raise _size_error(g._data.shape, shape)


def _check_leaves(leaves):
    """Before a sweep: the watched leaves it reaches can take their gradients (a leaf's
    `.data` or `.grad` may have been replaced by one of another shape since recording)."""
    T = TAPE
    for s in leaves.tolist():
        ref = T.watch.get(s)
        t = ref() if ref is not None else None
        if t is None or not t._rg:
            continue
        g = t._grad
        if t._slot != s:
            check_leaf(t, _shape_dtype(s)[0])
        elif g is not None and g._data.shape != t._data.shape:
            raise _size_error(g._data.shape, t._data.shape)


def _hook_stops(rows):
    """Positions in `rows` of the rows that produced slots with gradient hooks."""
    T = TAPE
    hooked = np.array([s for s, h in T.hooks.items() if h], np.int64)
    prods = T.S[hooked, S_PROD] if hooked.size else _EMPTY
    return np.flatnonzero(np.isin(rows, prods[prods >= 0])).tolist()


def _slot_hooks(k):
    """Before row k's VJP: the gradient hooks of its outputs."""
    T = TAPE
    p = int(T.R[k, R_IPOS])
    for j in range(int(T.R[k, R_NOUT])):
        s = int(T.I[p + j])
        if s in T.hooks and T.gaddr[s] and T.ginit[s]:
            _apply_hooks(s)


def _apply_hooks(s):
    """Run slot s's gradient hooks on its gradient; store what they return in its place."""
    T = TAPE
    shape, dt = _shape_dtype(s)
    buf = np.empty(shape, dt)
    read(T.gaddr, T.ginit, T.S, s, buf.reshape(-1))
    g = Tensor._make(buf, -1, False)
    with no_grad(), interruptible():
        r = hooks.run_gradient_hooks(T.hooks[s], g)
    if r is None:  # dropped by an AccumulateGrad pre hook: no gradient
        T.ginit[s] = 0
    elif r is not g:
        T.ginit[s] = 0
        accumulate(T.gaddr, T.ginit, T.S, s, contig(r._data, dtype=dt).reshape(-1))


def _retained(result):
    """Gradients of non-leaf tensors that asked for them with retain_grad()."""
    T = TAPE
    for s in list(T.retained):  # (not every watched leaf: a backward costs O(graph))
        if s in T.watch and T.S[s, S_PROD] >= 0 and T.gaddr[s] and T.ginit[s]:
            shape, dt = _shape_dtype(s)
            buf = np.empty(shape, dt)
            read(T.gaddr, T.ginit, T.S, s, buf.reshape(-1))
            result[s] = buf


def _free(rows, custom=True):
    """Drop freed rows' saved values (`custom`: whether a custom Function's row may be
    among them; its context is released too)."""
    T = TAPE
    if saved_hooks.PACKED:
        saved_hooks.drop(rows)
    if not custom:  # (the common case: no ~7 us of fancy indexing to find none)
        T.saved[rows] = None
        return
    custom = T.R[rows, R_CODE] == _CUSTOM_CODE
    if custom.any():
        for k in rows[custom].tolist():
            T.saved[k].release()
        rows = rows[~custom]
    T.saved[rows] = None


def _shape_dtype(s):
    S = TAPE.S  # (item(): a NumPy scalar per read cost ~1 us in all)
    nd = S.item(s, S_NDIM)
    dt = np.float32 if S.item(s, S_DT) == 0 else np.float64
    return tuple(S[s, S_SHAPE : S_SHAPE + nd].tolist()), dt


def _run_custom(k):
    """Run a custom Function's Python backward for row k and scatter its gradients."""
    T = TAPE
    ctx = T.saved[k]
    if ctx.freed:
        raise RuntimeError(SECOND_BACKWARD)
    p = T.R[k, R_IPOS]
    no, ni = T.R[k, R_NOUT], T.R[k, R_NIN]
    grads = []
    for j in range(no):
        s = int(T.I[p + j])
        shape, dt = _shape_dtype(s)
        if T.gaddr[s] and T.ginit[s]:
            buf = np.empty(shape, dt)
            read(T.gaddr, T.ginit, T.S, s, buf.reshape(-1))
            grads.append(Tensor._make(buf, -1, False))
        elif ctx.materialize_grads:
            grads.append(Tensor._make(np.zeros(shape, dt), -1, False))
        else:
            grads.append(None)
    with no_grad(), interruptible():
        res = ctx.run_backward(grads)
    name = ctx.node_name
    for j, pos in enumerate(ctx.tensor_positions):
        s = int(T.I[p + no + j])
        g = res[pos]
        if g is None or not T.gaddr[s]:
            continue
        shape, dt = _shape_dtype(s)
        gd = g._data
        if gd.shape != shape:
            gd = _sum_to(gd, shape, name, pos)
        accumulate(T.gaddr, T.ginit, T.S, s, contig(gd, dtype=dt).reshape(-1))
    assert ni == len(ctx.tensor_positions)


def _sum_axes(gshape, shape, name, pos):
    """The axes to sum a gradient of `gshape` over to reach `shape` (which must broadcast
    to it; else PyTorch's error). The CUDA sweep checks custom gradients with it too."""
    lead = len(gshape) - len(shape)
    ok = lead >= 0 and all(s == gs or s == 1 for s, gs in zip(shape, gshape[lead:]))
    if not ok:
        raise RuntimeError(
            f"Function {name} returned an invalid gradient at index {pos} - got "
            f"{list(gshape)} but expected shape compatible with {list(shape)}"
        )
    return tuple(range(lead)) + tuple(
        lead + i for i, (s, gs) in enumerate(zip(shape, gshape[lead:])) if s == 1 and gs != 1
    )


class CudaSweepNeeds:
    """What the CUDA sweep (`backends/cuda/sweep.py`) needs from the engine, handed to it:
    backends import nothing from autograd."""

    custom_code = _CUSTOM_CODE
    second_backward = SECOND_BACKWARD
    run_custom = staticmethod(_run_custom)
    as_tensor = staticmethod(lambda buf: _cuda_tensor(buf))  # a gradient buffer as a tensor
    free = staticmethod(_free)
    sum_axes = staticmethod(_sum_axes)


def _sum_to(g, shape, name, pos):
    """Sum a gradient down to `shape` if `shape` broadcasts to it; else PyTorch's error."""
    axes = _sum_axes(g.shape, shape, name, pos)
    return np.add.reduce(g, axis=axes, keepdims=True).reshape(shape) if axes else g.reshape(shape)


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
    grad_variables: Any = None,
) -> None:
    """Accumulate d(sum of tensors . grad_tensors)/d(leaf) into each leaf's .grad."""
    args = (tensors, grad_tensors, retain_graph, create_graph, inputs, grad_variables)
    if hooks.MULTI and not hooks._PASS[1]:  # multi-grad hooks: one bracketed pass
        return hooks.multi_pass(backward, *args)
    if hooks.POST or hooks.ACC[0]:  # post-accumulate-grad, AccumulateGrad hooks
        return hooks.around(_backward, *args)
    _backward(*args)


_TENSOR_BACKWARD[0] = backward  # Tensor.backward's entry point (tensor.py sits below)


def _backward(tensors, grad_tensors, retain_graph, create_graph, inputs, grad_variables):
    outputs = _tuple(tensors)
    if grad_tensors is None and grad_variables is not None:
        grad_tensors = grad_variables
    grads = _tuple(grad_tensors) if grad_tensors is not None else None
    if grads is not None and len(grads) != len(outputs):
        raise RuntimeError(f"got {len(grads)} tensors and {len(outputs)} gradients")
    seeds = _seeds(outputs, grads)
    retain = bool(retain_graph) if retain_graph is not None else create_graph
    if create_graph:
        ins = _tuple(inputs) if inputs is not None else None
        if ins is not None and not ins:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        _backward_graph(outputs, grads, retain, ins)
        return
    # the slots of the result still name the same leaves, and .grad accumulation is not
    # interleaved with another thread's: under the tape's lock once several threads use
    # nbgrad, else lock-free (this frame is CRITICAL: a second thread waits for it, see
    # _mt.py; the lock costs ~1% of a small graph's backward). Ctrl-C comes after it.
    register()
    if MT.on:
        with TAPE.lock, deferred():
            _backward_pass(outputs, seeds, retain, inputs)
    else:
        with deferred():
            _backward_pass(outputs, seeds, retain, inputs)


CRITICAL.add(_backward.__code__)


def _backward_pass(outputs, seeds, retain, inputs):
    if inputs is not None:
        ins = _tuple(inputs)
        if not ins:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        res = _run(outputs, seeds, retain, ins, True)
        for t in ins:
            buf = res.get(t._slot)
            if buf is not None:
                _accumulate_grad(t, buf)
        return
    res = _run(outputs, seeds, retain, None, True)
    for s, buf in res.items():
        ref = TAPE.watch.get(s)
        t = ref() if ref is not None else None
        if t is None:
            continue
        if buf is None:  # accumulated into .grad in place by the sweep
            versions.bump(t._grad._data)
        else:
            _accumulate_grad(t, buf)


def _seed_tensors(outputs, grad_outputs, nb):
    """Cotangents as Tensors (kept as given, so a seed that requires grad stays in the
    graph); implicit ones for scalar outputs."""
    seeds = []
    if grad_outputs is not None and len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(grad_outputs)} tensors and {len(outputs)} gradients")
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise TypeError(f"outputs must be Tensors, got {type(out).__name__}")
        if not out._rg:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        g = grad_outputs[i] if grad_outputs is not None else None
        if g is None:
            if nb:
                raise RuntimeError(
                    "If `is_grads_batched=True`, we interpret the first dimension of each "
                    "grad_output as the batch dimension. The sizes of the remaining dimensions "
                    "are expected to match the shape of corresponding output, but a mismatch "
                    f"was detected: grad_output[{i}] is None"
                )
            g = Tensor._make(np.ones(out._data.shape, out._data.dtype), -1, False)
        elif not isinstance(g, Tensor):
            g = Tensor._make(np.full(out._data.shape, g, out._data.dtype), -1, False)
        if nb and tuple(g.shape[1:]) != tuple(out.shape):
            from .._size import Size

            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions "
                "are expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {Size(g.shape)} and output[{i}] "
                f"has a shape of {Size(out.shape)}. If you only want some tensors in "
                "`grad_output` to be considered batched, consider using vmap."
            )
        if g.dtype != out.dtype:
            g = g.to(out.dtype)
        seeds.append(g)
    return seeds


def _backward_graph(outputs, grads, retain, ins):
    """backward(create_graph=True): gradients are recorded ops, accumulated out of place
    into .grad (so they can be differentiated again), as PyTorch does."""

    with TAPE.guard():  # the leaves named by the result's slots stay the same
        _backward_graph_locked(outputs, grads, retain, ins)


def _backward_graph_locked(outputs, grads, retain, ins):
    from . import graph

    for o in outputs:
        _slot(o)
    seeds = _seed_tensors(outputs, grads, 0)
    wanted = {_slot(t) for t in ins} if ins is not None else None
    res = graph.run(outputs, seeds, wanted, True, retain, 0)
    if ins is not None:
        targets = [(t._slot, t) for t in ins]
    else:  # by recorded slot: a leaf whose `.data` was replaced since still gets its own
        targets = [(s, r()) for s, r in TAPE.watch.items()]
    for s, t in targets:
        if t is None or s not in res or not t._rg:
            continue
        g = res[s]
        shape = _shape_dtype(s)[0]
        check_leaf(t, shape)
        if tuple(g.shape) != shape:
            g = g.reshape(shape)
        t._grad = g if t._grad is None else t._grad + g


def _as_tensor(buf):
    if type(buf) is np.ndarray:
        return Tensor._make(buf, -1, False)
    return _cuda_tensor(buf)


def _cuda_tensor(buf):
    from ..ops.cuda.tensor import as_tensor

    return as_tensor(buf)


def _accumulate_grad(t, buf):
    if type(buf) is not np.ndarray:
        from ..ops.cuda.tensor import accumulate_grad

        return accumulate_grad(t, buf)
    a = t._aux
    g = None if a is None else a[0]
    if g is None:
        t._grad = Tensor._make(buf, -1, False)
    else:
        gd = g._data
        if gd.shape != buf.shape:
            raise _size_error(gd.shape, buf.shape)
        gd += buf  # (a .grad of another dtype: cast, as PyTorch's accumulation does)
        versions.bump(gd)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    only_inputs=True,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    """Return d(sum of outputs . grad_outputs)/d(input) for each input (the VJP)."""
    if hooks.MULTI and not hooks._PASS[1]:  # multi-grad hooks: one bracketed pass
        return hooks.multi_pass(
            grad, outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs,
            allow_unused, is_grads_batched, materialize_grads,
        )  # fmt: skip
    outs = _tuple(outputs)
    ins = _tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but "
            "got: allow_unused=False."
        )
    for i, t in enumerate(ins):
        if not isinstance(t, Tensor):
            raise TypeError(f"inputs must be Tensors, got {type(t).__name__} at index {i}")
        if not t._rg:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    gouts = _tuple(grad_outputs) if grad_outputs is not None else None
    seeds = None if is_grads_batched else _seeds(outs, gouts)
    retain = bool(retain_graph) if retain_graph is not None else create_graph
    if create_graph or is_grads_batched:
        from . import graph

        nb = 1 if is_grads_batched else 0
        res = graph.run(
            outs, _seed_tensors(outs, gouts, nb), {_slot(t) for t in ins}, create_graph, retain, nb
        )
        res = {
            t._slot: g
            if tuple(g.shape[nb:]) == tuple(t.shape)
            else g.reshape(tuple(g.shape[:nb]) + tuple(t.shape))
            for t in ins
            if (g := res.get(t._slot)) is not None
        }
        bshape = tuple(gouts[0].shape[:1]) if nb else ()
    else:
        res = _run(outs, seeds, retain, ins)
        bshape = ()
    out = []
    for i, t in enumerate(ins):
        buf = res.get(t._slot)
        if isinstance(buf, Tensor):
            out.append(buf)
            continue
        if buf is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            if not materialize_grads:
                out.append(None)
                continue
            from .derivatives import on_device

            out.append(on_device(np.zeros(bshape + t._data.shape, t._data.dtype), t.is_cuda))
        else:
            g = _as_tensor(buf)
            if t.dtype.itemsize == 2:  # float16, bfloat16: float32 buffers (nbgrad/_lowp.py)
                from .._lowp import tag

                g = tag(g, t.dtype)
            out.append(g)
    return tuple(out)


__all__ = ["backward", "grad"]
