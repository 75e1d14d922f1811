"""Vectorisable loop primitives over flat arrays, shared by softmax, losses and reductions.

The sum reductions are compiled with reassociation allowed, so LLVM vectorises them (the
exp kernels keep their own strict flags inside such a loop, see vmath), and the max
reduction uses `llvm.maximum`, which LLVM vectorises where it leaves a compare-and-select
max scalar.
"""

import numba
import numpy as np
from llvmlite import ir
from numba import carray, njit, prange, types
from numba.extending import intrinsic

from ..backends.cpu.extern import export
from ..backends.cpu.memory import _voidptr
from ..backends.cpu.vmath import _f32_bits, _f32_from_bits, _fma, _only_f32, vexp


@intrinsic
def _fmax(typingctx, a, b):
    """IEEE maximum (NaN propagates) via ``llvm.maximum``: LLVM vectorises a reduction over
    it, where it leaves a `v if v > m else m` (or `max`) reduction scalar (10x slower)."""
    if not (isinstance(a, types.Float) and a == b):
        return None

    def codegen(context, builder, sig, args):
        t = args[0].type
        fn = builder.module.declare_intrinsic("llvm.maximum", [t], ir.FunctionType(t, [t, t]))
        return builder.call(fn, args)

    return a(a, b), codegen


# float32 exp for softmax's shifted logits (x <= 0): Cephes' expf polynomial (<= 2 ulp,
# tests/test_ops_nn.py) without vexp's compensated tail and two-step scaling, so about half
# the instructions of the loop that dominates softmax and cross-entropy. Results below
# FLT_MIN (x < -87.34) flush to 0, an absolute error < 1.2e-38 next to a row's largest
# term, 1; x must be <= 88 (callers pass x - max <= 0). NaN propagates through the
# arithmetic (the clamp and flush compare so that NaN keeps x), so there is no upper clamp
# and no NaN test: 4 fewer vector ops in the loop that dominates softmax (~8% faster).
_XLO = np.float32(-87.33654)
_LOG2E = np.float32(1.442695)
_SHIFT = np.float32(12582912.0)  # 1.5 * 2**23: x * log2(e) + SHIFT rounds to an integer
_SHIFT_BITS = 0x4B400000
_LN2_HI = np.float32(0.693359375)
_LN2_LO = np.float32(-2.12194440e-4)
_P = tuple(
    np.float32(c)
    for c in (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 0.16666665459)
)
_HALF = np.float32(0.5)
_ONE = np.float32(1.0)
_ZERO = np.float32(0.0)


@njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _exp_flush_f32(x):
    xc = _XLO if x < _XLO else x
    kd = xc * _LOG2E + _SHIFT
    n = _f32_bits(kd) - _SHIFT_BITS
    kd = kd - _SHIFT
    r = _fma(kd, -_LN2_HI, xc)
    r = _fma(kd, -_LN2_LO, r)
    p = _fma(_P[0], r, _P[1])
    p = _fma(p, r, _P[2])
    p = _fma(p, r, _P[3])
    p = _fma(p, r, _P[4])
    p = _fma(p, r, _HALF)
    e = _fma(p, r * r, r) + _ONE
    res = e * _f32_from_bits((n + 127) << 23)
    return _ZERO if x < _XLO else res


@njit(inline="always", cache=True, fastmath=False)
def exp_flush(x):
    """exp(x) for x <= 0: float32 by the polynomial above, float64 by `vexp`."""
    if isinstance(x, numba.float32):
        return _exp_flush_f32(_only_f32(x))
    return vexp(x)


@njit(cache=True, fastmath=True)
def rmax(x):
    m = x.dtype.type(-np.inf)
    for i in range(x.size):
        m = _fmax(m, x[i])
    return m


@njit(cache=True, fastmath={"reassoc", "nsz", "contract"})
def rsum(x):
    s = x.dtype.type(0)
    for i in range(x.size):
        s += x[i]
    return s


@njit(cache=True, fastmath={"reassoc", "nsz", "contract"})
def rdot(x, y):
    s = x.dtype.type(0)
    for i in range(x.size):
        s += x[i] * y[i]
    return s


@njit(cache=True, error_model="numpy")
def _gmul_range(g, o, out, c, has_o, init):
    # four plain loops (slices indexed from 0): each vectorises
    if has_o:
        if init:
            for i in range(out.size):
                out[i] = c * g[i] * o[i]
        else:
            for i in range(out.size):
                out[i] += c * g[i] * o[i]
    elif init:
        for i in range(out.size):
            out[i] = c * g[i]
    else:
        for i in range(out.size):
            out[i] += c * g[i]


