"""The vectorised loop primitives (nbgrad/backends/cpu/vecloops.py) and the float32 results built on
them: softmax / log_softmax / cross-entropy through `exp_flush`, full sums through
`full_sum`. References are computed in float64 by NumPy (or math.fsum)."""

import math

import numpy as np
import pytest
from numba import njit, prange

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.backends.cpu.vecloops import LANES, exp_flush, rdot, rmax, rsum, sigmoid_fast, tanh_fast
from nbgrad.ops.reduce import full_sum

FLT_MIN = float(np.finfo(np.float32).tiny)


@njit(error_model="numpy")
def _exp_loop(x, o):
    for i in range(x.size):
        o[i] = exp_flush(x[i])


def _ulps(got, ref):
    """|got - ref| in units of the float32 spacing at the correctly rounded result."""
    return np.abs(got.astype(np.float64) - ref) / np.spacing(ref.astype(np.float32))


def _lane_order(terms):
    """The documented order of rsum/rdot, in Python: LANES running sums (lane j takes terms
    j, j + LANES, ...), halves added until one is left, then the tail one by one."""
    n = len(terms)
    m = n - n % LANES
    acc = [terms.dtype.type(0)] * LANES
    for i in range(0, m, LANES):
        acc = [acc[j] + terms[i + j] for j in range(LANES)]
    while len(acc) > 1:
        h = len(acc) // 2
        acc = [acc[j] + acc[j + h] for j in range(h)]
    s = acc[0]
    for i in range(m, n):
        s = s + terms[i]
    return s


@njit(error_model="numpy")
def _sums_runtime_n(x, y, n):
    return rsum(x[:n]), rdot(x[:n], y[:n])


@njit(error_model="numpy")
def _sums_known_n(x, y):  # lengths LLVM sees as constants (unrolled, inlined)
    return (rsum(x[:4]), rsum(x[:37]), rsum(x[:100]), rdot(x[:4], y[:4]), rdot(x[:37], y[:37]))


@njit(parallel=True, error_model="numpy")
def _row_sums_par(x, n, out):
    for r in prange(out.size):
        out[r] = rsum(x[r * n : (r + 1) * n])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sums_have_one_order_in_every_context(dtype):
    # a compiled program inlines the eager kernels with row lengths known; the sums must
    # not change order there (they did with `reassoc`: 1-ulp gradients on another CPU)
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(4 * 100) * 10.0 ** rng.integers(-6, 7, 4 * 100)).astype(dtype)
    y = rng.standard_normal(4 * 100).astype(dtype)
    for n in (0, 1, 4, 31, 32, 33, 37, 64, 100, 400):
        s, d = _sums_runtime_n(x, y, n)
        assert s == _lane_order(x[:n]) and d == _lane_order(x[:n] * y[:n]), n
    known = [_lane_order(x[:n]) for n in (4, 37, 100)]
    known += [_lane_order(x[:n] * y[:n]) for n in (4, 37)]
    assert list(_sums_known_n(x, y)) == known
    out = np.empty(4, dtype)
    _row_sums_par(x, 100, out)
    assert list(out) == [_lane_order(x[r * 100 : (r + 1) * 100]) for r in range(4)]


@njit(error_model="numpy")
def _rmax(x):
    return rmax(x)


def test_rmax_keeps_nan_and_inf():
    x = np.array([-np.inf, 1.0, -np.inf, 3.0, 2.0] * 9)
    assert _rmax(x) == 3.0
    assert _rmax(np.full(40, -np.inf)) == -np.inf  # a fully masked row
    x[17] = np.nan
    assert np.isnan(_rmax(x))


def test_exp_flush_float32_within_2_ulp():
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            np.linspace(-87.33, 0.0, 1_000_001, dtype=np.float32),
            -np.abs(rng.standard_normal(100_000)).astype(np.float32),
            -rng.random(100_000).astype(np.float32) * 1e-3,  # near 0: exp ~ 1 - |x|
        ]
    )
    o = np.empty_like(x)
    _exp_loop(x, o)
    ref = np.exp(x.astype(np.float64))
    normal = ref >= FLT_MIN
    assert _ulps(o[normal], ref[normal]).max() <= 2.0
    # below FLT_MIN the result may be the subnormal or 0, never more
    assert np.all((o[~normal] >= 0) & (o[~normal] <= FLT_MIN))


