"""Matrix products for forwards, through the same BLAS the compiled VJPs use.

NumPy and SciPy each bundle an OpenBLAS with its own thread pool; calling both leaves two
pools spinning against each other on a small machine. Every nbgrad product goes through
`gemm` here, and `gemm` calls one BLAS: NumPy's own when it is the bundled OpenBLAS (so a
user's `numpy` products share nbgrad's pool; NumPy 2.4's OpenBLAS 0.3.31 also ran the MLP's
256x784x256 sgemm in ~460 us where SciPy's 0.3.30 took ~480 us), else SciPy's, which
Numba's `numba_xxgemm` helper calls.

Kernels call the BLAS by a fixed symbol name (`nbgrad_sgemm`, `nbgrad_dgemm`; CBLAS's
column-major signature, 64-bit sizes) registered here when this module is imported, so a
kernel's cached code holds only the name and runs with whichever BLAS this process found
(the `extern.py` pattern).
"""

import ctypes
import glob
import os

import llvmlite.binding as llvm
import numpy as np
from numba import cfunc, njit, types

from .extern import _KEEP, _caller
from .memory import _voidptr
from .sgemm512 import MIN_WORK, host_has_avx512, sgemm

_P, _N, _E = types.voidptr, types.intp, types.int32
_COL, _NOTRANS, _TRANS = 102, 111, 112  # CBLAS's enum values
SIG = {
    dt: types.void(_E, _E, _E, _N, _N, _N, t, _P, _N, _P, _N, t, _P, _N)
    for dt, t in (("s", types.float32), ("d", types.float64))
}
_sgemm = _caller("nbgrad_sgemm", SIG["s"])
_dgemm = _caller("nbgrad_dgemm", SIG["d"])

# Numba's own C helper for ?gemm (column-major, scalars by pointer; it calls SciPy's BLAS)
_XXGEMM = types.ExternalFunction(
    "numba_xxgemm", types.intc(types.char, types.char, types.char, _N, _N, _N, _P, _P, _N,
                               _P, _N, _P, _P, _N)
)  # fmt: skip


@njit(cache=True, error_model="numpy")
def _scipy_gemm(kind, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, sc):
    """CBLAS-style column-major gemm through `numba_xxgemm`; sc holds alpha and beta."""
    p = sc.ctypes.data
    _XXGEMM(
        kind, ord("t") if ta == _TRANS else ord("n"), ord("t") if tb == _TRANS else ord("n"),
        m, n, k, _voidptr(p), a, lda, b, ldb, _voidptr(p + sc.itemsize), c, ldc)  # fmt: skip


# the SciPy path's entry points, compiled (by _register) only where that path is taken
def _scipy_sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
    sc = np.array((alpha, beta), np.float32)
    _scipy_gemm(ord("s"), ta, tb, m, n, k, a, lda, b, ldb, c, ldc, sc)


def _scipy_dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
    sc = np.array((alpha, beta), np.float64)
    _scipy_gemm(ord("d"), ta, tb, m, n, k, a, lda, b, ldb, c, ldc, sc)


def _numpy_openblas():
    """Addresses of cblas_sgemm/dgemm in the ILP64 OpenBLAS NumPy bundles, or None (NumPy
    built against another BLAS, e.g. Accelerate or MKL, or an unfamiliar layout)."""
    libs = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    for path in sorted(glob.glob(os.path.join(libs, "libscipy_openblas64_*.so"))):
        try:
            lib = ctypes.CDLL(path)  # NumPy has loaded it: the same handle
            fns = lib.scipy_cblas_sgemm64_, lib.scipy_cblas_dgemm64_
        except (OSError, AttributeError):
            continue
        return [ctypes.cast(f, ctypes.c_void_p).value for f in fns]
    return None


def _register():
    """Point nbgrad_sgemm/dgemm at NumPy's OpenBLAS, or at SciPy's; return which."""
    found = None if os.environ.get("NBGRAD_BLAS") == "scipy" else _numpy_openblas()
    if found is None:
        fns = ((_scipy_sgemm, SIG["s"]), (_scipy_dgemm, SIG["d"]))
        cfns = [cfunc(sig, cache=True, error_model="numpy")(f) for f, sig in fns]
        _KEEP["scipy_gemm"] = cfns  # kept alive: LLVM holds their addresses
        found, name = [c.address for c in cfns], "scipy"
    else:
        name = "numpy"
    for sym, addr in zip(("nbgrad_sgemm", "nbgrad_dgemm"), found):
        llvm.add_symbol(sym, addr)
    return name


BLAS = _register()  # "numpy" or "scipy": the library every product runs on
# large float32 products on nbgrad's own AVX-512 kernel (sgemm512.py) where the CPU has it;
# compiled code holds this as a constant, and Numba's cache keys its code by CPU
OWN_SGEMM = host_has_avx512()


