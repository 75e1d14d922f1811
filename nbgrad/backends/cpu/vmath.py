"""Branch-free elementary functions that LLVM auto-vectorises inside Numba loops.

The llvmlite wheels ship without SVML, so ``math.exp``/``math.sin``/... inside an ``@njit``
loop are scalar libm calls and the loop is not vectorised. The functions here are
straight-line polynomial code (selects instead of data-dependent branches, integer bit
tricks instead of ``frexp``/``ldexp``, no calls), so LLVM's loop vectoriser turns
``for i in range(n): out[i] = vsin(x[i])`` into packed AVX2 / AVX-512 code.

Public functions (scalar in, scalar out; ``float32`` in -> ``float32`` out, computed in
float32 with float32 constants, 8 lanes per ymm; anything else (float64, ints, bools)
-> ``float64``)::

    vexp  vexpm1  vlog  vlog1p  vsin  vcos  vtanh  vsigmoid      SIN_COS_LIMIT  sin_cos_in_range

``vsigmoid(x)`` is ``1 / (1 + exp(-x))`` computed stably from ``exp(-|x|)`` (never
overflows). The public functions are ``@numba.njit(inline="always", cache=True,
fastmath=False)``; see "How it is compiled" below.

Accuracy, measured by tests/test_vmath.py (dense grids, random samples over the whole
domain, special values, the doubles closest to multiples of pi/2) against numpy/libm, and
for float32 against the float32-rounded float64 result: at most 1 ulp for every function in
both dtypes (the contract is 2 ulp), with or without FMA hardware. Special values follow
libm: NaN propagates; exp(+inf) = inf, exp(-inf) = 0, overflow -> inf, underflow -> 0 or a
subnormal; log(0) = -inf, log(x < 0) = nan, log(inf) = inf; log1p(-1) = -inf; sin/cos(+-inf)
= nan; tanh(+-inf) = +-1; sigmoid(+-inf) = 1/0; vexpm1/vlog1p/vsin/vtanh keep -0.0.

sin / cos and ``SIN_COS_LIMIT``
-------------------------------
``vsin``/``vcos`` use Cody-Waite reduction: n = round(x * 2/pi), r = x - n*pi/2, with pi/2
split into three 33-bit parts (every n*P_i is exact for |n| < 2**20) plus a 53-bit tail;
the subtractions are error-free TwoSums, so r carries ~150 bits of pi/2 and stays accurate
next to multiples of pi/2 (worst double below the limit: |r| ~ 2**-60.5 at x = 45.553...).
float32 inputs are reduced in float64 (one conversion each way), then evaluated in float32.
The reduction is valid for ``|x| < SIN_COS_LIMIT`` (= 2**20 ~ 1.05e6); for finite |x| at or
beyond it vsin/vcos return NaN instead of a silently wrong value. So a kernel must decide
ONCE PER ARRAY (a per-element test would put a branch back into the loop) between the
polynomial loop and a libm loop::

    if sin_cos_in_range(x):          # or np.abs(x).max() < SIN_COS_LIMIT (NaN -> libm loop)
        for i in range(n): out[i] = vsin(x[i])          # vectorised
    else:
        for i in range(n): out[i] = math.sin(x[i])      # scalar libm, any |x|

``sin_cos_in_range(a)`` (njit, any shape/layout) ignores NaN and +-inf, which the
polynomial path already handles like libm.

How it is compiled
------------------
Each public function is an IR-inlined (``inline="always"``) type test that calls a
per-dtype kernel (``_sin_f64``, ``_sin_f32``, ...). The kernels are
``@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")``: compiled
once per process (and cached on disk) with their OWN flags (set explicitly, so Numba does not
let them inherit the caller's), then inlined by LLVM (``alwaysinline``) into the caller's
loop before vectorisation. Consequences: a caller compiles quickly (~0.1 s per
loop instead of re-typing ~100 lines of inlined IR), and a caller's ``fastmath=True`` or
``error_model`` cannot touch the kernels (``nnan``/``ninf`` would otherwise delete the
NaN/inf selects and ``reassoc`` would fold the rounding tricks; tests check that results are
bit-identical under a fastmath caller). Divisions use a plain ``fdiv`` intrinsic because
Numba's ``/`` tests for a zero divisor (a branch that blocks vectorisation). Polynomials use
``llvm.fmuladd``; the division remainders in tanh/sigmoid use ``llvm.fma`` when the target
has FMA and an exact Dekker product otherwise - never a libm call.

As with any inlined helper, Numba's on-disk cache of a CALLER only checks the caller's own
file, so edits here need a fresh cache (nbgrad/_cache.py keys its directory by a hash of
the package source).

Vectorisation check (Numba 0.68.1 / llvmlite 0.50.0, AMD EPYC "znver5" host): the loop
``for i in range(n): out[i] = f(x[i])`` was compiled for every public function and both
dtypes and ``loop.inspect_asm(loop.signatures[0])`` inspected (tests/test_vmath.py repeats
this): there is no ``call`` in the loop, and its body is packed code - for the host
(AVX-512) ``vfmadd213pd``/``vmulpd``/``vdivpd``/``vpaddq``... on zmm registers; with
``NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES=+avx,+avx2,+fma,...`` (AVX2 only) the same loops
use ``vfmadd213pd``/``vfmadd213ps``/``vmulpd``/``vblendvpd``... on ymm registers (4 x f64,
8 x f32). AVX2 has no int64 <-> double conversion, so integers are made with the
0x1.8p52 shifter (n = bits(x*c + 0x1.8p52) - bits(0x1.8p52)) and converted back the same
way, and 2**n is built by bit-casting (n + bias) << 52 through an LLVM ``bitcast``
intrinsic (no array ``view``); exp applies 2**n as two factors to reach overflow and the
subnormal range without ldexp.

Speed (benchmarks/vmath_probe.py; 4M elements, one thread, best of 40, on a 2-vCPU
znver5 box shared with other jobs, so only roughly): float64 vsin 4.5 ms vs numpy 73+ ms,
a ``math.sin`` Numba loop 75+ ms, torch 20 ms; float64 vexp 3.2 ms vs numpy 6.1 ms, a
``math.exp`` loop 22 ms, torch 6-10 ms; float32 vsin 1.7 ms (numpy 5, torch 4.7) and vexp
1.4 ms (numpy 1.5, torch 2.7).
"""

