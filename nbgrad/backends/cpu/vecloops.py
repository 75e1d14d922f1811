"""Vectorisable loop primitives over flat arrays, shared by softmax, losses and reductions.

The sums (`rsum`, `rdot`) add in one fixed order, written as explicit vector code: LANES
running sums, lane j taking elements j, j + LANES, ...; the lanes then added in halves
(a fixed tree); the last n % LANES elements added one by one. The order depends on n
only, so a sum is bit-identical whether a kernel runs eagerly or inlined into a compiled
program where LLVM knows n, and on every CPU (a <32 x double> add is 4 zmm or 8 ymm adds,
lane for lane). They used to be plain loops compiled with `reassoc`, which let LLVM pick
the order per context: on the CI machine a compiled program's log_softmax summed its rows
of 4 in another order than the eager kernel, and gradients came out 1 ulp apart. The
max reduction uses `llvm.maximum` (exact in any order), which LLVM vectorises where it
leaves a compare-and-select max scalar.
"""

import numba
import numpy as np
from llvmlite import ir
from numba import carray, njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from .extern import export
from .memory import _voidptr
from .vmath import _f32_bits, _f32_from_bits, _fma, _only_f32, vexp, vsigmoid, vtanh


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


# float32 sigmoid and tanh from `_exp_flush_f32` for the fused LSTM cell, whose time they
# dominate: <= 3 ulp (tests/test_vecloops.py), about 1.5x faster than the elementwise
# kernels' <= 1 ulp versions (`vsigmoid`, `vtanh`), which float64 keeps. tanh below 0.625
# is Cephes' odd polynomial (exp(-2|x|) would cancel there), above it (1 - e) / (1 + e).
_TANH_POLY = (
    np.float32(-5.70498872745e-3),
    np.float32(2.06390887954e-2),
    np.float32(-5.37397155531e-2),
    np.float32(1.33314422036e-1),
    np.float32(-3.33332819422e-1),
)
_TANH_SPLIT = np.float32(0.625)
_MINUS_TWO = np.float32(-2.0)


@njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _sigmoid_flush_f32(x):
    e = _exp_flush_f32(-abs(x))
    q = _ONE / (_ONE + e)
    return q if x >= _ZERO else e * q


@njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _tanh_flush_f32(x):
    a = abs(x)
    e = _exp_flush_f32(a * _MINUS_TWO)
    big = (_ONE - e) / (_ONE + e)
    big = -big if x < _ZERO else big
    z = x * x
    c = _TANH_POLY
    small = x * (_ONE + ((((c[0] * z + c[1]) * z + c[2]) * z + c[3]) * z + c[4]) * z)
    return small if a < _TANH_SPLIT else big


@njit(inline="always", cache=True, fastmath=False)
def sigmoid_fast(x):
    """sigmoid: float32 to <= 3 ulp (above), float64 by `vsigmoid`."""
    if isinstance(x, numba.float32):
        return _sigmoid_flush_f32(_only_f32(x))
    return vsigmoid(x)


@njit(inline="always", cache=True, fastmath=False)
def tanh_fast(x):
    """tanh: float32 to <= 3 ulp (above), float64 by `vtanh`."""
    if isinstance(x, numba.float32):
        return _tanh_flush_f32(_only_f32(x))
    return vtanh(x)


# reassoc lets LLVM vectorise the reduction; the maximum is exact in any order. Not
# fastmath=True: its nnan/ninf would make a NaN or an -inf (a masked logit) poison, which a
# kernel and the same kernel inlined elsewhere may resolve differently.
@njit(cache=True, fastmath={"reassoc", "nsz"})
def rmax(x):
    m = x.dtype.type(-np.inf)
    for i in range(x.size):
        m = _fmax(m, x[i])
    return m


LANES = 32  # running sums: 4 independent zmm (8 ymm) adds per step for float64


def _lane_sum(context, builder, x, y, ty):
    """sum(x) (sum(x * y) when y is given) of C-contiguous 1-d arrays in the fixed order
    above; y must have x's size."""
    xa = context.make_array(ty)(context, builder, x)
    ya = context.make_array(ty)(context, builder, y) if y is not None else None
    n = xa.nitems
    elt = context.get_data_type(ty.dtype)
    vty = ir.VectorType(elt, LANES)
    align = context.get_abi_alignment(elt)

    def load(a, i, t):
        p = builder.bitcast(builder.gep(a.data, [i]), t.as_pointer())
        return builder.load(p, align=align)

    def term(i, t):
        v = load(xa, i, t)
        return builder.fmul(v, load(ya, i, t)) if ya is not None else v

    acc = cgutils.alloca_once_value(builder, ir.Constant(vty, None))
    c = lambda k: ir.Constant(n.type, k)  # noqa: E731
    m = builder.sub(n, builder.srem(n, c(LANES)))
    with cgutils.for_range_slice(builder, c(0), m, c(LANES)) as (i, _):
        builder.store(builder.fadd(builder.load(acc), term(i, vty)), acc)
    v, w = builder.load(acc), LANES
    i32 = ir.IntType(32)
    while w > 1:  # halves: lane j + lane j + w/2
        h = w // 2
        lo = builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(i32, h), list(range(h))))
        hi = builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(i32, h), list(range(h, w))))
        v, w = builder.fadd(lo, hi), h
    s = cgutils.alloca_once_value(builder, builder.extract_element(v, ir.Constant(i32, 0)))
    with cgutils.for_range_slice(builder, m, n, c(1)) as (i, _):
        builder.store(builder.fadd(builder.load(s), term(i, elt)), s)
    return builder.load(s)


def _contiguous_float(a):
    ok = isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C"
    return ok and isinstance(a.dtype, types.Float)


@intrinsic
def rsum(typingctx, x):
    """sum(x) of a C-contiguous 1-d float array, in the fixed lane order."""
    if not _contiguous_float(x):
        return None
    return x.dtype(x), lambda ctx, b, sig, args: _lane_sum(ctx, b, args[0], None, x)


@intrinsic
def rdot(typingctx, x, y):
    """sum(x * y) of C-contiguous 1-d float arrays of one size, in the fixed lane order."""
    if not (_contiguous_float(x) and x == y):
        return None
    return x.dtype(x, y), lambda ctx, b, sig, args: _lane_sum(ctx, b, args[0], args[1], x)


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


@njit(cache=True, error_model="numpy")
def row_outer(a, b, out):
    """out[r] = outer(a[r], b[r]) for each row r: per-sample weight gradients of a linear
    layer. C-contiguous 2-D a, b of one dtype and out of shape (rows, a cols, b cols).
    NumPy's broadcast `a[:, :, None] * b[:, None, :]` took 6x as long."""
    m, n = a.shape[1], b.shape[1]
    for r in range(a.shape[0]):
        br = b[r]
        for i in range(m):
            c = a[r, i]
            o = out[r, i]
            for j in range(n):
                o[j] = c * br[j]
