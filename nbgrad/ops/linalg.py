"""Matrix products. Forward by NumPy's matmul (BLAS); the VJP calls BLAS from Numba.

Every product is recorded as one row over a batch of matrices: a is (Ba, m, k), b is
(Bb, k, n), the output (B, m, n), where Ba and Bb are B or 1 (a shared matrix). 1-D
operands are matrices with a unit dimension, which changes no memory layout; batch dims
that broadcast any other way are expanded first (ExpandBackward0 sums them back).
"""

import numpy as np
from numba import njit

from nbgrad._array import contig

from .._optable import attrs, declare
from ..autograd.grad_mode import is_grad_enabled
from ..backends.cpu.blas import matmul_into, matmul_vjp
from ..backends.cpu.rowio import bcast, bval, cot, first, iattr, in_slot, out_slot, value, wants
from ..tensor import Tensor
from .cuda import launcher
from .recording import emit

_NODES = {
    "dot": "DotBackward0",
    "mv": "MvBackward0",
    "mm": "MmBackward0",
    "bmm": "BmmBackward0",
    # matmul of batched operands: PyTorch folds/reshapes, so its last node is a view
    "batched": "UnsafeViewBackward0",
}
# a row: B products of (m, k) @ (k, n); an operand that is not batched (a_batched,
# b_batched = 0) is one matrix for all B
A = attrs("B", "m", "k", "n", "a_batched", "b_batched")


@njit(cache=True, error_model="numpy")
def vjp_const(T, s_a, s_b, V, c, ac, bc):
    """The product's VJP when its cotangent is one value c everywhere (below a `sum`,
    rowio.bcast): G = c * ones is rank one, so G @ B^T has every row equal to c times
    B's row sums, and A^T @ G every column equal to c times A's column sums. O(size)
    instead of two batched GEMMs; sums kept in float64."""
    nb, nm, nk = ac.shape
    nn = bc.shape[2]
    if wants(T, s_a):
        ga = cot(T, s_a, V).reshape((nb, nm, nk))
        init = first(T, s_a)
        r = np.empty(nk, ga.dtype)
        for i in range(nb):
            for j in range(nk):
                t = 0.0
                b = bc[i, j]
                for col in range(nn):
                    t += b[col]
                r[j] = c * ga.dtype.type(t)
            for row in range(nm):
                if init:
                    ga[i, row] = r
                else:
                    ga[i, row] += r
    if wants(T, s_b):
        gb = cot(T, s_b, V).reshape((nb, nk, nn))
        init = first(T, s_b)
        q = np.zeros(nk, np.float64)
        for i in range(nb):
            q[:] = 0
            for row in range(nm):
                a = ac[i, row]
                for j in range(nk):
                    q[j] += a[j]
            for j in range(nk):
                v = c * gb.dtype.type(q[j])
                if init:
                    gb[i, j] = v
                else:
                    gb[i, j] += v


@njit(cache=True, error_model="numpy")
def vjp_matmul(T, k, V):
    s_y, s_a, s_b = out_slot(T, k, 0), in_slot(T, k, 0), in_slot(T, k, 1)
    B, m, kk, n = iattr(T, k, A.B), iattr(T, k, A.m), iattr(T, k, A.k), iattr(T, k, A.n)
    ab, bb = iattr(T, k, A.a_batched), iattr(T, k, A.b_batched)
    if bcast(T, s_y) and (ab or B == 1) and (bb or B == 1):
        a3 = value(T, s_a, V).reshape((B, m, kk))
        b3 = value(T, s_b, V).reshape((B, kk, n))
        vjp_const(T, s_a, s_b, V, bval(T, s_y, V), a3, b3)
        return
    g = cot(T, s_y, V)
    # first contribution written by BLAS in place; later ones (or a shared operand's
    # sum over the batch) added
    wa, wb = wants(T, s_a), wants(T, s_b)
    ga = cot(T, s_a, V) if wa else g[:0]
    gb = cot(T, s_b, V) if wb else g[:0]
    fa = first(T, s_a) if wa else False
    fb = first(T, s_b) if wb else False
    a, b = value(T, s_a, V), value(T, s_b, V)
    matmul_vjp(g, a, b, ga, wa, fa, gb, wb, fb, B, m, kk, n, ab, bb)