import math

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = [
    "SIN_COS_LIMIT",
    "sin_cos_in_range",
    "vcos",
    "vexp",
    "vexpm1",
    "vlog",
    "vlog1p",
    "vsigmoid",
    "vsin",
    "vtanh",
]

SIN_COS_LIMIT = 1048576.0  # 2**20; vsin/vcos return NaN for finite |x| >= this

_INF = math.inf
_NAN = math.nan
_F32_INF = np.float32(math.inf)
_F32_NAN = np.float32(math.nan)


# --------------------------------------------------------------------------------------
# LLVM intrinsics: bit casts and fused multiply-add. They compile to single instructions
# (or to nothing), so they neither block vectorisation nor count as calls.
# --------------------------------------------------------------------------------------


@intrinsic
def _f64_bits(typingctx, x):
    """The IEEE bits of a float64 as an int64."""
    if x != types.float64:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(x), codegen


@intrinsic
def _f64_from_bits(typingctx, i):
    """The float64 whose IEEE bits are the integer ``i`` (sign-extended to 64 bits)."""
    if not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        v = args[0]
        width = sig.args[0].bitwidth
        if width < 64:
            v = builder.sext(v, ir.IntType(64))
        elif width > 64:
            v = builder.trunc(v, ir.IntType(64))
        return builder.bitcast(v, ir.DoubleType())

    return types.float64(i), codegen


@intrinsic
def _f32_bits(typingctx, x):
    """The IEEE bits of a float32 as an int32."""
    if x != types.float32:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return types.int32(x), codegen


