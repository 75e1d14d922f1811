"""Accuracy and vectorisation of nbgrad.backends.cpu.vmath (branch-free vexp/vlog/vsin/...).

Every function runs inside a real Numba loop (the way kernels use it), on dense grids,
random samples over the whole domain and special values, and is compared with numpy
(libm) in ulps. float32 is compared with the float32-rounded float64 result. tanh and
sigmoid use a long-double reference where the platform has one (x86), because numpy's own
float64 tanh / 1/(1+exp(-x)) are not accurate to 1 ulp.
"""

import platform
import re

import numba
import numpy as np
import pytest
from llvmlite import binding as llvm_binding
from numba import njit

from nbgrad import _cache
from nbgrad.backends.cpu import vmath
from nbgrad.backends.cpu.vmath import SIN_COS_LIMIT, sin_cos_in_range

NAMES = ["vexp", "vexpm1", "vlog", "vlog1p", "vsin", "vcos", "vtanh", "vsigmoid"]
DTYPES = [np.float64, np.float32]
MAX_ULP = 2  # the contract; the measured maximum is 1 for every function and dtype

_LD_OK = np.finfo(np.longdouble).nmant >= 63  # x87 80-bit long double


def _all_functions(x, out):
    """out[k, i] = NAMES[k](x[i]): one vectorised loop over every function, the way kernels
    use vmath (a single loop keeps the test's compile time down)."""
    for i in range(x.size):
        v = x[i]
        out[0, i] = vmath.vexp(v)
        out[1, i] = vmath.vexpm1(v)
        out[2, i] = vmath.vlog(v)
        out[3, i] = vmath.vlog1p(v)
        out[4, i] = vmath.vsin(v)
        out[5, i] = vmath.vcos(v)
        out[6, i] = vmath.vtanh(v)
        out[7, i] = vmath.vsigmoid(v)


def _all_functions_fastmath(x, out):  # same body; its own function so caches stay apart
    for i in range(x.size):
        v = x[i]
        out[0, i] = vmath.vexp(v)
        out[1, i] = vmath.vexpm1(v)
        out[2, i] = vmath.vlog(v)
        out[3, i] = vmath.vlog1p(v)
        out[4, i] = vmath.vsin(v)
        out[5, i] = vmath.vcos(v)
        out[6, i] = vmath.vtanh(v)
        out[7, i] = vmath.vsigmoid(v)


def _scalar_types(x):
    return vmath.vexp(x), vmath.vsin(x)


# Cached in nbgrad's source-hash cache directory: LLVM inlines vmath's kernels into these
# loops, so an edit to vmath.py must never be tested through a stale cache entry.
with _cache.numba_cache_dir():
    _ALL = njit(cache=True)(_all_functions)
    _ALL_FASTMATH = njit(cache=True, fastmath=True)(_all_functions_fastmath)
    _SCALAR_TYPES = njit(cache=True)(_scalar_types)


def run_all(x, loop=_ALL):
    out = np.empty((len(NAMES), x.size), dtype=x.dtype)
    loop(x, out)
    return out


def run(name, x):
    return run_all(x)[NAMES.index(name)]


