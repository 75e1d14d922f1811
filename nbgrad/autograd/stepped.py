"""The compiled sweep, stopped where Python must look: at rows with node hooks
(`Node.register_prehook` / `register_hook`), and at every row in anomaly mode.

A row with node hooks runs in Python: its outputs' gradients are read into Tensors, the
pre hooks may replace them, its differentiable VJP (the one `create_graph` uses) or its
custom backward computes the gradients of its inputs, the post hooks may replace those,
and they are added into the inputs' buffers; the compiled sweep resumes after the row.
In anomaly mode every other row runs alone in the compiled sweep and its inputs' buffers
are checked for NaN after it (every earlier row was checked, so a NaN there is its).
`engine._sweep` calls this only when `hooks.NODES` or `hooks.ANOMALY` is set."""

import numpy as np

from nbgrad._array import contig

from .._atomic import interruptible
from .._optable import OPS
from ..backends.cpu import dispatch
from ..backends.cpu.memory import address
from ..backends.cpu.plan import accumulate, read
from ..tape import R_CODE, S_RG, TAPE
from ..tensor import Tensor
from . import anomaly_mode, hooks, node
from .grad_mode import no_grad


def sweep(rows, stops, ctx_arr):
    """Run the sweep over `rows` (positions in `stops` first call their slots' gradient
    hooks; the list is emptied). Returns rows.size (where `engine._sweep` resumes)."""
    from . import engine as E

    T = TAPE
    anomaly = hooks.ANOMALY[0]
    slot_stops = set(stops or ())
    if stops:
        stops.clear()
    hooked = set(node.hooked_positions(rows)) if hooks.NODES[0] else set()
    marks = sorted(slot_stops | hooked)
    ctx = address(ctx_arr)
    n, i, m = rows.size, 0, 0
    while i < n:
        if anomaly:
            j = i
        else:
            while m < len(marks) and marks[m] < i:
                m += 1
            j = marks[m] if m < len(marks) else n
        if j > i:  # the rows before the next stop, compiled
            r = dispatch.sweep(T.R, rows[:j], dispatch.FN, ctx, i, E._CUSTOM_CODE)
            if r < -1:
                raise AssertionError(f"internal error: no VJP compiled for row {rows[-2 - r]}")
            if r >= 0:
                E._run_custom(int(rows[r]))
                i = r + 1
                dispatch.pack(ctx_arr, T.R, T.I, T.F, T.S, T.gaddr, T.ginit, rows)
                continue
            i = j
            if i >= n:
                break
        k = int(rows[i])
        if i in slot_stops:
            E._slot_hooks(k)
        name = node._name(k)
        try:
            h = node.hooks_of(k) if i in hooked else None
            if h is not None:
                _python_row(k, name, h, anomaly)
            elif T.R[k, R_CODE] == E._CUSTOM_CODE:
                E._run_custom(k)
                if anomaly:
                    _check_buffers(k, name)
            else:
                dispatch.sweep(T.R, rows[: i + 1], dispatch.FN, ctx, i, E._CUSTOM_CODE)
                if anomaly:
                    _check_buffers(k, name)
        except Exception:
            if anomaly:
                anomaly_mode.warn_forward_trace(k, name)
            raise
        i += 1
        dispatch.pack(ctx_arr, T.R, T.I, T.F, T.S, T.gaddr, T.ginit, rows)
    return n


def _grad(s):
    """Slot s's gradient in this pass as a Tensor (a copy), or None if it has none."""
    from .engine import _shape_dtype

    T = TAPE
    if not (T.gaddr[s] and T.ginit[s]):
        return None
    shape, dt = _shape_dtype(s)
    buf = np.empty(shape, dt)
    read(T.gaddr, T.ginit, T.S, s, buf.reshape(-1))
    return Tensor._make(buf, -1, False)


def _check_buffers(k, name):
    from .graph import _ins

    if not anomaly_mode.is_anomaly_check_nan_enabled():
        return
    anomaly_mode.check_nan(k, name, [_grad(s) for s in _ins(k)[1]])