def test_exp_flush_special_values():
    x = np.array([-np.inf, np.nan, -1000.0, -88.0, -0.0, 0.0, 1.0, 10.0], np.float32)
    o = np.empty_like(x)
    _exp_loop(x, o)
    assert o[0] == 0 and np.isnan(o[1]) and o[2] == 0 and o[3] == 0
    assert o[4] == 1 and o[5] == 1
    np.testing.assert_allclose(o[6:], np.exp(x[6:].astype(np.float64)), rtol=3e-7)
    # float64 keeps vexp (full range)
    o64 = np.empty(3)
    _exp_loop(np.array([-745.0, -1.0, 700.0]), o64)
    np.testing.assert_allclose(o64, np.exp([-745.0, -1.0, 700.0]), rtol=1e-15)


@njit(error_model="numpy")
def _act_loop(x, s, t):
    for i in range(x.size):
        s[i] = sigmoid_fast(x[i])
        t[i] = tanh_fast(x[i])


def test_fast_sigmoid_and_tanh_float32_within_3_ulp():
    rng = np.random.default_rng(1)
    x = np.concatenate(
        [
            np.linspace(-90.0, 90.0, 1_000_001, dtype=np.float32),
            (rng.standard_normal(200_000) * 3).astype(np.float32),
            np.geomspace(1e-30, 2.0, 100_000, dtype=np.float32),  # tanh's polynomial side
            -np.geomspace(1e-30, 2.0, 100_000, dtype=np.float32),
        ]
    )
    s, t = np.empty_like(x), np.empty_like(x)
    _act_loop(x, s, t)
    x64 = x.astype(np.float64)
    e = np.exp(-np.abs(x64))  # no overflow, no cancellation
    sig = np.where(x64 >= 0, 1 / (1 + e), e / (1 + e))
    normal = sig >= FLT_MIN
    assert _ulps(s[normal], sig[normal]).max() <= 3.0
    assert np.all((s[~normal] >= 0) & (s[~normal] <= FLT_MIN))
    th = np.tanh(x64)
    assert _ulps(t[th != 0], th[th != 0]).max() <= 3.0


def test_fast_sigmoid_and_tanh_special_values():
    x = np.array([-np.inf, np.inf, np.nan, -0.0, 0.0, -200.0, 200.0], np.float32)
    s, t = np.empty_like(x), np.empty_like(x)
    _act_loop(x, s, t)
    assert list(s[[0, 1, 3, 4, 5, 6]]) == [0, 1, 0.5, 0.5, 0, 1] and np.isnan(s[2])
    assert list(t[[0, 1, 5, 6]]) == [-1, 1, -1, 1] and np.isnan(t[2])
    assert t[3] == 0 and np.signbit(t[3]) and t[4] == 0 and not np.signbit(t[4])
    # float64 keeps the elementwise kernels' versions
    s64, t64 = np.empty(3), np.empty(3)
    _act_loop(np.array([-30.0, 0.1, 30.0]), s64, t64)
    np.testing.assert_allclose(s64, 1 / (1 + np.exp([30.0, -0.1, -30.0])), rtol=1e-15)
    np.testing.assert_allclose(t64, np.tanh([-30.0, 0.1, 30.0]), rtol=1e-15)


def _softmax64(a, axis):
    m = a.max(axis, keepdims=True)
    e = np.exp(a - m)
    return e / e.sum(axis, keepdims=True), a - m - np.log(e.sum(axis, keepdims=True))