GMUL_CHUNKS = 64


@njit(cache=True, parallel=True, error_model="numpy")
def _gmul_chunks(g, o, out, c, has_o, init):
    n = out.size
    chunk = (n + GMUL_CHUNKS - 1) // GMUL_CHUNKS
    for q in prange(GMUL_CHUNKS):
        lo = min(q * chunk, n)
        hi = min(lo + chunk, n)
        _gmul_range(g[lo:hi], o[lo:hi] if has_o else o[:0], out[lo:hi], c, has_o, init)


@njit(cache=True, error_model="numpy")
def _gscale_range(c, o, out, has_o, init):
    if has_o:
        if init:
            for i in range(out.size):
                out[i] = c * o[i]
        else:
            for i in range(out.size):
                out[i] += c * o[i]
    elif init:
        for i in range(out.size):
            out[i] = c
    else:
        for i in range(out.size):
            out[i] += c


@njit(cache=True, parallel=True, error_model="numpy")
def _gscale_chunks(c, o, out, has_o, init):
    n = out.size
    chunk = (n + GMUL_CHUNKS - 1) // GMUL_CHUNKS
    for q in prange(GMUL_CHUNKS):
        lo = min(q * chunk, n)
        hi = min(lo + chunk, n)
        _gscale_range(c, o[lo:hi], out[lo:hi], has_o, init)


# The parallel loops are called from many VJP kernels (gscale from every one, through
# rowio.settle): exported as C functions, one per dtype, so no kernel links and recompiles
# their gufuncs (see backends/cpu/extern.py). Arguments: addresses of g, o and out (o read
# only if has_o), the length, the factor, has_o, init.
_I, _F = types.int64, types.float64
_PAR = types.void(_I, _I, _I, _I, _F, _I, _I)


@njit(inline="always", error_model="numpy")
def _views(g, o, out, n, has_o, dtype):
    m = n if has_o else 0
    return (carray(_voidptr(g), n, dtype), carray(_voidptr(o), m, dtype),
            carray(_voidptr(out), n, dtype))  # fmt: skip


@export("nbgrad_gmul32", _PAR)
def _gmul32(g, o, out, n, c, has_o, init):
    _gmul_chunks(*_views(g, o, out, n, has_o, np.float32), np.float32(c), has_o != 0, init != 0)


@export("nbgrad_gmul64", _PAR)
def _gmul64(g, o, out, n, c, has_o, init):
    _gmul_chunks(*_views(g, o, out, n, has_o, np.float64), c, has_o != 0, init != 0)


@export("nbgrad_gscale32", _PAR)
def _gscale32(g, o, out, n, c, has_o, init):
    _, o, out = _views(out, o, out, n, has_o, np.float32)
    _gscale_chunks(np.float32(c), o, out, has_o != 0, init != 0)


@export("nbgrad_gscale64", _PAR)
def _gscale64(g, o, out, n, c, has_o, init):
    _, o, out = _views(out, o, out, n, has_o, np.float64)
    _gscale_chunks(c, o, out, has_o != 0, init != 0)


@njit(cache=True, error_model="numpy")
def gmul_par(g, o, out, sign, has_o, init):
    """out = sign * g * o (`o` unused unless has_o), or += when not `init`, over chunks in
    parallel: the VJPs `g`, `-g`, `g * b` of add, sub and mul on large arrays (sign is +-1,
    so the results are bit-identical to the serial rule). Flat contiguous arrays."""
    a = (g.ctypes.data, o.ctypes.data, out.ctypes.data, out.size, float(sign))
    if out.itemsize == 4:
        _gmul32(*a, np.int64(has_o), np.int64(init))
    else:
        _gmul64(*a, np.int64(has_o), np.int64(init))


GSCALE_PAR_MIN = 1 << 16


@njit(cache=True, error_model="numpy")
def gscale(c, o, out, has_o, init):
    """out = c * o (`o` unused unless has_o: out = c), or += when not `init`: a VJP whose
    cotangent is one value broadcast (rowio.bcast) times a saved array, or that value
    spread out. Parallel on large arrays. Flat contiguous arrays."""
    c = out.dtype.type(c)
    if out.size < GSCALE_PAR_MIN:
        _gscale_range(c, o, out, has_o, init)
        return
    a = (0, o.ctypes.data, out.ctypes.data, out.size, float(c), np.int64(has_o), np.int64(init))
    if out.itemsize == 4:
        _gscale32(*a)
    else:
        _gscale64(*a)