def _sigmoid_ref(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


def reference(name, x):
    """float64 reference for float64 x: numpy/libm, long double for tanh and sigmoid."""
    with np.errstate(all="ignore"):
        if name in ("vtanh", "vsigmoid") and _LD_OK:
            xl = x.astype(np.longdouble)
            r = np.tanh(xl) if name == "vtanh" else _sigmoid_ref(xl)
            return r.astype(np.float64)
        f = {
            "vexp": np.exp,
            "vexpm1": np.expm1,
            "vlog": np.log,
            "vlog1p": np.log1p,
            "vsin": np.sin,
            "vcos": np.cos,
            "vtanh": np.tanh,
            "vsigmoid": _sigmoid_ref,
        }[name]
        return f(x)


def _ordinal(a):
    """Map floats to integers that are consecutive for consecutive floats (-0 == +0)."""
    if a.dtype == np.float64:
        i = a.view(np.int64)
        return np.where(i < 0, np.int64(-0x8000000000000000) - i, i)
    i = a.view(np.int32).astype(np.int64)
    return np.where(i < 0, -0x80000000 - i, i)


def ulp_error(got, want):
    """Distance in units in the last place; both NaN -> 0, one NaN -> huge."""
    d = np.abs(_ordinal(got) - _ordinal(want))
    nan_got, nan_want = np.isnan(got), np.isnan(want)
    d = np.where(nan_got & nan_want, 0, d)
    return np.where(nan_got != nan_want, np.iinfo(np.int64).max, d)


def check(name, x, max_ulp=MAX_ULP):
    if name in ("vtanh", "vsigmoid") and not _LD_OK and x.dtype == np.float64:
        max_ulp += 1  # the float64 reference is itself only ~1 ulp accurate
    got = run(name, x)
    assert got.dtype == x.dtype
    want = reference(name, x.astype(np.float64))
    if x.dtype == np.float32:
        with np.errstate(over="ignore"):
            want = want.astype(np.float32)
    err = ulp_error(got, want)
    i = int(np.argmax(err))
    assert err[i] <= max_ulp, (
        f"{name}[{x.dtype}]: {err[i]} ulp at x={x[i]!r} ({float(x[i]).hex()}): "
        f"got {got[i]!r}, want {want[i]!r}"
    )
    return int(err.max())


# ------------------------------------------------------------------ inputs per function


def _log_uniform(rng, lo, hi, n, signed=True):
    m = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
    return m * rng.choice([-1.0, 1.0], n) if signed else m


_SPECIAL_COMMON = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0]
_TINY = [5e-324, -5e-324, 1e-310, -1e-310, 2.2250738585072014e-308, 1e-300, -1e-300]
_TINY += [1e-200, 1e-30, -1e-30, 1e-17, -1e-17, 2.0**-27, -(2.0**-27), 2.0**-54, 1.1e-8]
_HUGE = [1.7976931348623157e308, -1.7976931348623157e308, 1e300, -1e300, 1e20, -1e20]


def inputs(name, dtype):
    rng = np.random.default_rng(2 * NAMES.index(name) + (dtype == np.float32))
    if name in ("vexp", "vexpm1", "vsigmoid", "vtanh"):
        lim = 750.0 if dtype == np.float64 else 110.0
        parts = [
            np.linspace(-40, 40, 80001),
            rng.uniform(-lim, lim, 40000),
            _log_uniform(rng, 1e-30, 1.0, 20000),
            # around the float64 / float32 overflow and underflow thresholds
            np.linspace(709.0, 710.0, 2001),
            np.linspace(-746.0, -707.0, 4001),
            np.linspace(88.0, 89.5, 2001),
            np.linspace(-104.5, -86.0, 4001),
            [709.782712893384, 709.7827128933841, -745.1332191019411, -745.1332191019412],
            [-708.3964185322641, -708.4, 88.72283935546875, 88.72284, -87.33654, -103.97208],
        ]
    elif name == "vlog":
        parts = [
            np.linspace(0.0, 4.0, 80001),
            _log_uniform(rng, 5e-324, 1.7e308, 40000, signed=False),
            1 + np.linspace(-1e-6, 1e-6, 4001),
            rng.uniform(-10, 0, 100),
        ]
    elif name == "vlog1p":
        parts = [
            np.linspace(-1.0, 4.0, 80001),
            _log_uniform(rng, 1e-320, 1e308, 40000),
            np.linspace(-1e-6, 1e-6, 4001),
            -1 + _log_uniform(rng, 1e-16, 0.5, 4000, signed=False),
            [-1.0, -1.0000000000000002, -2.0, -0.9999999999999999],
        ]
    else:  # vsin, vcos
        k = np.arange(-40, 41)
        near = np.concatenate([k * (np.pi / 2), k * (np.pi / 4)])
        lim = SIN_COS_LIMIT  # excluded: vsin/vcos return NaN from there on
        parts = [
            np.linspace(-20, 20, 80001),
            rng.uniform(-lim, lim, 40000),
            _log_uniform(rng, 1e-300, lim, 20000),
            near,
            np.nextafter(near, np.inf),
            np.nextafter(near, -np.inf),
            [np.nextafter(lim, 0), -np.nextafter(lim, 0), SIN_COS_LIMIT / 3],
        ]
    x = np.concatenate([np.asarray(p, dtype=np.float64) for p in parts] + [_SPECIAL_COMMON])
    if dtype == np.float64:
        x = np.concatenate([x, _TINY, _HUGE])
    with np.errstate(over="ignore"):
        x = x.astype(dtype)
    if name in ("vsin", "vcos"):  # finite |x| >= SIN_COS_LIMIT gives NaN by design
        x = x[~((np.abs(x) >= SIN_COS_LIMIT) & np.isfinite(x))]
    return x


