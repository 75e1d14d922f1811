"""Forwards of tape rows, read off a row the way VJP kernels read it (`backends/cpu/rowio`).

A compiled program runs an op without specialised codegen on a small tape of its own (the
program's rows, with slots renumbered): its forward here, its backward the op's own VJP
kernel, both called through C pointers. Two kinds of forward:

* compiled (`FWD`, `compiled_forward`): the `replay` an op declares with its other facets
  (`_optable.py`; for some rows only, `replay_when`); for older op families, defined
  here: dtype casts and einsum's batched product;
* `eager_row` (Python, called back from the program): the eager op itself (its public
  function, under `no_grad`), for ops whose forward is NumPy code (reductions over dims,
  losses): the same code, hence the same bits. An op declares it as `eager`.
"""

import ctypes
import weakref

import numpy as np
from numba import njit

from .._optable import BY_NAME, OPS
from ..backends.cpu.blas import matmul_into
from ..backends.cpu.memory import v32, v64, view_as
from ..backends.cpu.rowio import iattr, in_slot, out_slot, step, value
from ..ops.einsum import _strided_copy, blas_layout
from ..tape import R_IPOS, R_NIN, R_NOUT, S_ADDR, S_DT, S_NDIM, S_NUMEL, S_PROD, S_SHAPE

_opts = {"cache": True, "error_model": "numpy"}


@njit(**_opts)
def fwd_to(T, k, V):
    """A float dtype cast (NumPy's astype: round to nearest)."""
    S = T[3]
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    y = value(T, s_y, V)
    n = S[s_x, S_NUMEL]
    if S[s_x, S_DT] == 0:
        x32 = v32(S[s_x, S_ADDR], n)
        for i in range(n):
            y[i] = x32[i]
    else:
        x64 = v64(S[s_x, S_ADDR], n)
        for i in range(n):
            y[i] = x64[i]


@njit(**_opts)
def fwd_einsum_bmm(T, k, V):
    """`einsum._einsum2`'s BLAS branch: A and B gathered to (batch, m, k) and (batch, k, n)
    (the arrays the VJP reads by attrs 5 and 6: buffers of the program's tape, or the
    operand itself when already so laid out), one batched GEMM, the result scattered to
    the output's letter order."""
    I, S = T[1], T[3]
    R = T[0]
    base = R[k, R_IPOS] + R[k, R_NOUT] + R[k, R_NIN]
    s_y, s_a, s_b = out_slot(T, k, 0), in_slot(T, k, 0), in_slot(T, k, 1)
    nb, nm, nk, nn = iattr(T, k, 1), iattr(T, k, 2), iattr(T, k, 3), iattr(T, k, 4)
    gshp, gst, ashp, ast, bshp, bst, g_id, a_id, b_id = blas_layout(T, k)
    _operand(T, I, S, base + 5, s_a, a_id, ashp, ast, nb * nm * nk, V)
    _operand(T, I, S, base + 6, s_b, b_id, bshp, bst, nb * nk * nn, V)
    y = value(T, s_y, V)
    yc = y if g_id else np.empty(nb * nm * nn, y.dtype)
    if nk == 0:
        yc[:] = 0
    elif yc.size:
        ac = view_as(I[base + 5], nb * nm * nk, V)
        bc = view_as(I[base + 6], nb * nk * nn, V)
        matmul_into(ac, bc, yc, nb, nm, nk, nn, True, True)
    if not g_id:  # y[idx . gst] = yc[i], walking the (batch, m, n) letters
        idx = np.zeros(gshp.size, np.int64)
        offs = np.zeros(2, np.int64)
        for i in range(yc.size):
            y[offs[0]] = yc[i]
            step(idx, gshp, offs, gst, gst)


@njit(**_opts)
def _operand(T, I, S, at, s, ident, shp, st, size, V):
    """An einsum operand as the VJP reads it (by the address at I[at]): the operand
    itself, or its gather into the buffer there."""
    if ident:
        I[at] = S[s, S_ADDR]
    elif size:
        _strided_copy(value(T, s, V), shp, st, view_as(I[at], size, V))


FWD = {o.name: o.replay for o in OPS if o.replay and not o.replay_when}  # declared
FWD["to"] = "fwd_to"
FWD["einsum_bmm"] = "fwd_einsum_bmm"


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


def _call(name, xs, S, ins, ia, fa, extra=None):
    """The eager op a row records, called on tensors `xs` (shaped as the row's inputs);
    `extra`: the row's Row.extra (an einsum's equation)."""
    import nbgrad as nb
    from nbgrad.tensor import Tensor

    op = BY_NAME[name]
    if op.eager is not None:  # declared with the op
        return op.eager(xs, op.unpack(ia), op.unpack_f(fa))
    x = xs[0]
    if name == "einsum":  # `einsum._einsum2`'s generic branch: NumPy's einsum
        r = np.einsum(extra, *[t._data for t in xs], optimize=len(xs) > 1)
        return Tensor._make(np.asarray(r, x._data.dtype), -1, False)
    if name in ("linear", "linear_nobias"):
        return nb.nn.functional.linear(*xs)
    raise AssertionError(name)  # EAGER lists exactly the names handled here


EAGER = tuple(o.name for o in OPS if o.eager)  # declared with the op
EAGER += ("linear", "linear_nobias", "einsum")
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


def eager_row(R, I, F, S, k, key, extra=None):
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
            out = _call(name, ts, S, ins, ia, fa, extra)
        kr = int(TAPE.S[out._slot, S_PROD])  # its row on the real tape
        q = int(TAPE.R[kr, R_IPOS]) + int(TAPE.R[kr, R_NOUT]) + int(TAPE.R[kr, R_NIN])
        p = int(R[k, R_IPOS]) + int(R[k, R_NOUT]) + int(R[k, R_NIN])
        I[p : p + len(ia)] = TAPE.I[q : q + len(ia)]
        _KEEP[key] = out
    else:
        with nb.no_grad():
            out = _call(name, ts, S, ins, ia, fa, extra)
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
        eager_row(R, I, F, S, k, (ctx, k), t.extra.get(k))
    except BaseException as e:  # noqa: BLE001 (re-raised by the caller after the program)
        ERRORS.append(e)


_CB = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64)(_callback)
_CB_ADDR = ctypes.cast(_CB, ctypes.c_void_p).value


def _wrapper_source(fn, dt):
    """The wrapper of forward `fn`: a name here, or "module:function" (an op's replay)."""
    mod, fn = fn.split(":") if ":" in fn else ("nbgrad._compile.row_forwards", fn)
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
