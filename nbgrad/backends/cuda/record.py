"""Recording CUDA ops on the (one, shared) tape.

A CUDA row is an ordinary row whose dtype column holds `CUDA_DT + dtype` (2: float32,
3: float64), so the CPU planner walks it like any other while the CPU sweep never runs
it (`autograd/engine.py` hands graphs with CUDA rows to `backends/cuda/sweep.py`).
A CUDA slot's address column holds a *device* pointer: only CUDA rows, whose VJPs are
launched from Python with device arrays, ever use it; no compiled CPU code reads the
address of a slot that a CUDA row produced or consumed.
"""

import numpy as np
from numba import njit

from ..._atomic import deferred
from ...autograd.grad_mode import STATE
from ...tape import (
    D_BYTES,
    D_SEQ,
    MAXD,
    R_SEQ,
    SAVES_LIVE,
    SAVES_NONE,
    TAPE,
    _row_header,
    set_device_slot,
    too_many_dims,
)

CUDA_DT = 2
ACTIVE = [False]  # set once a CUDA row was recorded: backward then looks for CUDA rows
_DT = {"f": 0, "d": 1}


@njit(cache=True, error_model="numpy")
def _record(R, I, F, S, k, ipos, fpos, code, rdt, nout, nin, payload, fattrs, saves, desc):
    _row_header(R, k, code, rdt, nout, nin, ipos, payload.size, fpos, fattrs.size, saves)
    R[k, R_SEQ] = desc[D_SEQ]  # see tape.R_SEQ
    desc[D_SEQ] += 1
    I[ipos : ipos + payload.size] = payload
    F[fpos : fpos + fattrs.size] = fattrs


def set_slot(s, arr, rg, prod):
    if arr.ndim > MAXD:
        too_many_dims(arr.ndim)
    set_device_slot(TAPE.S, s, arr, rg, prod)


def slot_of(t):
    s = t._slot
    return s if s >= 0 else TAPE.leaf_slot(t)


def needs_record(ins):
    return STATE.enabled and any(t._rg for t in ins)


def record(code, out, ins, iattrs=(), fattrs=(), saved=None, dt=None):
    """Record a CUDA row producing `out` (a CudaArray, or a host array for `.cpu()`) from
    tensors `ins`; return the output's new slot. `saved` is kept alive with the row."""
    ACTIVE[0] = True
    with TAPE.guard(), deferred():  # the row is appended as one step
        return _record_row(code, out, ins, iattrs, fattrs, saved, dt)


def _record_row(code, out, ins, iattrs, fattrs, saved, dt):
    in_slots = tuple(slot_of(t) for t in ins)
    s = TAPE.new_slot()
    payload = np.array((s,) + in_slots + tuple(iattrs), np.int64)
    fa = np.array(fattrs, np.float64)
    TAPE.reserve(payload.size, fa.size)
    k = TAPE.n
    dt = _DT[out.dtype.char] if dt is None else dt
    saves = SAVES_NONE if saved is None else SAVES_LIVE
    T = TAPE
    _record(
        T.R,
        T.I,
        T.F,
        T.S,
        k,
        T.ipos,
        T.fpos,
        code,
        CUDA_DT + dt,
        1,
        len(ins),
        payload,
        fa,
        saves,
        T.desc,
    )
    if isinstance(out, np.ndarray):  # .cpu(): a host output
        from ...tape import _set_slot as _set_host_slot

        _set_host_slot(T.S, s, out, dt, 1, k)
    else:
        set_slot(s, out, 1, k)
    T.saved[k] = saved
    if saved is not None:  # see tape.SAVED_BYTES_LIMIT
        T.desc[D_BYTES] += out.size * out.dtype.itemsize
    T.n = k + 1
    T.ipos += payload.size
    T.fpos += fa.size
    return s


def record_custom(code, outs, in_slots, ctx):
    """A custom Function's row with CUDA outputs `outs` (CudaArrays): the GPU sweep hands
    it to Python (`sweep.run_custom`). Returns the outputs' new slots."""
    ACTIVE[0] = True
    with TAPE.guard(), deferred():  # the row is appended as one step
        return _record_custom_row(code, outs, in_slots, ctx)


def _record_custom_row(code, outs, in_slots, ctx):
    T = TAPE
    out_slots = tuple(T.new_slot() for _ in outs)
    payload = np.array(out_slots + tuple(in_slots), np.int64)
    T.reserve(payload.size, 0)
    k = T.n
    saves = SAVES_LIVE if ctx.to_save else SAVES_NONE  # nothing to free: may run again
    dt = CUDA_DT + _DT[outs[0].dtype.char]
    _record(T.R, T.I, T.F, T.S, k, T.ipos, T.fpos, code, dt, len(outs), len(in_slots), payload,
            np.zeros(0), saves, T.desc)  # fmt: skip
    for s, o in zip(out_slots, outs):
        set_slot(s, o, 1, k)
    T.saved[k] = ctx
    T.n = k + 1
    T.ipos += payload.size
    return out_slots