@intrinsic
def _f32_from_bits(typingctx, i):
    """The float32 whose IEEE bits are the low 32 bits of the integer ``i``."""
    if not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        v = args[0]
        width = sig.args[0].bitwidth
        if width > 32:
            v = builder.trunc(v, ir.IntType(32))
        elif width < 32:
            v = builder.sext(v, ir.IntType(32))
        return builder.bitcast(v, ir.FloatType())

    return types.float32(i), codegen


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c via ``llvm.fmuladd``: fused where the target has FMA, else mul + add."""
    if not (isinstance(a, types.Float) and a == b == c):
        return None

    def codegen(context, builder, sig, args):
        t = args[0].type
        fn = builder.module.declare_intrinsic("llvm.fmuladd", [t], ir.FunctionType(t, [t] * 3))
        return builder.call(fn, args)

    return a(a, b, c), codegen


@intrinsic
def _only_f32(typingctx, x):
    """Identity on float32 and untypable otherwise, so that the float32 branch of a public
    function is dropped (not compiled) when it is typed for another input type."""
    if x != types.float32:
        return None
    return x(x), lambda context, builder, sig, args: args[0]


@intrinsic
def _to_f64(typingctx, x):
    """float64(x) for float64/float16, ints and bools; untypable for float32 (see above)."""
    if x == types.float32 or not isinstance(x, (types.Float, types.Integer, types.Boolean)):
        return None

    def codegen(context, builder, sig, args):
        return context.cast(builder, args[0], sig.args[0], types.float64)

    return types.float64(x), codegen


@intrinsic
def _div(typingctx, a, b):
    """IEEE a / b. Numba's ``/`` (error_model="python") tests for a zero divisor and raises,
    and that branch stops vectorisation; a plain ``fdiv`` gives inf/nan instead."""
    if not (isinstance(a, types.Float) and a == b):
        return None

    def codegen(context, builder, sig, args):
        return builder.fdiv(args[0], args[1])

    return a(a, b), codegen


def _target_has_fma(context):
    features = getattr(context.codegen(), "_tm_features", "") or ""
    return "+fma" in features.split(",")


@intrinsic
def _fnma_exact(typingctx, a, b, c):
    """c - a*b with a single rounding (exact whenever the result is representable).

    Used for division remainders: for q = fl(n / d), ``n - q*d`` is exactly representable.
    Emits ``llvm.fma`` when the target has FMA (one instruction); otherwise the product is
    split exactly with Veltkamp/Dekker (branch-free, ~15 flops), never a libm call.
    """
    if not (isinstance(a, types.Float) and a == b == c):
        return None

    def codegen(context, builder, sig, args):
        x, y, z = args
        t = x.type
        if _target_has_fma(context):
            fn = builder.module.declare_intrinsic("llvm.fma", [t], ir.FunctionType(t, [t] * 3))
            return builder.call(fn, [builder.fneg(x), y, z])
        split = ir.Constant(t, 134217729.0 if sig.args[0].bitwidth == 64 else 4097.0)

        def halves(v):
            w = builder.fmul(v, split)
            hi = builder.fsub(w, builder.fsub(w, v))
            return hi, builder.fsub(v, hi)

        xh, xl = halves(x)
        yh, yl = halves(y)
        p = builder.fmul(x, y)
        e = builder.fsub(builder.fmul(xh, yh), p)
        e = builder.fadd(e, builder.fmul(xh, yl))
        e = builder.fadd(e, builder.fmul(xl, yh))
        e = builder.fadd(e, builder.fmul(xl, yl))  # p + e == x*y exactly
        return builder.fsub(builder.fsub(z, p), e)

    return a(a, b, c), codegen


# --------------------------------------------------------------------------------------
# float64 kernels
# --------------------------------------------------------------------------------------

_SHIFT = 6755399441055744.0  # 0x1.8p52: x + _SHIFT rounds x to an integer in the low bits
_SHIFT_BITS = 0x4338000000000000
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # 0x3fe62e42fee00000: n * _LN2_HI exact for |n| < 2**21
_LN2_LO = 1.90821492927058770002e-10
_TWO54 = 18014398509481984.0
_MIN_NORMAL = 2.2250738585072014e-308
_SQRT_HALF_BITS = 0x3FE6A09E667F3BCD

# (expm1(r) - r) / r**2 on |r| <= ln2/2: Chebyshev (near-minimax) fit, |error| < 2.4e-18.
_E0 = 0.5
_E1 = 0.1666666666666667
_E2 = 0.04166666666666667
_E3 = 0.008333333333326025
_E4 = 0.001388888888888367
_E5 = 0.00019841269875205077
_E6 = 2.4801587325822283e-05
_E7 = 2.75572549134867e-06
_E8 = 2.7557273295539724e-07
_E9 = 2.5105419192016337e-08
_E10 = 2.091483135138041e-09

# fdlibm e_log.c: log(1+f) = f - f*f/2 + s*(f*f/2 + R(s*s)), s = f/(2+f).
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01

# pi/2 = _PIO2_1 + _PIO2_2 + _PIO2_3 + _PIO2_3T; the first three have 33 significant bits.
_TWO_OVER_PI = 0.6366197723675814
_PIO2_1 = 1.57079632673412561417e00  # 0x3ff921fb54400000
_PIO2_2 = 6.07710050630396597660e-11  # 0x3dd0b4611a600000
_PIO2_3 = 2.02226624871116645580e-21  # 0x3ba3198a2e000000
_PIO2_3T = 8.47842766036889956997e-32
_PIO2_1T = 6.077100506506192e-11  # pi/2 - _PIO2_1 rounded to 53 bits

# fdlibm k_sin.c / k_cos.c, |r| <= pi/4.
_S1 = -1.66666666666666324348e-01
_S2 = 8.33333333332248946124e-03
_S3 = -1.98412698298579493134e-04
_S4 = 2.75573137070700676789e-06
_S5 = -2.50507602534068634195e-08
_S6 = 1.58969099521155010221e-10
_C1 = 4.16666666666666019037e-02
_C2 = -1.38888888888741095749e-03
_C3 = 2.48015872894767294178e-05
_C4 = -2.75573143513906633035e-07
_C5 = 2.08757232129817482790e-09
_C6 = -1.13596475577881948265e-11


@numba.njit(inline="always", cache=True, fastmath=False)
def _exp_reduce_f64(x):
    """x = n*ln2 + r + c; returns (n, r, t) with t = expm1(r + c) - r to ~2**-60 absolute.

    Valid for finite |x| <= 746. |r| <= ln2/2, c is the rounding error of r, and |t| < 0.07,
    so the callers can add 1 + r + t (exp) or s*r + s*t (expm1) with a Fast2Sum and end
    up with a single significant rounding.
    """
    kd = x * _LOG2E + _SHIFT
    n = _f64_bits(kd) - _SHIFT_BITS
    kd = kd - _SHIFT
    hi = x - kd * _LN2_HI  # exact
    lo = kd * _LN2_LO
    r = hi - lo
    c = (hi - r) - lo
    q = _fma(r, _E10, _E9)
    q = _fma(r, q, _E8)
    q = _fma(r, q, _E7)
    q = _fma(r, q, _E6)
    q = _fma(r, q, _E5)
    q = _fma(r, q, _E4)
    q = _fma(r, q, _E3)
    q = _fma(r, q, _E2)
    q = _fma(r, q, _E1)
    q = _fma(r, q, _E0)
    # expm1(r + c) = r + r*r*q(r) + c*(1 + r) + O(c*r*r)
    t = _fma(r * r, q, _fma(c, r, c))
    return n, r, t


@numba.njit(inline="always", cache=True, fastmath=False)
def _exp_parts_f64(x):
    """exp(x) = (p + p_lo) * s1 * s2 for finite -746 <= x <= 710, |p_lo| <= ulp(p)/2."""
    n, r, t = _exp_reduce_f64(x)
    hi = 1.0 + r  # Fast2Sum: hi + lo == 1 + r exactly
    lo = (1.0 - hi) + r
    lo = lo + t
    p = hi + lo
    p_lo = lo - (p - hi)
    # 2**n as two normal factors so n in [-1076, 1024] needs no special casing.
    n1 = n >> 1
    s1 = _f64_from_bits((n1 + 1023) << 52)
    s2 = _f64_from_bits((n - n1 + 1023) << 52)
    return p, p_lo, s1, s2


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _exp_f64(x):
    # Clamping keeps every intermediate finite; the clamped ends still over/underflow
    # naturally (exp(710) = inf, exp(-746) rounds to 0). NaN is restored at the end.
    xc = x if x < 710.0 else 710.0
    xc = xc if xc > -746.0 else -746.0
    p, _, s1, s2 = _exp_parts_f64(xc)
    res = (p * s1) * s2
    return res if x == x else x


@numba.njit(inline="always", cache=True, fastmath=False)
def _expm1_parts_f64(x):
    """expm1(x) = t + t_lo (|t_lo| <= ulp(t)/2) for finite -40 <= x <= 710."""
    n, r, t = _exp_reduce_f64(x)
    # 2**n * (1 + r + t) - 1 = 2 * ((s - 0.5) + s*r + s*t) with s = 2**(n-1): s - 0.5 and
    # s*r are exact and |s - 0.5| >= |s*r| unless s - 0.5 == 0, so Fast2Sum applies. The
    # factor 2 outside lets n = 1024 overflow only when the true result does.
    s = _f64_from_bits((n + 1022) << 52)
    a = s - 0.5
    b = s * r
    hi = a + b
    lo = (b - (hi - a)) + s * t
    h = hi + lo
    return 2.0 * h, 2.0 * (lo - (h - hi))


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _expm1_f64(x):
    xc = x if x < 710.0 else 710.0
    xc = xc if xc > -40.0 else -40.0
    res, _ = _expm1_parts_f64(xc)
    res = x if x == 0.0 else res  # keeps -0.0
    return res if x == x else x


@numba.njit(inline="always", cache=True, fastmath=False)
def _log_core_f64(x, c):
    """log(x) + c for finite x > 0, where c is a tiny correction (|c| << ulp(log x))."""
    sub = x < _MIN_NORMAL
    xs = x * _TWO54 if sub else x
    ix = _f64_bits(xs)
    k = (ix - _SQRT_HALF_BITS) >> 52  # x = 2**k * m with m in [sqrt(1/2), sqrt(2))
    m = _f64_from_bits(ix - (k << 52))
    k = k - 54 if sub else k
    kd = _f64_from_bits(k + _SHIFT_BITS) - _SHIFT  # int -> float without cvtqq2pd
    f = m - 1.0
    s = _div(f, 2.0 + f)
    z = s * s
    w = z * z
    t1 = w * _fma(w, _fma(w, _LG6, _LG4), _LG2)
    t2 = z * _fma(w, _fma(w, _fma(w, _LG7, _LG5), _LG3), _LG1)
    rr = t2 + t1
    hfsq = 0.5 * f * f
    return kd * _LN2_HI - ((hfsq - (s * (hfsq + rr) + (kd * _LN2_LO + c))) - f)


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _log_f64(x):
    res = _log_core_f64(x, 0.0)
    res = res if x < _INF else x  # +inf -> inf, nan -> nan
    res = -_INF if x == 0.0 else res
    return _NAN if x < 0.0 else res


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _log1p_f64(x):
    u = 1.0 + x
    # c = (1 + x) - u exactly (fdlibm s_log1p.c), so log1p(x) = log(u) + c/u.
    c = (1.0 - (u - x)) if u >= 2.0 else (x - (u - 1.0))
    uc = u if u > 0.0 else 1.0  # keeps x <= -1 and nan from producing 0/0 on the way
    res = _log_core_f64(uc, _div(c, uc))
    res = res if x < _INF else x
    res = x if abs(x) < 5.551115123125783e-17 else res  # |x| < 2**-54: log1p(x) = x, -0.0
    res = -_INF if x == -1.0 else res
    return _NAN if x < -1.0 else res


@numba.njit(inline="always", cache=True, fastmath=False)
def _reduce_pio2_f64(x):
    """x = n*pi/2 + (rh + rl), |rh| <~ pi/4, for |x| < 2**20 * pi/2. Returns (n & 3, rh, rl)."""
    kd = x * _TWO_OVER_PI + _SHIFT
    q = _f64_bits(kd) & 3
    n = kd - _SHIFT
    a = x - n * _PIO2_1  # exact
    # TwoSum(a, -n*P2) and TwoSum(t1, -n*P3): every n*P_i is exact, so t2 + e1 + e2 is
    # exactly x - n*(P1 + P2 + P3).
    b = -(n * _PIO2_2)
    t1 = a + b
    ap = t1 - b
    bp = t1 - ap
    e1 = (a - ap) + (b - bp)
    b = -(n * _PIO2_3)
    t2 = t1 + b
    ap = t2 - b
    bp = t2 - ap
    e2 = (t1 - ap) + (b - bp)
    e = (e1 + e2) - n * _PIO2_3T
    rh = t2 + e
    rl = (t2 - rh) + e
    return q, rh, rl


@numba.njit(inline="always", cache=True, fastmath=False)
def _sin_kernel_f64(x, y):
    """sin(x + y) for |x| <= pi/4, |y| <= ulp(x)/2 (fdlibm __kernel_sin)."""
    z = x * x
    w = z * z
    r = _fma(z, _fma(z, _S4, _S3), _S2) + z * w * _fma(z, _S6, _S5)
    v = z * x
    return x - ((z * (0.5 * y - v * r) - y) - v * _S1)


@numba.njit(inline="always", cache=True, fastmath=False)
def _cos_kernel_f64(x, y):
    """cos(x + y) for |x| <= pi/4, |y| <= ulp(x)/2 (fdlibm/musl __cos)."""
    z = x * x
    w = z * z
    r = z * _fma(z, _fma(z, _C3, _C2), _C1) + w * w * _fma(z, _fma(z, _C6, _C5), _C4)
    hz = 0.5 * z
    w = 1.0 - hz
    return w + (((1.0 - w) - hz) + (z * r - x * y))


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _sin_f64(x):
    q, rh, rl = _reduce_pio2_f64(x)
    s = _sin_kernel_f64(rh, rl)
    c = _cos_kernel_f64(rh, rl)
    res = c if (q & 1) != 0 else s
    res = -res if (q & 2) != 0 else res
    res = x if abs(x) < 7.450580596923828e-09 else res  # |x| < 2**-27: sin(x) = x, -0.0
    return res if abs(x) < SIN_COS_LIMIT else _NAN + x  # +-inf, nan, |x| too large


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _cos_f64(x):
    q, rh, rl = _reduce_pio2_f64(x)
    s = _sin_kernel_f64(rh, rl)
    c = _cos_kernel_f64(rh, rl)
    res = s if (q & 1) != 0 else c
    res = -res if ((q + 1) & 2) != 0 else res
    return res if abs(x) < SIN_COS_LIMIT else _NAN + x


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _tanh_f64(x):
    a = abs(x)
    a = a if a < 22.0 else 22.0  # tanh(22) rounds to 1; also maps inf (and nan) to 22
    t, t_lo = _expm1_parts_f64(a + a)
    # tanh(a) = t / (t + 2). Division with a correction step: d + dd == t + t_lo + 2,
    # q = fl(t / d), rem = t - q*d exactly, tanh ~ q + (rem + t_lo - q*dd) / d, and
    # 1 / d = (1 - q) / 2 (exact enough below a = 18; beyond, tanh is 1 - tiny and the
    # correction is dropped).
    d = t + 2.0
    tp = d - 2.0
    dd = ((t - tp) + (2.0 - (d - tp))) + t_lo
    q = _div(t, d)
    rem = _fnma_exact(q, d, t)
    rcp = 0.5 * (1.0 - q) if a < 18.0 else 0.0
    res = _fma((rem + t_lo) - q * dd, rcp, q)
    res = -res if x < 0.0 else res
    res = x if abs(x) < 3.725290298461914e-09 else res  # |x| < 2**-28: tanh(x) = x, -0.0
    return res if x == x else x


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _sigmoid_f64(x):
    ax = abs(x)
    xc = ax if ax < 746.0 else 746.0
    p, p_lo, s1, s2 = _exp_parts_f64(-xc)  # e = exp(-|x|) in [0, 1]: never overflows
    e = (p * s1) * s2
    e_lo = (p_lo * s1) * s2
    d = 1.0 + e
    dd = ((1.0 - d) + e) + e_lo  # d + dd == 1 + e + e_lo
    pos = x >= 0.0
    num = 1.0 if pos else e
    q = _div(num, d)
    rem = _fnma_exact(q, d, num)
    # sigmoid ~ q + (rem + num_lo - q*dd) / d with 1 / d = q (x >= 0) or 1 - q (x < 0).
    res = _fma((rem + (0.0 if pos else e_lo)) - q * dd, q if pos else 1.0 - q, q)
    return res if x == x else x


# --------------------------------------------------------------------------------------
# float32 kernels: float32 arithmetic and constants throughout (8 lanes per ymm), except
# the sin/cos argument reduction, which is done in float64 for accuracy and range.
# --------------------------------------------------------------------------------------

_F32_SHIFT = np.float32(12582912.0)  # 0x1.8p23
_F32_SHIFT_BITS = 0x4B400000
_F32_LOG2E = np.float32(1.4426950408889634)
_F32_EXP_LN2_HI = np.float32(0.693359375)  # 0x3f318000: n * hi exact for |n| < 2**15
_F32_EXP_LN2_LO = np.float32(-2.1219444005469057e-04)
_F32_ONE = np.float32(1.0)
_F32_TWO = np.float32(2.0)
_F32_HALF = np.float32(0.5)
_F32_ZERO = np.float32(0.0)
_F32_EXP_HI = np.float32(89.0)
_F32_EXP_LO = np.float32(-104.0)
_F32_EXPM1_LO = np.float32(-20.0)
_F32_TWO25 = np.float32(33554432.0)
_F32_MIN_NORMAL = np.float32(1.1754943508222875e-38)
_F32_SQRT_HALF_BITS = 0x3F3504F3
_F32_LN2_HI = np.float32(6.9313812256e-01)  # 0x3f317180
_F32_LN2_LO = np.float32(9.0580006145e-06)  # 0x3717f7d1
_F32_TINY = np.float32(2.0**-12)
_F32_LOG1P_TINY = np.float32(2.0**-25)
_F32_TANH_CLAMP = np.float32(10.0)
_F32_TANH_CORR_MAX = np.float32(7.5)
_F32_SIN_COS_LIMIT = np.float32(SIN_COS_LIMIT)

# (expm1(r) - r) / r**2 on |r| <= ln2/2, float32 coefficients, |error| < 4.4e-9.
_F32_E0 = np.float32(0.5)
_F32_E1 = np.float32(0.1666666716337204)
_F32_E2 = np.float32(0.041666463017463684)
_F32_E3 = np.float32(0.00833331048488617)
_F32_E4 = np.float32(0.0013933820882812142)
_F32_E5 = np.float32(0.00019891180272679776)

# musl e_logf.c
_F32_LG1 = np.float32(0.6666666269302368)  # 0x3f2aaaaa
_F32_LG2 = np.float32(0.40000972151756287)  # 0x3eccce13
_F32_LG3 = np.float32(0.2849878668785095)  # 0x3e91e9ee
_F32_LG4 = np.float32(0.24279078841209412)  # 0x3e789e26

# sin(r) = r + r**3 * S(r*r), cos(r) = 1 - r*r/2 + r**4 * C(r*r) on |r| <= pi/4.
_F32_S0 = np.float32(-0.1666666716337204)
_F32_S1 = np.float32(0.008333331905305386)
_F32_S2 = np.float32(-0.00019840076856780797)
_F32_S3 = np.float32(2.72487022812129e-06)
_F32_C0 = np.float32(0.0416666641831398)
_F32_C1 = np.float32(-0.0013888297835364938)
_F32_C2 = np.float32(2.4546930944779888e-05)


@numba.njit(inline="always", cache=True, fastmath=False)
def _exp_reduce_f32(x):
    kd = x * _F32_LOG2E + _F32_SHIFT
    n = _f32_bits(kd) - _F32_SHIFT_BITS
    kd = kd - _F32_SHIFT
    hi = x - kd * _F32_EXP_LN2_HI
    lo = kd * _F32_EXP_LN2_LO
    r = hi - lo
    c = (hi - r) - lo
    q = _fma(r, _F32_E5, _F32_E4)
    q = _fma(r, q, _F32_E3)
    q = _fma(r, q, _F32_E2)
    q = _fma(r, q, _F32_E1)
    q = _fma(r, q, _F32_E0)
    t = _fma(r * r, q, _fma(c, r, c))
    return n, r, t


@numba.njit(inline="always", cache=True, fastmath=False)
def _exp_parts_f32(x):
    n, r, t = _exp_reduce_f32(x)
    hi = _F32_ONE + r
    lo = (_F32_ONE - hi) + r
    lo = lo + t
    p = hi + lo
    p_lo = lo - (p - hi)
    n1 = n >> 1
    s1 = _f32_from_bits((n1 + 127) << 23)
    s2 = _f32_from_bits((n - n1 + 127) << 23)
    return p, p_lo, s1, s2


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _exp_f32(x):
    xc = x if x < _F32_EXP_HI else _F32_EXP_HI
    xc = xc if xc > _F32_EXP_LO else _F32_EXP_LO
    p, _, s1, s2 = _exp_parts_f32(xc)
    res = (p * s1) * s2
    return res if x == x else x


@numba.njit(inline="always", cache=True, fastmath=False)
def _expm1_parts_f32(x):
    n, r, t = _exp_reduce_f32(x)
    s = _f32_from_bits((n + 126) << 23)
    a = s - _F32_HALF
    b = s * r
    hi = a + b
    lo = (b - (hi - a)) + s * t
    h = hi + lo
    return _F32_TWO * h, _F32_TWO * (lo - (h - hi))


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _expm1_f32(x):
    xc = x if x < _F32_EXP_HI else _F32_EXP_HI
    xc = xc if xc > _F32_EXPM1_LO else _F32_EXPM1_LO
    res, _ = _expm1_parts_f32(xc)
    res = x if x == _F32_ZERO else res
    return res if x == x else x


@numba.njit(inline="always", cache=True, fastmath=False)
def _log_core_f32(x, c):
    sub = x < _F32_MIN_NORMAL
    xs = x * _F32_TWO25 if sub else x
    ix = _f32_bits(xs) & 0x7FFFFFFF  # sign dropped (x < 0 is NaN anyway): int32 ops suffice
    k = (ix - _F32_SQRT_HALF_BITS) >> 23
    m = _f32_from_bits(ix - (k << 23))
    k = k - 25 if sub else k
    kd = _f32_from_bits(k + _F32_SHIFT_BITS) - _F32_SHIFT
    f = m - _F32_ONE
    s = _div(f, _F32_TWO + f)
    z = s * s
    w = z * z
    t1 = w * _fma(w, _F32_LG4, _F32_LG2)
    t2 = z * _fma(w, _F32_LG3, _F32_LG1)
    rr = t2 + t1
    hfsq = _F32_HALF * f * f
    return s * (hfsq + rr) + (kd * _F32_LN2_LO + c) - hfsq + f + kd * _F32_LN2_HI


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _log_f32(x):
    res = _log_core_f32(x, _F32_ZERO)
    res = res if x < _F32_INF else x
    res = -_F32_INF if x == _F32_ZERO else res
    return _F32_NAN if x < _F32_ZERO else res


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _log1p_f32(x):
    u = _F32_ONE + x
    c = (_F32_ONE - (u - x)) if u >= _F32_TWO else (x - (u - _F32_ONE))
    uc = u if u > _F32_ZERO else _F32_ONE
    res = _log_core_f32(uc, _div(c, uc))
    res = res if x < _F32_INF else x
    res = x if abs(x) < _F32_LOG1P_TINY else res  # |x| < 2**-25: log1p(x) = x, -0.0
    res = -_F32_INF if x == -_F32_ONE else res
    return _F32_NAN if x < -_F32_ONE else res


@numba.njit(inline="always", cache=True, fastmath=False)
def _reduce_pio2_f32(x):
    """x = n*pi/2 + r (r rounded to float32) for |x| < 2**20 * pi/2, in float64."""
    xd = np.float64(x)
    kd = xd * _TWO_OVER_PI + _SHIFT
    q = _f64_bits(kd) & 3
    n = kd - _SHIFT
    r = (xd - n * _PIO2_1) - n * _PIO2_1T
    return q, np.float32(r)


@numba.njit(inline="always", cache=True, fastmath=False)
def _sin_kernel_f32(r, z):
    p = _fma(z, _fma(z, _fma(z, _F32_S3, _F32_S2), _F32_S1), _F32_S0)
    return _fma(r * z, p, r)


@numba.njit(inline="always", cache=True, fastmath=False)
def _cos_kernel_f32(z):
    p = _fma(z, _fma(z, _F32_C2, _F32_C1), _F32_C0)
    hz = _F32_HALF * z
    w = _F32_ONE - hz
    return w + (((_F32_ONE - w) - hz) + (z * z) * p)


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _sin_f32(x):
    q, r = _reduce_pio2_f32(x)
    z = r * r
    s = _sin_kernel_f32(r, z)
    c = _cos_kernel_f32(z)
    res = c if (q & 1) != 0 else s
    res = -res if (q & 2) != 0 else res
    res = x if abs(x) < _F32_TINY else res  # |x| < 2**-12: sin(x) = x, keeps -0.0
    return res if abs(x) < _F32_SIN_COS_LIMIT else _F32_NAN + x


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _cos_f32(x):
    q, r = _reduce_pio2_f32(x)
    z = r * r
    s = _sin_kernel_f32(r, z)
    c = _cos_kernel_f32(z)
    res = s if (q & 1) != 0 else c
    res = -res if ((q + 1) & 2) != 0 else res
    return res if abs(x) < _F32_SIN_COS_LIMIT else _F32_NAN + x


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _tanh_f32(x):
    a = abs(x)
    a = a if a < _F32_TANH_CLAMP else _F32_TANH_CLAMP  # tanh(10) rounds to 1
    t, t_lo = _expm1_parts_f32(a + a)
    d = t + _F32_TWO
    tp = d - _F32_TWO
    dd = ((t - tp) + (_F32_TWO - (d - tp))) + t_lo
    q = _div(t, d)
    rem = _fnma_exact(q, d, t)
    rcp = _F32_HALF * (_F32_ONE - q) if a < _F32_TANH_CORR_MAX else _F32_ZERO
    res = _fma((rem + t_lo) - q * dd, rcp, q)
    res = -res if x < _F32_ZERO else res
    res = x if abs(x) < _F32_TINY else res  # |x| < 2**-12: tanh(x) = x, keeps -0.0
    return res if x == x else x


@numba.njit(forceinline=True, cache=True, fastmath=False, error_model="numpy")
def _sigmoid_f32(x):
    ax = abs(x)
    xc = ax if ax < -_F32_EXP_LO else -_F32_EXP_LO
    p, p_lo, s1, s2 = _exp_parts_f32(-xc)
    e = (p * s1) * s2
    e_lo = (p_lo * s1) * s2
    d = _F32_ONE + e
    dd = ((_F32_ONE - d) + e) + e_lo
    pos = x >= _F32_ZERO
    num = _F32_ONE if pos else e
    q = _div(num, d)
    rem = _fnma_exact(q, d, num)
    res = _fma((rem + (_F32_ZERO if pos else e_lo)) - q * dd, q if pos else _F32_ONE - q, q)
    return res if x == x else x


# --------------------------------------------------------------------------------------
# Public functions. The isinstance test is resolved while compiling: Numba's partial type
# inference marks the dead branch (whose guard intrinsic does not type for that input) and
# prunes it, so float32 gets only the float32 kernel and everything else (float64, ints,
# bools) only the float64 one.
# --------------------------------------------------------------------------------------


@numba.njit(inline="always", cache=True, fastmath=False)
def vexp(x):
    """exp(x), branch-free."""
    if isinstance(x, numba.float32):
        return _exp_f32(_only_f32(x))
    return _exp_f64(_to_f64(x))


@numba.njit(inline="always", cache=True, fastmath=False)
def vexpm1(x):
    """exp(x) - 1, accurate near 0, branch-free."""
    if isinstance(x, numba.float32):
        return _expm1_f32(_only_f32(x))
    return _expm1_f64(_to_f64(x))


@numba.njit(inline="always", cache=True, fastmath=False)
def vlog(x):
    """Natural log, branch-free (log(0) = -inf, log(x < 0) = nan)."""
    if isinstance(x, numba.float32):
        return _log_f32(_only_f32(x))
    return _log_f64(_to_f64(x))


@numba.njit(inline="always", cache=True, fastmath=False)
def vlog1p(x):
    """log(1 + x), accurate near 0, branch-free."""
    if isinstance(x, numba.float32):
        return _log1p_f32(_only_f32(x))
    return _log1p_f64(_to_f64(x))


@numba.njit(inline="always", cache=True, fastmath=False)
def vsin(x):
    """sin(x) for |x| < SIN_COS_LIMIT (NaN beyond it; see the module docstring)."""
    if isinstance(x, numba.float32):
        return _sin_f32(_only_f32(x))
    return _sin_f64(_to_f64(x))


@numba.njit(inline="always", cache=True, fastmath=False)
def vcos(x):
    """cos(x) for |x| < SIN_COS_LIMIT (NaN beyond it; see the module docstring)."""
    if isinstance(x, numba.float32):
        return _cos_f32(_only_f32(x))
    return _cos_f64(_to_f64(x))


@numba.njit(inline="always", cache=True, fastmath=False)
def vtanh(x):
    """tanh(x), branch-free."""
    if isinstance(x, numba.float32):
        return _tanh_f32(_only_f32(x))
    return _tanh_f64(_to_f64(x))


@numba.njit(inline="always", cache=True, fastmath=False)
def vsigmoid(x):
    """1 / (1 + exp(-x)) via exp(-|x|), so it never overflows; branch-free."""
    if isinstance(x, numba.float32):
        return _sigmoid_f32(_only_f32(x))
    return _sigmoid_f64(_to_f64(x))


@numba.njit(cache=True)
def sin_cos_in_range(a):
    """True if every finite element of array ``a`` has |x| < SIN_COS_LIMIT.

    NaN and +-inf are ignored: vsin/vcos already return NaN for them, like libm.
    """
    bad = False
    for v in a.flat:
        av = abs(v)
        bad |= (av >= SIN_COS_LIMIT) & (av != _INF)
    return not bad
