"""nbgrad's own float32 matrix product for CPUs with AVX-512.

BLAS libraries choose their kernels by CPU; the OpenBLAS that NumPy and SciPy bundle may
run its AVX2 (Haswell) kernels on an AVX-512 CPU (it does here: the environment pins
`OPENBLAS_CORETYPE=Haswell`, which nbgrad leaves alone). On such a CPU this kernel, 16
accumulators of 16 floats updated by fused multiply-adds, ran the MLP's 256x784x256
products in ~280-290 us on 2 threads where OpenBLAS took ~460 us (docs/design.md).

The classic layout (Goto's): per block of KC along k, B is packed into panels of NR
columns (k-major); the micro-kernel multiplies MR rows of A, read in place, by one B panel
into an MR x NR tile of C held in registers. A short last row panel is packed with zero
rows, and ragged tiles are computed into a scratch tile. Threads take disjoint ranges of B
panels (C's columns), so no two write the same element. `blas.gemm` calls `sgemm` for
float32 products of m*n*k >= MIN_WORK when the CPU has AVX-512; everything else stays on
BLAS.
"""

import llvmlite.binding as llvm
import numba
import numpy as np
from llvmlite import ir
from numba import carray, njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from .extern import _KEEP, _caller, export
from .memory import _voidptr

MR, NR = 8, 32  # the register tile: 8 rows x 2 vectors of 16 floats
KC = 384  # k per packed block: a thread's B panels stay in its L2
MIN_WORK = 1 << 15  # m*n*k below this: BLAS (packing costs more than it saves)
MIN_PAR = 1 << 22  # m*n*k from which the product runs on Numba's threads
# the thread count Numba's pool runs with here (its C symbol: numba.get_num_threads() would
# hold a ctypes pointer, which Numba cannot cache)
_num_threads = _caller("get_num_threads", types.intp())  # declared as Numba declares it


def host_has_avx512():
    """Whether Numba compiles for this CPU and it has AVX-512F (else the 16-float vectors
    would be split into AVX2 halves and spill: BLAS is faster there)."""
    if numba.config.CPU_NAME or numba.config.CPU_FEATURES:
        return False
    return bool(llvm.get_host_cpu_features().get("avx512f", False))


_I64 = ir.IntType(64)
_F = ir.FloatType()
_V = ir.VectorType(_F, 16)
_UNDEF = ir.Constant(_V, ir.Undefined)


def _c(v):
    return ir.Constant(_I64, v)


@intrinsic
def _micro(typingctx, kc, ap, rsa, csa, bp, cp, ldc, add):
    """C[r*ldc + j] (+)= sum_k A[r*rsa + k*csa] * B[k*NR + j] for r < MR, j < NR: a tile of
    C from MR rows of A (read in place, or packed: rsa=1, csa=MR) and one packed B panel;
    `add` 0 stores, else accumulates."""
    sig = types.void(types.int64, types.voidptr, types.int64, types.int64, types.voidptr,
                     types.voidptr, types.int64, types.int64)  # fmt: skip

    def codegen(context, builder, signature, args):
        kc, ap, rsa, csa, bp, cp, ldc, add = args
        fma = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(_V, [_V, _V, _V]), "llvm.fma.v16f32"
        )
        fp, vp = _F.as_pointer(), _V.as_pointer()
        A, B, C = (builder.bitcast(p, fp) for p in (ap, bp, cp))
        zero = ir.Constant(_V, [0.0] * 16)
        splat = ir.Constant(ir.VectorType(ir.IntType(32), 16), [0] * 16)
        rows = [builder.mul(_c(r), rsa) for r in range(MR)]
        pre = builder.block
        head = builder.append_basic_block("mk.head")
        body = builder.append_basic_block("mk.body")
        done = builder.append_basic_block("mk.done")
        builder.branch(head)
        builder.position_at_end(head)
        k = builder.phi(_I64)
        k.add_incoming(_c(0), pre)
        acc = []
        for _ in range(2 * MR):
            p = builder.phi(_V)
            p.add_incoming(zero, pre)
            acc.append(p)
        builder.cbranch(builder.icmp_signed("<", k, kc), body, done)
        builder.position_at_end(body)
        boff = builder.mul(k, _c(NR))
        b0 = builder.load(builder.bitcast(builder.gep(B, [boff]), vp), align=4)
        b1 = builder.load(builder.bitcast(builder.gep(B, [builder.add(boff, _c(16))]), vp), align=4)
        aoff = builder.mul(k, csa)
        new = []
        for r in range(MR):
            a = builder.load(builder.gep(A, [builder.add(aoff, rows[r])]))
            av = builder.insert_element(_UNDEF, a, ir.Constant(ir.IntType(32), 0))
            av = builder.shuffle_vector(av, _UNDEF, splat)
            new.append(builder.call(fma, [av, b0, acc[2 * r]]))
            new.append(builder.call(fma, [av, b1, acc[2 * r + 1]]))
        k1 = builder.add(k, _c(1))
        end = builder.block
        builder.branch(head)
        k.add_incoming(k1, end)
        for p, v in zip(acc, new):
            p.add_incoming(v, end)
        builder.position_at_end(done)
        keep = builder.icmp_signed("!=", add, _c(0))
        for r in range(MR):
            for h in range(2):
                off = builder.add(builder.mul(_c(r), ldc), _c(16 * h))
                ptr = builder.bitcast(builder.gep(C, [off]), vp)
                v = acc[2 * r + h]
                cur = builder.load(ptr, align=4)
                builder.store(builder.select(keep, builder.fadd(cur, v), v), ptr, align=4)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, error_model="numpy")
