"""`backends/cpu/blas.py`: every product runs on one BLAS, NumPy's bundled OpenBLAS where
NumPy has one, else SciPy's (`NBGRAD_BLAS=scipy` forces it). Both paths must give the
products and gradients NumPy's float64 arithmetic gives."""

import os
import subprocess
import sys

import numpy as np
import pytest

import nbgrad
from nbgrad.backends.cpu import blas

# products through every layout gemm takes: plain, transposed views (BLAS reads them in
# place), a batch, a vector, an empty inner dimension; checked in float64 against NumPy
CHECK = r"""
import numpy as np
import nbgrad
from nbgrad.backends.cpu import blas

rng = np.random.default_rng(0)
for dt, tol in ((np.float32, 1e-4), (np.float64, 1e-12)):
    for sa, sb, ta, tb in [((5, 7), (7, 3), 0, 0), ((7, 5), (7, 3), 1, 0),
                           ((5, 7), (3, 7), 0, 1), ((7, 5), (3, 7), 1, 1),
                           ((4, 5, 6), (6, 2), 0, 0), ((1, 9), (9, 1), 0, 0),
                           ((9,), (9, 4), 0, 0), ((3, 0), (0, 2), 0, 0)]:
        a0 = rng.standard_normal(sa).astype(dt)
        b0 = rng.standard_normal(sb).astype(dt)
        a = nbgrad.tensor(a0, requires_grad=True)
        b = nbgrad.tensor(b0, requires_grad=True)
        A = a.transpose(-1, -2) if ta else a
        B = b.transpose(-1, -2) if tb else b
        y = A @ B
        g0 = rng.standard_normal(tuple(y.shape)).astype(dt)
        y.backward(nbgrad.tensor(g0))
        a64, b64 = a0.astype(np.float64), b0.astype(np.float64)
        A64 = np.swapaxes(a64, -1, -2) if ta else a64
        B64 = np.swapaxes(b64, -1, -2) if tb else b64
        want = A64 @ B64
        # gradients: d(sum(g * A B)) by the chain rule in float64
        g64 = g0.astype(np.float64)
        if A64.ndim == 1:
            gA, gB = B64 @ g64, np.outer(A64, g64)
        else:
            gA = g64 @ np.swapaxes(B64, -1, -2)
            gB = np.swapaxes(A64, -1, -2) @ g64
            gB = gB.sum(0) if gB.ndim > B64.ndim else gB
        ga = np.swapaxes(gA, -1, -2) if ta else gA
        gb = np.swapaxes(gB, -1, -2) if tb else gB
        scale = 1 + np.abs(want).max(initial=0)
        for got, exp in ((y, want), (a.grad, ga), (b.grad, gb)):
            err = np.abs(got.detach().numpy().astype(np.float64) - exp).max(initial=0)
            assert err <= tol * scale, (dt, sa, sb, ta, tb, err)
print(blas.BLAS)
"""


def _run(env_blas):
    env = dict(os.environ)
    env.pop("NBGRAD_BLAS", None)
    if env_blas:
        env["NBGRAD_BLAS"] = env_blas
    r = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_scipy_blas_products_and_gradients():
    assert _run("scipy") == "scipy"


def test_default_blas_products_and_gradients():
    found = blas._numpy_openblas() is not None
    assert _run(None) == ("numpy" if found else "scipy")


def test_blas_is_numpys_own_where_bundled():
    libs = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    bundled = os.path.isdir(libs) and any(
        n.startswith("libscipy_openblas64_") for n in os.listdir(libs)
    )
    if not bundled:
        pytest.skip("this NumPy bundles no ILP64 OpenBLAS")
    assert blas.BLAS == "numpy"