def _python_row(k, name, node_hooks, anomaly):
    """Row k with its node hooks, in Python (see the module's docstring)."""
    from .engine import _shape_dtype, _sum_to
    from .graph import _ins

    T = TAPE
    outs, ins = _ins(k)
    gouts = tuple(_grad(s) for s in outs)
    if all(g is None for g in gouts):
        return  # (the compiled sweep skips such a row too)
    pre, post = node_hooks
    with no_grad(), interruptible(), np.errstate(all="ignore"):
        for fn in list(pre.values()):
            r = fn(gouts)
            if r is not None:
                gouts = _replaced(fn, gouts, r)
        if all(g is None for g in gouts):
            return  # the hooks dropped every gradient: nothing flows past this row
        if T.R[k, R_CODE] != _custom_code():  # (a custom backward takes None itself)
            gouts = tuple(_zeros(s) if g is None else g for s, g in zip(outs, gouts))
        gins = tuple(_vjp(k, outs, ins, gouts))
        extra = node.scalar_operand(k)  # PyTorch's None input for a scalar operand
        if extra:
            gins += (None,)
        for fn in list(post.values()):
            r = fn(gins, gouts)
            if r is not None:
                gins = _replaced(fn, gins, r)
        if extra:
            gins = gins[:-1]
    if anomaly:
        anomaly_mode.check_nan(k, name, gins)
    custom = T.R[k, R_CODE] == _custom_code()
    for j, (s, g) in enumerate(zip(ins, gins)):
        if g is None or not T.gaddr[s]:
            continue
        shape, dt = _shape_dtype(s)
        gd = g._data
        if gd.shape != shape:
            if not custom:
                raise RuntimeError(
                    f"Function {name} returned an invalid gradient at index {j} - got "
                    f"{list(gd.shape)} but expected shape compatible with {list(shape)}"
                )
            gd = _sum_to(gd, shape, name, T.saved[k].tensor_positions[j])
        accumulate(T.gaddr, T.ginit, T.S, s, contig(gd, dtype=dt).reshape(-1))


def _zeros(s):
    from .engine import _shape_dtype

    shape, dt = _shape_dtype(s)
    return Tensor._make(np.zeros(shape, dt), -1, False)


def _custom_code():
    from .engine import _CUSTOM_CODE

    return _CUSTOM_CODE


def _replaced(fn, old, new):
    """A node hook's replacement for the gradients `old`: a tuple of as many, each a
    Tensor (of the same shape) or None; PyTorch's errors otherwise."""
    if type(new) is not tuple:
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    name = getattr(fn, "__name__", type(fn).__name__)
    if len(new) != len(old):
        raise RuntimeError(
            f"hook '{name}' has returned an incorrect number of values (got {len(new)}, "
            f"but expected {len(old)})"
        )
    for g, o in zip(new, old):
        if g is None:
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(g).__name__}'")
        if o is not None and tuple(g.shape) != tuple(o.shape):
            raise RuntimeError(f"hook '{name}' has changed the size of value")
    return new


def _vjp(k, outs, ins, gouts):
    """Gradients of row k's inputs (one per input, None where it takes none)."""
    from .engine import _CUSTOM_CODE, SECOND_BACKWARD
    from .graph import Row, _ensure_loaded, vjp_of

    T = TAPE
    if T.R[k, R_CODE] == _CUSTOM_CODE:
        ctx = T.saved[k]
        if ctx.freed:
            raise RuntimeError(SECOND_BACKWARD)
        from .engine import _shape_dtype

        full = []
        for s, g in zip(outs, gouts):
            if g is None and ctx.materialize_grads:
                shape, dt = _shape_dtype(s)
                g = Tensor._make(np.zeros(shape, dt), -1, False)
            full.append(g)
        res = ctx.run_backward(full)
        return [res[pos] for pos in ctx.tensor_positions]
    _ensure_loaded()
    name = OPS[int(T.R[k, R_CODE])].name
    rg = tuple(T.S.item(s, S_RG) != 0 for s in ins)
    gins = vjp_of(name)(Row(k, name, 0, (), outs, ins, None, rg), *gouts)
    return [g if w else None for g, w in zip(gins, rg)]


# -- the differentiable sweep (create_graph): rows already run in Python one by one ---------


def pre(k, gouts):
    """Row k's gradients of its outputs after its node pre hooks."""
    h = node.hooks_of(k) if hooks.NODES[0] else None
    if h is None or not h[0]:
        return gouts
    gouts = tuple(gouts)
    for fn in list(h[0].values()):
        r = fn(gouts)
        if r is not None:
            gouts = _replaced(fn, gouts, r)
    return list(gouts)


def post(k, gouts, gins):
    """Row k's gradients of its inputs after its node post hooks (and anomaly's check)."""
    h = node.hooks_of(k) if hooks.NODES[0] else None
    if h is not None and h[1]:
        extra = node.scalar_operand(k)  # PyTorch's None input for a scalar operand
        gins = tuple(gins) + ((None,) if extra else ())
        for fn in list(h[1].values()):
            r = fn(gins, tuple(gouts))
            if r is not None:
                gins = _replaced(fn, gins, r)
        if extra:
            gins = gins[:-1]
    if hooks.ANOMALY[0]:
        try:
            anomaly_mode.check_nan(k, node._name(k), gins)
        except RuntimeError:
            anomaly_mode.warn_forward_trace(k, node._name(k))
            raise
    return gins
