"""Raw-memory views for compiled code.

The tape stores values by address (an int64), so the reverse sweep can read any saved
value from inside one compiled call without touching Python objects. `v32`/`v64` turn an
address and a length into a flat array view. A VJP kernel receives a dtype token `V`
(np.float32(0) or np.float64(0)) and makes its views with `view_as(addr, n, V)`, so it is
written once and compiled per float dtype. Python keeps the memory
alive (the tape's per-row saved references); every address is validated before use.
"""

import numpy as np
from numba import carray, njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload


@intrinsic
def _voidptr(typingctx, addr):
    sig = types.voidptr(types.int64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return sig, codegen


@njit(inline="always", cache=True, error_model="numpy")
def v32(addr, n):
    return carray(_voidptr(addr), n, np.float32)


@njit(inline="always", cache=True, error_model="numpy")
def v64(addr, n):
    return carray(_voidptr(addr), n, np.float64)


@njit(inline="always", cache=True, error_model="numpy")
def vi64(addr, n):
    return carray(_voidptr(addr), n, np.int64)


@njit(cache=True, error_model="numpy")
def address(a):
    """Data address of an array (cheap here; ndarray.ctypes.data costs ~1 µs in Python)."""
    return a.ctypes.data


def view_like(addr, n, arr):
    """In compiled code: a flat view at `addr` with `arr`'s float dtype."""
    raise NotImplementedError("view_like is only callable from compiled code")


@overload(view_like, inline="always")
def _view_like(addr, n, arr):
    if arr.dtype == types.float32:
        return lambda addr, n, arr: v32(addr, n)
    return lambda addr, n, arr: v64(addr, n)


def view_as(addr, n, tok):
    """In compiled code: a flat view at `addr` of the dtype of the scalar token `tok`
    (np.float32(0) or np.float64(0)): how a VJP kernel is told its dtype."""
    raise NotImplementedError("view_as is only callable from compiled code")


@overload(view_as, inline="always")
def _view_as(addr, n, tok):
    if tok == types.float32:
        return lambda addr, n, tok: v32(addr, n)
    return lambda addr, n, tok: v64(addr, n)