def _pack_a(a, ta, i0, k0, kc, m, out):
    """Rows i0..i0+MR of op(a), columns k0..k0+kc, as out[kk*MR + r] (zeros past m)."""
    for kk in range(kc):
        for r in range(MR):
            i = i0 + r
            if i < m:
                out[kk * MR + r] = a[k0 + kk, i] if ta else a[i, k0 + kk]
            else:
                out[kk * MR + r] = 0.0


@njit(cache=True, error_model="numpy")
def _pack_b(b, tb, j0, k0, kc, n, out):
    """Columns j0..j0+NR of op(b), rows k0..k0+kc, as out[kk*NR + jj] (zeros past n)."""
    if tb:
        for jj in range(NR):
            j = j0 + jj
            for kk in range(kc):
                out[kk * NR + jj] = b[j, k0 + kk] if j < n else 0.0
    else:
        for kk in range(kc):
            for jj in range(NR):
                j = j0 + jj
                out[kk * NR + jj] = b[k0 + kk, j] if j < n else 0.0


@njit(cache=True, error_model="numpy")
def _columns(ta, a, tb, b, c, beta, p0, p1, k):
    """C's column panels p0..p1 (NR columns each): pack their B once per k block, then run
    every A panel across them."""
    m, n = c.shape
    ldc = c.strides[0] // 4
    bp = np.empty(KC * NR * (p1 - p0), np.float32)
    ap = np.empty(KC * MR, np.float32)
    tile = np.empty(MR * NR, np.float32)
    pb, pt = bp.ctypes.data, tile.ctypes.data
    for k0 in range(0, k, KC):
        kc = min(KC, k - k0)
        add = 1 if (k0 > 0 or beta != 0) else 0
        for p in range(p0, p1):
            _pack_b(b, tb, p * NR, k0, kc, n, bp[(p - p0) * KC * NR :])
        for i0 in range(0, m, MR):
            rows = min(MR, m - i0)
            if rows == MR:  # A read in place: no packing
                pa = a.ctypes.data + ((k0 * a.shape[1] + i0) if ta else (i0 * a.shape[1] + k0)) * 4
                rsa, csa = (1, a.shape[1]) if ta else (a.shape[1], 1)
            else:  # the last, short panel: packed with zero rows
                _pack_a(a, ta, i0, k0, kc, m, ap)
                pa, rsa, csa = ap.ctypes.data, 1, MR
            for p in range(p0, p1):
                j0 = p * NR
                cols = min(NR, n - j0)
                bq = pb + (p - p0) * KC * NR * 4
                if rows == MR and cols == NR:
                    cq = c.ctypes.data + (i0 * ldc + j0) * 4
                    _micro(kc, _voidptr(pa), rsa, csa, _voidptr(bq), _voidptr(cq), ldc, add)
                else:  # a ragged edge: the whole tile in scratch, its valid part to C
                    _micro(kc, _voidptr(pa), rsa, csa, _voidptr(bq), _voidptr(pt), NR, 0)
                    for r in range(rows):
                        for jj in range(cols):
                            v = tile[r * NR + jj]
                            if add:
                                c[i0 + r, j0 + jj] += v
                            else:
                                c[i0 + r, j0 + jj] = v


@njit(cache=True, error_model="numpy")
def _views(ta, pa, lda, tb, pb, ldb, pc, ldc, m, n, k):
    """The operands as row-major arrays (address and row stride: one compiled signature
    for every caller)."""
    a = carray(_voidptr(pa), (k if ta else m, lda), np.float32)
    b = carray(_voidptr(pb), (n if tb else k, ldb), np.float32)
    c = carray(_voidptr(pc), (m, ldc), np.float32)[:, :n]
    return a, b, c


@njit(cache=True, parallel=True, error_model="numpy")
def _sgemm_par(ta, pa, lda, tb, pb, ldb, pc, ldc, m, n, k, beta):
    a, b, c = _views(ta, pa, lda, tb, pb, ldb, pc, ldc, m, n, k)
    panels = (n + NR - 1) // NR
    T = min(max(_num_threads(), 1), panels)
    for t in prange(T):
        _columns(ta, a, tb, b, c, beta, panels * t // T, panels * (t + 1) // T, k)


# Exported under a fixed symbol (extern.py): `blas.gemm`, and every kernel that multiplies
# matrices, holds a declaration instead of linking (and optimising again) this kernel.
@export("nbgrad_sgemm512", types.void(*([types.int64] * 11), types.float64))
def sgemm(ta, pa, lda, tb, pb, ldb, pc, ldc, m, n, k, beta):
    """c = op(a) @ op(b) + beta * c (beta 0 or 1) in float32, `blas.gemm`'s contract, on
    row-major operands given by address and row stride. Large products split C's column
    panels between Numba's threads. Small ones run here on one thread: the BLAS would run
    them on its own pool, whose threads then spin and take the core this kernel's threads
    need next (a compiled MLP step's median went from 0.83 to 1.65 ms)."""
    if m * n * k >= MIN_PAR:
        _sgemm_par(ta, pa, lda, tb, pb, ldb, pc, ldc, m, n, k, beta)
    else:
        a, b, c = _views(ta, pa, lda, tb, pb, ldb, pc, ldc, m, n, k)
        _columns(ta, a, tb, b, c, beta, 0, (n + NR - 1) // NR, k)


sgemm_from_python = _KEEP["nbgrad_sgemm512"].ctypes  # the same code, for tests
