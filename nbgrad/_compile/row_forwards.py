"""Forwards of tape rows, read off a row the way VJP kernels read it (`backends/cpu/rowio`).

A compiled program runs an op without specialised codegen on a small tape of its own (the
program's rows, with slots renumbered): its forward here, its backward the op's own VJP
kernel, both called through C pointers. Two kinds of forward:

* compiled (`FWD`, `compiled_forward`): the `replay` an op declares with its other facets
  (`_optable.py`; for some rows only, `replay_when`);
* `eager_row` (Python, called back from the program): the eager op itself (its public
  function, under `no_grad`), for ops whose forward is NumPy code (reductions over dims,
  losses): the same code, hence the same bits. An op declares it as `eager`.
"""

import ctypes
import weakref

import numpy as np

from .._optable import BY_NAME, OPS
from ..tape import S_ADDR, S_DT, S_NDIM, S_NUMEL, S_PROD, S_SHAPE

FWD = {o.name: o.replay for o in OPS if o.replay and not o.replay_when}  # declared


def compiled_forward(name, iattrs, in_shape):
    """The compiled forward of a row (a function name here), or None: the eager op."""
    if name in FWD:
        return FWD[name]
    op = BY_NAME[name]
    if op.replay_when is not None and op.replay_when(op.unpack(iattrs), in_shape):
        return op.replay
    return None


# -- the eager op itself --------------------------------------------------------


def _row(R, I, F, S, k):
    """(op name, out slots, in slots, int attrs, float attrs) of row k."""
    from ..tape import R_FLEN, R_FPOS, R_ILEN, R_IPOS, R_NIN, R_NOUT

    p, no, ni = int(R[k, R_IPOS]), int(R[k, R_NOUT]), int(R[k, R_NIN])
    pay = I[p : p + int(R[k, R_ILEN])].tolist()
    fa = F[int(R[k, R_FPOS]) : int(R[k, R_FPOS]) + int(R[k, R_FLEN])].tolist()
    return OPS[int(R[k, 0])].name, pay[:no], pay[no : no + ni], pay[no + ni :], fa


def _shape(S, s):
    return tuple(S[s, S_SHAPE : S_SHAPE + S[s, S_NDIM]].tolist())


def _call(name, xs, ia, fa):
    """The eager op a row records, called on tensors `xs` (shaped as the row's inputs)."""
    op = BY_NAME[name]
    return op.eager(xs, op.unpack(ia), op.unpack_f(fa))


EAGER = tuple(o.name for o in OPS if o.eager)  # declared with the op
# rows whose int attrs hold addresses of arrays the forward makes (read by the VJP): the
# row the eager op records is read back, its attrs copied into the program's row
PATCHED = tuple(o.name for o in OPS if o.eager_attrs)  # declared with the op
_KEEP = {}  # program row -> the eager result holding the patched rows' saved arrays


def _array(S, s):
    """Slot s's value (by address) as a NumPy array of its shape."""
    dt = np.float32 if S[s, S_DT] == 0 else np.float64
    n = int(S[s, S_NUMEL])
    buf = (ctypes.c_char * (n * np.dtype(dt).itemsize)).from_address(int(S[s, S_ADDR]))
    return np.frombuffer(buf, dt).reshape(_shape(S, s))


def eager_row(R, I, F, S, k, key):
    """Row k's forward by the eager op: its inputs' values read, its output written, by
    the addresses in the slot table."""
    import nbgrad as nb
    from nbgrad.tape import R_IPOS, R_NIN, R_NOUT, TAPE
    from nbgrad.tensor import Tensor

    name, outs, ins, ia, fa = _row(R, I, F, S, k)
    xs = [_array(S, s) for s in ins]
    y = _array(S, outs[0]).reshape(-1)
    patch = name in PATCHED
    ts = [Tensor._make(a, -1, patch) for a in xs]
    if patch:
        with nb.enable_grad():
            out = _call(name, ts, ia, fa)
        kr = int(TAPE.S[out._slot, S_PROD])  # its row on the real tape
        q = int(TAPE.R[kr, R_IPOS]) + int(TAPE.R[kr, R_NOUT]) + int(TAPE.R[kr, R_NIN])
        p = int(R[k, R_IPOS]) + int(R[k, R_NOUT]) + int(R[k, R_NIN])
        I[p : p + len(ia)] = TAPE.I[q : q + len(ia)]
        _KEEP[key] = out
    else:
        with nb.no_grad():
            out = _call(name, ts, ia, fa)
    y[:] = out._data.reshape(-1)


# -- what a program calls: C pointers `f(k, ctx)`, as the eager sweep calls VJPs -------------
# A program calls each generic row's forward and VJP through a pointer (`dispatch._call`),
# so its own compile time does not grow with the kernels it runs: the VJP pointers are the
# eager sweep's own (`dispatch.FN`), the compiled forwards get the same kind of wrapper,
# and the eager-op forwards one Python callback (ctypes; the program holds the GIL).
_TAPES = weakref.WeakValueDictionary()  # ctx address -> the program tape (eager rows)
ERRORS = []  # exceptions raised in the callback (ctypes cannot propagate them)
_KEEP_FWD = {}


def _callback(k, ctx):
    try:
        t = _TAPES[ctx]
        R, I, F, S = t.T[:4]
        eager_row(R, I, F, S, k, (ctx, k))
    except BaseException as e:  # noqa: BLE001 (re-raised by the caller after the program)
        ERRORS.append(e)


_CB = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64)(_callback)
_CB_ADDR = ctypes.cast(_CB, ctypes.c_void_p).value


def _wrapper_source(fn, dt):
    """The wrapper of forward `fn`, "module:function" (an op's replay)."""
    mod, fn = fn.split(":")
    tok = "np.float32(0)" if dt == 0 else "np.float64(0)"
    return f'''"""Generated by nbgrad._compile.row_forwards. Do not edit."""
import numpy as np
from numba import cfunc, types
from nbgrad.backends.cpu.dispatch import unpack
from {mod} import {fn} as fwd


@cfunc(types.void(types.int64, types.int64), cache=True, error_model="numpy")
def wrapper(k, ctx):
    fwd(unpack(ctx), k, {tok})
'''


def forward_pointer(fn, dt):
    """Address of the compiled forward `fn` (None: the eager op) for dtype code `dt`."""
    if fn is None:
        return _CB_ADDR
    key = (fn, dt)
    if key not in _KEEP_FWD:
        from .. import _cache
        from ..backends.cpu.codegen import load_module

        name = fn.rpartition(":")[2]
        mod = f"nbgrad_gen_rowfwd_{name}_{'f32' if dt == 0 else 'f64'}_{_cache.HASH}"
        with _cache.numba_cache_dir():
            _KEEP_FWD[key] = load_module(mod, _wrapper_source(*key)).wrapper
    return _KEEP_FWD[key].address


def vjp_pointer(code, dt):
    """Address of the eager sweep's VJP wrapper of op `code` for dtype code `dt`."""
    from ..backends.cpu import dispatch

    dispatch.ensure([(code, dt)])
    return int(dispatch.FN[code, dt])


def register(tape):
    """Make `tape` (an object whose `.T` is the program tape and `.ctx` its descriptor)
    visible to the eager-op callback."""
    _TAPES[int(tape.ctx.ctypes.data)] = tape
