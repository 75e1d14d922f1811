"""Matrix products for forwards, through the same BLAS the compiled VJPs use.

NumPy and SciPy each bundle an OpenBLAS with its own thread pool; calling both (NumPy's
matmul in forwards, SciPy's BLAS in compiled VJPs) leaves two pools spinning against each
other on a small machine. Every nbgrad product goes through `gemm` here (SciPy's BLAS).
"""

import numpy as np
from numba import njit, types

from .memory import _voidptr

# Numba's own C helper for ?gemm (registered with LLVM's symbols when Numba starts; it
# calls SciPy's BLAS): a kernel that calls it holds one declaration, where np.dot
# instantiated a copy of Numba's layout handling and error paths per call site (seconds
# of compile per kernel that multiplies matrices).
_P, _N = types.voidptr, types.intp
_XXGEMM = types.ExternalFunction(
    "numba_xxgemm", types.intc(types.char, types.char, types.char, _N, _N, _N, _P, _P, _N,
                               _P, _N, _P, _P, _N)
)  # fmt: skip


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
    sc = np.empty(2, c.dtype)
    sc[0] = 1
    sc[1] = beta
    p = sc.ctypes.data
    kind = ord("s") if c.itemsize == 4 else ord("d")
    # row-major c is column-major c.T = op(b).T @ op(a).T: b and a swap places, and each
    # stored row-major matrix is its column-major transpose
    _XXGEMM(
        kind, ord("t") if tb else ord("n"), ord("t") if ta else ord("n"), n, m, k,
        _voidptr(p), _voidptr(b.ctypes.data), ldb, _voidptr(a.ctypes.data), lda,
        _voidptr(p + c.itemsize), _voidptr(c.ctypes.data), ldc)  # fmt: skip


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
