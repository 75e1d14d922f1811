"""The vectorised loop primitives (nbgrad/ops/vecloops.py) and the float32 results built on
them: softmax / log_softmax / cross-entropy through `exp_flush`, full sums through
`full_sum`. References are computed in float64 by NumPy (or math.fsum)."""

import math

import numpy as np
import pytest
from numba import njit

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.ops.reduce import full_sum
from nbgrad.ops.vecloops import exp_flush

FLT_MIN = float(np.finfo(np.float32).tiny)


@njit(error_model="numpy")
def _exp_loop(x, o):
    for i in range(x.size):
        o[i] = exp_flush(x[i])


def _ulps(got, ref):
    """|got - ref| in units of the float32 spacing at the correctly rounded result."""
    return np.abs(got.astype(np.float64) - ref) / np.spacing(ref.astype(np.float32))


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