# -- differentiable VJP (create_graph, forward mode, batched gradients) ------------------
def _mT(t):
    return t.transpose(-1, -2)


def _dvjp_matmul(row, g):
    """ga = g @ b^T, gb = a^T @ g on the operands seen as (batch of) matrices."""
    from .reduce import sum_to

    sa, sb = row.shape(row.ins[0]), row.shape(row.ins[1])
    if len(sa) + len(sb) == 3 and not is_grad_enabled() and type(g._data) is np.ndarray:
        a = row.saved_array(0, row.ins[0]) if row.wants(1) else None
        b = row.saved_array(1, row.ins[1]) if row.wants(0) else None
        return _matvec_arrays(g._data, a, b, sa, sb, row.bshape)
    a = row.value(row.ins[0], 0) if row.wants(1) else None  # the row saves (a, b)
    b = row.value(row.ins[1], 1) if row.wants(0) else None
    if len(sa) + len(sb) == 3:  # matrix @ vector or vector @ matrix: no batched matvecs
        return _matvec(row, g, a, b, sa, sb)
    a2 = sa if len(sa) > 1 else (1,) + sa
    b2 = sb if len(sb) > 1 else sb + (1,)
    y2 = a2[:-2] if len(a2) >= len(b2) else b2[:-2]
    g2 = g.reshape(row.bshape + y2 + (a2[-2], b2[-1]))
    ga = gb = None
    if row.wants(0):
        ga = sum_to(g2 @ _mT(b.reshape(b2)), a2, row.nb).reshape(row.bshape + sa)
    if row.wants(1):
        gb = sum_to(_mT(a.reshape(a2)) @ g2, b2, row.nb).reshape(row.bshape + sb)
    return ga, gb


def _matvec(row, g, a, b, sa, sb):
    """y = A v or v A: the cotangents' batch dims fold into one matrix product with A,
    and A's gradient is the outer product of g and v (both expanded: same-shape kernels)."""
    bs = row.bshape
    ga = gb = None
    if len(sa) == 2:  # v = b: ga = g b^T, gb = g @ a
        if row.wants(0):
            ga = g.reshape(bs + (sa[0], 1)).expand(bs + sa) * b.expand(bs + sa)
        if row.wants(1):
            gb = g @ a
    else:  # v = a: ga = g @ b^T, gb = a g^T
        if row.wants(0):
            ga = g @ _mT(b)
        if row.wants(1):
            gb = a.reshape(sa[0], 1).expand(bs + sb) * g.reshape(bs + (1, sb[1])).expand(bs + sb)
    return ga, gb


def _matvec_arrays(gd, a, b, sa, sb, bs):
    """`_matvec` when nothing is recorded, on the operands' arrays `a`, `b` (None: not
    needed): NumPy, the batch folded into one matrix product (BLAS reads A^T in place)."""
    ga = gb = None
    if len(sa) == 2:  # A @ v
        if b is not None:
            ga = np.multiply(gd.reshape(bs + (sa[0], 1)), b)
        if a is not None:
            gb = gd.reshape(-1, sa[0]) @ a
    else:  # v @ A
        if b is not None:
            ga = gd.reshape(-1, sb[1]) @ b.T
        if a is not None:
            gb = np.multiply(a.reshape(sa[0], 1), gd.reshape(bs + (1, sb[1])))
    return tuple(
        None if v is None else Tensor._make(v.reshape(bs + s), -1, False)
        for v, s in ((ga, sa), (gb, sb))
    )


# replay: a compiled program's own call of the same product (`_compile/program.py`)
_OPS = {
    k: declare(
        "matmul_" + k,
        v,
        a=A,
        vjp=vjp_matmul,
        dvjp=_dvjp_matmul,
        cuda_vjp=launcher("cuda.forwards", "vjp_matmul") if k in ("mm", "bmm", "batched") else None,
    )  # fmt: skip
    for k, v in _NODES.items()
}
_pack = _OPS["mm"].pack  # (the same schema for every kind; its order is matmul_into's)


def _check(a, b, name):
    for t in (a, b):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument must be Tensor, not {type(t).__name__}")
        if t._data.ndim == 0:
            raise RuntimeError(
                "both arguments to matmul need to be at least 1D, but they are "
                f"{a._data.ndim}D and {b._data.ndim}D"
            )
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {a.dtype.name} != {b.dtype.name}"
        )