@njit(cache=True, error_model="numpy")
def _rows(x):
    """x with contiguous rows (a copy if they are not), and its row stride in elements."""
    if x.shape[1] > 1 and x.strides[1] != x.itemsize:
        x = np.ascontiguousarray(x)
    if x.shape[0] > 1:
        return x, x.strides[0] // x.itemsize
    return x, max(x.shape[1], 1)


@njit(cache=True, error_model="numpy")
def gemm(ta, a, tb, b, c, beta):
    """c = op(a) @ op(b) + beta * c for 2-D arrays, op(x) = x.T where its flag is set
    (BLAS reads the transpose in place). c's rows must be contiguous; beta is 0 or 1
    (0: c is overwritten, never read)."""
    m, n = c.shape
    k = a.shape[0] if ta else a.shape[1]
    if m == 0 or n == 0:
        return
    if k == 0:
        if beta == 0:
            c[:, :] = 0
        return
    a, lda = _rows(a)
    b, ldb = _rows(b)
    ldc = c.strides[0] // c.itemsize if m > 1 else n
    if OWN_SGEMM and c.itemsize == 4 and m * n * k >= MIN_WORK:
        pa, pb, pc = a.ctypes.data, b.ctypes.data, c.ctypes.data
        sgemm(np.int64(ta), pa, lda, np.int64(tb), pb, ldb, pc, ldc, m, n, k, np.float64(beta))
        return
    _blas(ta, a, lda, tb, b, ldb, c, ldc, m, n, k, beta)


@njit(cache=True, error_model="numpy")
def gemm_blas(ta, a, tb, b, c, beta):
    """`gemm` on the BLAS at every size: for a product of a few rows repeated many times
    (an RNN's steps), which the own kernel runs slower since it packs B at each call
    (16x32 @ 32x128: ~0.75 us on OpenBLAS, ~1.9 us packed)."""
    m, n = c.shape
    k = a.shape[0] if ta else a.shape[1]
    if m == 0 or n == 0 or k == 0:
        gemm(ta, a, tb, b, c, beta)
        return
    a, lda = _rows(a)
    b, ldb = _rows(b)
    _blas(ta, a, lda, tb, b, ldb, c, c.strides[0] // c.itemsize if m > 1 else n, m, n, k, beta)


@njit(cache=True, error_model="numpy")
def _blas(ta, a, lda, tb, b, ldb, c, ldc, m, n, k, beta):
    # row-major c is column-major c.T = op(b).T @ op(a).T: b and a swap places, and each
    # stored row-major matrix is its column-major transpose
    tb_, ta_ = _TRANS if tb else _NOTRANS, _TRANS if ta else _NOTRANS
    pa, pb, pc = _voidptr(a.ctypes.data), _voidptr(b.ctypes.data), _voidptr(c.ctypes.data)
    if c.itemsize == 4:
        _sgemm(_COL, tb_, ta_, n, m, k, np.float32(1), pb, ldb, pa, lda, np.float32(beta), pc, ldc)
    else:
        _dgemm(_COL, tb_, ta_, n, m, k, 1.0, pb, ldb, pa, lda, np.float64(beta), pc, ldc)


@njit(cache=True, error_model="numpy")
def matmul_into(a, b, out, B, m, k, n, ab, bb):
    """out[i] = a[i or 0] @ b[i or 0] over a batch of B, for flat C-order arrays holding
    (B or 1, m, k), (B or 1, k, n) and (B, m, n). Callers pass flat views and int flags
    (as compiled programs do): one compiled signature per dtype, where N-D operands would
    compile one per combination of ranks."""
    a3 = a.reshape((B if ab else 1, m, k))
    b3 = b.reshape((B if bb else 1, k, n))
    o3 = out.reshape((B, m, n))
    for i in range(B):
        gemm(False, a3[i if ab else 0], False, b3[i if bb else 0], o3[i], 0.0)


@njit(cache=True, error_model="numpy")
def matmul_vjp(g, a, b, ga, want_a, init_a, gb, want_b, init_b, B, m, kk, n, ab, bb):
    """The VJP of `matmul_into` on flat arrays: ga = g @ b.T, gb = a.T @ g per batch, the
    first contribution stored (init) and later ones added, summed over the batch for a
    shared (broadcast) operand."""
    g = g.reshape((B, m, n))
    if want_a:
        b3 = b.reshape((B if bb else 1, kk, n))
        ga3 = ga.reshape((B if ab else 1, m, kk))
        if init_a and B == 0:  # shared over an empty batch: no product writes it
            ga[:] = 0
        for i in range(B):
            beta = 0.0 if init_a and (ab or i == 0) else 1.0
            gemm(False, g[i], True, b3[i if bb else 0], ga3[i if ab else 0], beta)
    if want_b:
        a3 = a.reshape((B if ab else 1, m, kk))
        gb3 = gb.reshape((B if bb else 1, kk, n))
        if init_b and B == 0:
            gb[:] = 0
        for i in range(B):
            beta = 0.0 if init_b and (bb or i == 0) else 1.0
            gemm(True, a3[i if ab else 0], False, g[i], gb3[i if bb else 0], beta)