# ------------------------------------------------------------------ accuracy tests


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", NAMES)
def test_accuracy_ulps(name, dtype):
    check(name, inputs(name, dtype))


# The doubles closest to multiples of pi/2 below SIN_COS_LIMIT (|x - k*pi/2| down to
# 2**-60.5), where an argument reduction without enough bits of pi/2 fails.
_HARD_TRIG = [
    "0x1.6c6cbc45dc8dep+5",
    "0x1.6c6cbc45dc8dep+6",
    "0x1.6c6cbc45dc8dep+8",
    "0x1.6c6cbc45dc8dep+11",
    "0x1.6c6cbc45dc8dep+12",
    "0x1.6c6cbc45dc8dep+19",
    "0x1.39c6fd67805a7p+18",
    "0x1.a9adcc7f96cf0p+19",
    "0x1.93c05c9ed3cbcp+19",
    "0x1.921fb54442d18p+0",
    "0x1.921fb54442d18p+1",
    "0x1.921fb54442d18p+2",
]


@pytest.mark.parametrize("name", ["vsin", "vcos"])
def test_trig_hard_reductions_float64(name):
    x = np.array([float.fromhex(h) for h in _HARD_TRIG])
    x = np.concatenate([x, -x])
    x = np.concatenate([x, np.nextafter(x, np.inf), np.nextafter(x, -np.inf)])
    check(name, x)


@pytest.mark.parametrize("name", ["vsin", "vcos"])
def test_trig_every_float32_multiple_of_pi_over_2(name):
    # the float32 nearest to k*pi/2 (and both neighbours) for every k up to 2**17
    k = np.arange(1, 2**17, dtype=np.float64)
    x = (k * (np.pi / 2)).astype(np.float32)
    x = np.concatenate([x, np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(0))])
    check(name, np.concatenate([x, -x]))


# ------------------------------------------------------------------ special values


def _same(got, want):
    """Bitwise-style equality: NaN matches NaN, and 0.0 does not match -0.0."""
    both_nan = np.isnan(got) & np.isnan(want)
    equal = (got == want) & (np.signbit(got) == np.signbit(want))
    return bool(np.all(both_nan | equal))


_INF, _NAN = np.inf, np.nan
SPECIALS = {
    "vexp": [(0.0, 1.0), (-0.0, 1.0), (_INF, _INF), (-_INF, 0.0), (_NAN, _NAN),
             (710.0, _INF), (1e308, _INF), (-746.0, 0.0), (-1e308, 0.0)],
    "vexpm1": [(0.0, 0.0), (-0.0, -0.0), (_INF, _INF), (-_INF, -1.0), (_NAN, _NAN),
               (710.0, _INF), (-50.0, -1.0), (1e-300, 1e-300), (-1e-300, -1e-300)],
    "vlog": [(0.0, -_INF), (-0.0, -_INF), (1.0, 0.0), (-1.0, _NAN), (-_INF, _NAN),
             (_INF, _INF), (_NAN, _NAN), (-5e-324, _NAN)],
    "vlog1p": [(0.0, 0.0), (-0.0, -0.0), (-1.0, -_INF), (-1.5, _NAN), (-_INF, _NAN),
               (_INF, _INF), (_NAN, _NAN), (1e-300, 1e-300), (-1e-300, -1e-300)],
    "vsin": [(0.0, 0.0), (-0.0, -0.0), (_INF, _NAN), (-_INF, _NAN), (_NAN, _NAN),
             (1e-300, 1e-300), (-1e-300, -1e-300)],
    "vcos": [(0.0, 1.0), (-0.0, 1.0), (_INF, _NAN), (-_INF, _NAN), (_NAN, _NAN)],
    "vtanh": [(0.0, 0.0), (-0.0, -0.0), (_INF, 1.0), (-_INF, -1.0), (_NAN, _NAN),
              (30.0, 1.0), (-30.0, -1.0), (1e-300, 1e-300), (-1e-300, -1e-300)],
    "vsigmoid": [(0.0, 0.5), (-0.0, 0.5), (_INF, 1.0), (-_INF, 0.0), (_NAN, _NAN),
                 (800.0, 1.0), (-800.0, 0.0)],
}  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", NAMES)
def test_special_values(name, dtype):
    xs, want = (np.array(v) for v in zip(*SPECIALS[name], strict=True))
    if dtype == np.float32:  # drop the inputs that are 0 in float32
        keep = (np.abs(xs) > 1e-30) | (xs == 0) | np.isnan(xs)
        xs, want = xs[keep], want[keep]
    with np.errstate(over="ignore", under="ignore"):
        x, want = xs.astype(dtype), want.astype(dtype)
    got = run(name, x)
    assert _same(got, want), f"{name}[{np.dtype(dtype).name}] {x} -> {got}, want {want}"


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["vsin", "vcos"])
def test_trig_beyond_limit_is_nan(name, dtype):
    x = np.array([SIN_COS_LIMIT, -SIN_COS_LIMIT, 1e7, -3e9, 1e30], dtype=dtype)
    assert np.isnan(run(name, x)).all()