def matmul(a, b):
    if getattr(a, "is_cuda", False) or getattr(b, "is_cuda", False):
        from .cuda.forwards import matmul as cuda_matmul

        return cuda_matmul(a, b)
    _check(a, b, "matmul")
    da, db = a._data, b._data
    na, nb = da.ndim, db.ndim
    ka = da.shape[-1]
    kb = db.shape[-2] if nb > 1 else db.shape[0]
    if ka != kb:
        if na == 1 and nb == 1:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{da.shape[0]}] and src "
                f"[{db.shape[0]}] to have the same number of elements, but got {da.shape[0]} "
                f"and {db.shape[0]} elements respectively"
            )
        ra = (da.shape[0] if na > 1 else 1, ka) if na <= 2 else (da.size // ka if ka else 0, ka)
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({ra[0]}x{ra[1]} and "
            f"{kb}x{db.shape[-1] if nb > 1 else 1})"
        )
    if not a.dtype.is_floating_point:
        return Tensor._make(contig(np.matmul(da, db)), -1, False)
    m = da.shape[-2] if na > 1 else 1
    n = db.shape[-1] if nb > 1 else 1
    bsa, bsb = da.shape[:-2], db.shape[:-2]
    if bsa and bsb and bsa != bsb:
        from .pointwise import broadcast_shapes
        from .views import expand

        bs = broadcast_shapes(bsa, bsb)
        if bsa != bs:
            a = expand(a, bs + da.shape[-2:])
        if bsb != bs:
            b = expand(b, bs + db.shape[-2:])
        return matmul(a, b)
    if not bsa and not bsb:
        kind = "dot" if na == nb == 1 else ("mv" if nb == 1 else "mm")
        ia = _pack(B=1, m=m, k=ka, n=n, a_batched=1, b_batched=1)
    elif bsa and not bsb:  # (..., m, k) @ (k, n): one big matrix product
        B = int(np.prod(bsa))
        kind, ia = "batched", _pack(B=1, m=B * m, k=ka, n=n, a_batched=1, b_batched=1)
    else:
        B = int(np.prod(bsa or bsb))
        kind = "batched"
        ia = _pack(B=B, m=m, k=ka, n=n, a_batched=int(bool(bsa)), b_batched=int(bool(bsb)))
    out = np.empty((bsa or bsb) + ((m,) if na > 1 else ()) + ((n,) if nb > 1 else ()), da.dtype)
    matmul_into(da.reshape(-1), db.reshape(-1), out.reshape(-1), *ia)  # see blas.py
    return emit(_OPS[kind], out, (a, b), iattrs=ia, saved=(da, db))


def mm(a, b):
    if getattr(a, "is_cuda", False) or getattr(b, "is_cuda", False):
        from .cuda.forwards import matmul as cuda_matmul

        return cuda_matmul(a, b)
    _check(a, b, "mm")
    if a._data.ndim != 2 or b._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    return matmul(a, b)


def bmm(a, b):
    if getattr(a, "is_cuda", False) or getattr(b, "is_cuda", False):
        from .cuda.forwards import matmul as cuda_matmul

        return cuda_matmul(a, b)
    _check(a, b, "bmm")
    da, db = a._data, b._data
    if da.ndim != 3 or db.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if da.shape[0] != db.shape[0] or da.shape[2] != db.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{da.shape[0]}, {da.shape[2]}] but got: [{db.shape[0]}, {db.shape[1]}]."
        )
    B, m, k = da.shape
    ia = _pack(B=B, m=m, k=k, n=db.shape[2], a_batched=1, b_batched=1)
    out = np.empty((B, m, db.shape[2]), da.dtype)
    matmul_into(da.reshape(-1), db.reshape(-1), out.reshape(-1), *ia)  # see blas.py
    return emit(_OPS["bmm"], out, (a, b), iattrs=ia, saved=(da, db))


def dot(a, b):
    _check(a, b, "dot")
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors"
        )
    return matmul(a, b)


def outer(a, b):
    """a[i] * b[j], recorded as a broadcast multiply (MulBackward0, as PyTorch)."""
    for name, t in (("self", a), ("vec2", b)):
        if not isinstance(t, Tensor):
            raise TypeError(f"outer(): argument '{name}' must be Tensor, not {type(t).__name__}")
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    return a.reshape(-1, 1) * b.reshape(1, -1)