def test_accumulating_product_matches_float64():
    """gemm's beta=1 path (a gradient added to an existing one), through nbgrad.mm twice."""
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal((6, 4)).astype(np.float32)
    w0 = rng.standard_normal((4, 5)).astype(np.float32)
    x = nbgrad.tensor(x0, requires_grad=True)
    w = nbgrad.tensor(w0)
    (x @ w).sum().backward()
    (x @ w).sum().backward()
    want = 2 * np.ones((6, 5)) @ w0.astype(np.float64).T
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-5)


# nbgrad's own float32 kernel (sgemm512.py), called directly so it is tested wherever the
# CPU has AVX-512 (elsewhere `gemm` never calls it and these skip)
own = pytest.mark.skipif(not blas.OWN_SGEMM, reason="no AVX-512: products stay on BLAS")


def _own(ta, a, tb, b, c, beta):
    from nbgrad.backends.cpu.sgemm512 import sgemm_from_python

    m, n = c.shape
    k = a.shape[0] if ta else a.shape[1]
    lda, ldb, ldc = (x.strides[0] // 4 for x in (a, b, c))
    pa, pb, pc = a.ctypes.data, b.ctypes.data, c.ctypes.data
    sgemm_from_python(int(ta), pa, lda, int(tb), pb, ldb, pc, ldc, m, n, k, float(beta))


@own
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize(
    "m,n,k",
    # whole tiles, ragged rows/columns, k over one packed block (384), parallel sizes
    [(8, 32, 5), (17, 45, 3), (256, 256, 784), (257, 70, 385), (9, 1000, 700), (1, 33, 1)],
)
def test_own_sgemm_matches_float64(m, n, k, ta, tb):
    rng = np.random.default_rng(m * 1000 + n + k)
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    want = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    tol = 2e-6 * k**0.5 * max(1, np.abs(want).max())
    c = np.full((m, n), np.nan, np.float32)  # beta=0 must never read c
    _own(ta, a, tb, b, c, 0.0)
    np.testing.assert_allclose(c, want, rtol=0, atol=tol)
    c0 = rng.standard_normal((m, n)).astype(np.float32)
    c = c0.copy()
    _own(ta, a, tb, b, c, 1.0)
    np.testing.assert_allclose(c, want + c0, rtol=0, atol=tol)


@own
def test_own_sgemm_strided_rows_and_one_thread():
    """Operands with row strides longer than their rows (views), and one thread."""
    import numba

    rng = np.random.default_rng(5)
    big_a = rng.standard_normal((300, 900)).astype(np.float32)
    big_b = rng.standard_normal((800, 400)).astype(np.float32)
    a, b = big_a[:, 10:790], big_b[:780, 5:305]  # (300, 780) @ (780, 300)
    big_c = np.zeros((300, 320), np.float32)
    c = big_c[:, :300]
    want = a.astype(np.float64) @ b.astype(np.float64)
    old = numba.get_num_threads()
    try:
        for threads in (old, 1):
            numba.set_num_threads(threads)
            c[:] = np.nan
            _own(False, a, False, b, c, 0.0)
            np.testing.assert_allclose(c, want, rtol=0, atol=1e-3)
    finally:
        numba.set_num_threads(old)
    assert (big_c[:, 300:] == 0).all()  # nothing written past c's columns


@own
def test_large_float32_products_take_own_kernel():
    """`gemm` routes large float32 products to the own kernel: its result is bit-for-bit
    the kernel's, and the MLP's shapes (forward and weight gradient) agree with float64."""
    from nbgrad.backends.cpu.blas import gemm

    rng = np.random.default_rng(6)
    x = rng.standard_normal((256, 784)).astype(np.float32)
    w = rng.standard_normal((256, 784)).astype(np.float32)
    c1, c2 = np.empty((256, 256), np.float32), np.empty((256, 256), np.float32)
    gemm(False, x, True, w, c1, 0.0)
    _own(False, x, True, w, c2, 0.0)
    np.testing.assert_array_equal(c1, c2)
    np.testing.assert_allclose(c1, x.astype(np.float64) @ w.T.astype(np.float64), atol=1e-3)