def test_sin_cos_in_range():
    assert sin_cos_in_range(np.array([0.0, -3.0, np.nan, np.inf, -np.inf]))
    assert sin_cos_in_range(np.linspace(-1e6, 1e6, 11).astype(np.float32).reshape(11, 1))
    assert not sin_cos_in_range(np.array([0.0, SIN_COS_LIMIT]))
    assert not sin_cos_in_range(np.array([[1.0, -2e6], [0.0, 1.0]])[:, ::-1])


# ------------------------------------------------------------------ types and compilation


@pytest.mark.parametrize(
    "arg, want",
    [(np.float32(0.5), numba.float32), (0.5, numba.float64), (3, numba.float64)],
)
def test_result_type_follows_input(arg, want):
    _SCALAR_TYPES(arg)
    sig = [s for s in _SCALAR_TYPES.overloads if s[0] == numba.typeof(arg)][0]
    assert _SCALAR_TYPES.overloads[sig].signature.return_type == numba.types.UniTuple(want, 2)
    assert abs(vmath.vexp(3) / np.exp(3.0) - 1) < 1e-15  # ints (and Python calls): float64


def test_fastmath_caller_does_not_change_results():
    """The kernels are compiled with their own flags and LLVM-inlined, so a caller's
    fastmath cannot optimise away their NaN/inf handling or their rounding tricks."""
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, 1e-310, 3.0, 800.0, -800.0, 2e6])
    x = np.concatenate([x, [45.553093477052, -745.2, 709.9], np.linspace(-30, 30, 101)])
    assert _same(run_all(x, _ALL_FASTMATH), run_all(x))


def _loop_asm(fn, dtype):
    """Assembly of the jitted ``fn`` itself (not its CPython wrapper), freshly compiled."""
    loop = njit(fn)  # not cached: Numba cannot show the assembly of cached code
    x = np.ones(8, dtype=dtype)
    loop(x, np.empty((len(NAMES), 8), dtype=dtype))
    asm = loop.inspect_asm(loop.signatures[0]).splitlines()
    name = fn.__name__
    start = next(
        i for i, ln in enumerate(asm) if re.match(rf"_ZN\S*{name}\S*:", ln) and "cpython" not in ln
    )
    end = next(
        (i for i in range(start + 1, len(asm)) if re.match(r"[_a-zA-Z][\w.$]*:", asm[i])),
        len(asm),
    )
    return "\n".join(asm[start:end])


_FEATURES = numba.config.CPU_FEATURES or llvm_binding.get_host_cpu_features().flatten()
_X86_AVX2 = platform.machine().lower() in ("x86_64", "amd64") and "+avx2" in _FEATURES


@pytest.mark.skipif(not _X86_AVX2, reason="checks x86 AVX2/AVX-512 code")
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_loop_is_vectorised(dtype):
    """A loop over all eight functions: no call left in it, and packed arithmetic on ymm/zmm
    (one non-vectorisable function would make LLVM keep the whole loop scalar)."""
    body = _loop_asm(_all_functions, dtype)
    calls = re.findall(r"\bcall\w*\s+(.*)", body)
    assert not calls, f"calls left in the loop: {calls}"
    suffix = "pd" if dtype == np.float64 else "ps"
    packed = re.findall(rf"\bv\w+{suffix}\s[^\n]*%[yz]mm", body)
    assert len(packed) > 200, f"only {len(packed)} packed {suffix} instructions on ymm/zmm"
    for op in ("vfmadd", "vdiv"):
        assert any(p.startswith(op) for p in packed), f"no packed {op}{suffix}"