@pytest.mark.parametrize("shape,dim", [((64, 1000), 1), ((3, 40, 5), 1), ((300, 7), 0)])
def test_softmax_float32_against_float64(shape, dim):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(shape) * 30).astype(np.float32)  # wide rows: many underflows
    a64 = a.astype(np.float64)
    p64, lp64 = _softmax64(a64, dim)
    # float32's own error: x - max is rounded, and exp turns that into a relative error
    # of |x - max| eps; then a few roundings more
    eps = float(np.finfo(np.float32).eps)
    span = np.abs(a64) + np.abs(a64).max(dim, keepdims=True) + 1
    x = nbgrad.tensor(a, requires_grad=True)
    p = F.softmax(x, dim).detach().numpy()
    assert np.all(np.abs(p - p64) <= 4 * eps * span * p64 + 2 * FLT_MIN)
    lp = F.log_softmax(x, dim)
    assert np.all(np.abs(lp.detach().numpy() - lp64) <= 4 * eps * span)
    # VJPs: softmax g -> p (g - sum(g p)); log_softmax g -> g - p sum(g)
    g = rng.standard_normal(shape).astype(np.float32)
    (gx,) = nbgrad.autograd.grad(lp, x, nbgrad.tensor(g))
    ref = g - p64 * g.astype(np.float64).sum(dim, keepdims=True)
    np.testing.assert_allclose(gx.numpy(), ref, rtol=1e-4, atol=1e-5)


def test_cross_entropy_float32_against_float64():
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((512, 300)) * 20).astype(np.float32)
    t = rng.integers(0, 300, 512)
    _, lp64 = _softmax64(a.astype(np.float64), 1)
    x = nbgrad.tensor(a, requires_grad=True)
    loss = F.cross_entropy(x, nbgrad.tensor(t))
    np.testing.assert_allclose(loss.item(), -lp64[np.arange(512), t].mean(), rtol=2e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1 << 14, 3_000_001])
def test_full_sum_is_accurate(dtype, n):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(n) + 0.5).astype(dtype)
    exact = math.fsum(a.astype(np.float64))
    eps = float(np.finfo(dtype).eps)
    assert abs(full_sum(a) - exact) <= 4 * eps * np.abs(a).sum()
    s = nbgrad.tensor(a.reshape(-1, 1000 if n % 1000 == 0 else 1)).sum()
    assert s.dtype == nbgrad.tensor(a).dtype and s.shape == ()
    assert abs(float(s.item()) - exact) <= 4 * eps * np.abs(a).sum()
    m = nbgrad.tensor(a).mean(dim=0, keepdim=True)
    assert m.shape == (1,)
    assert abs(float(m.item()) - exact / n) <= 4 * eps * np.abs(a).mean()


def test_full_sum_propagates_inf_and_nan():
    a = np.zeros(1 << 15, np.float32)
    a[100] = np.inf
    assert nbgrad.tensor(a).sum().item() == np.inf
    a[200] = -np.inf
    assert np.isnan(nbgrad.tensor(a).sum().item())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_add_sub_mul_vjps(dtype):
    """add / sub / mul VJPs on arrays past the parallel threshold (`gmul_par`), both as a
    first write and accumulated (x appears in several terms), against closed forms."""
    n = (1 << 16) + 37
    rng = np.random.default_rng(4)
    a, b, g = (rng.standard_normal(n).astype(dtype) for _ in range(3))
    x = nbgrad.tensor(a, requires_grad=True)
    y = nbgrad.tensor(b, requires_grad=True)
    c = nbgrad.tensor(b)  # no gradient wanted
    z = x * y + x - y + x * x - c * x
    gx, gy = nbgrad.autograd.grad(z, (x, y), nbgrad.tensor(g))
    a64, b64, g64 = (v.astype(np.float64) for v in (a, b, g))
    eps = float(np.finfo(dtype).eps)
    bound = 8 * eps * np.abs(g64) * (2 * np.abs(b64) + 1 + 2 * np.abs(a64))  # a few roundings
    assert np.all(np.abs(gx.numpy() - g64 * (1 + 2 * a64)) <= bound)
    assert np.all(np.abs(gy.numpy() - g64 * (a64 - 1)) <= bound)
