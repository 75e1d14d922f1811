"""F.linear: x @ W.T + b as ONE row; BLAS reads W transposed in place (no copy)."""

import numpy as np
from numba import njit

from .._dtype import scalar_name as _scalar_name
from .._optable import attrs, declare
from ..backends.cpu.blas import gemm
from ..backends.cpu.rowio import cot, first, iattr, in_slot, out_slot, value, wants
from ..tensor import Tensor
from .recording import emit

# a row: y (m, o) = x (m, i) @ W (o, i).T, plus a bias b (o) where has_b
A = attrs("m", "i", "o", "has_b")


@njit(cache=True, error_model="numpy")
def vjp_linear(T, k, V):
    """y (M, O) = x (M, I) @ W (O, I).T + b: gx = g W, gW = g.T x, gb = sum_rows g."""
    s_y, s_x, s_w = out_slot(T, k, 0), in_slot(T, k, 0), in_slot(T, k, 1)
    m, i_, o = iattr(T, k, A.m), iattr(T, k, A.i), iattr(T, k, A.o)
    g = cot(T, s_y, V).reshape((m, o))
    if wants(T, s_x):
        w = value(T, s_w, V).reshape((o, i_))
        gx = cot(T, s_x, V).reshape((m, i_))
        gemm(False, g, False, w, gx, 0.0 if first(T, s_x) else 1.0)
    if wants(T, s_w):
        x = value(T, s_x, V).reshape((m, i_))
        gw = cot(T, s_w, V).reshape((o, i_))
        gemm(True, g, False, x, gw, 0.0 if first(T, s_w) else 1.0)
    if iattr(T, k, A.has_b):
        s_b = in_slot(T, k, 2)
        if wants(T, s_b):
            gb = cot(T, s_b, V)
            if first(T, s_b):
                gb[:] = 0
            for r in range(m):
                for c in range(o):
                    gb[c] += g[r, c]


def _dvjp_linear(row, g):
    """y = x @ w^T (+ b): gx = g @ w, gw = g^T @ x, gb = g summed over rows."""
    a = row.attrs()
    m, i_, o = a.m, a.i, a.o
    x = row.value(row.ins[0]) if row.wants(1) else None
    w = row.value(row.ins[1]) if row.wants(0) else None
    g2 = g.reshape(row.bshape + (m, o))
    gx = gw = gb = None
    if row.wants(0):
        gx = (g2 @ w).reshape(row.bshape + row.shape(row.ins[0]))
    if row.wants(1):
        gw = g2.transpose(-1, -2) @ x.reshape(m, i_)
    if len(row.ins) > 2 and row.wants(2):
        gb = g2.sum(dim=row.nb).reshape(row.bshape + row.shape(row.ins[2]))
    return (gx, gw) if len(row.ins) == 2 else (gx, gw, gb)


# replay: a compiled program's own kernels (`_compile/program.py`) or the eager op
_FACETS = dict(a=A, vjp=vjp_linear, eager=lambda xs, a, f: linear(*xs), dvjp=_dvjp_linear)
_ADDMM = declare("linear", "AddmmBackward0", **_FACETS)
_MM = declare("linear_nobias", "MmBackward0", **_FACETS)


def linear(input, weight, bias=None):  # noqa: A002
    x, w, b = input, weight, bias
    for name, t in (("input", x), ("weight", w)):
        if not isinstance(t, Tensor):
            raise TypeError(f"linear(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if b is not None and not isinstance(b, Tensor):
        raise TypeError(f"linear(): argument 'bias' must be Tensor, not {type(b).__name__}")
    if x.is_cuda or w.is_cuda or (b is not None and b.is_cuda):
        from .cuda.forwards import linear as cuda_linear

        return cuda_linear(x, w, b)
    xd, wd = x._data, w._data
    if xd.ndim == 0 or wd.ndim not in (1, 2):
        from .linalg import matmul

        out = matmul(x, w.t())
        return out if b is None else out + b
    if xd.dtype != wd.dtype or xd.dtype.kind != "f":
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {_scalar_name(x.dtype)} and "
            f"{_scalar_name(w.dtype)}"
        )
    if wd.ndim == 1:
        from .linalg import matmul

        out = matmul(x, w)
        return out if b is None else out + b
    o, i_ = wd.shape
    if xd.shape[-1] != i_:
        rows = xd.size // xd.shape[-1] if xd.shape[-1] else 0
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows if xd.ndim > 1 else 1}x"
            f"{xd.shape[-1]} and {i_}x{o})"
        )
    m = xd.size // i_ if i_ else int(np.prod(xd.shape[:-1]))
    out_shape = xd.shape[:-1] + (o,)
    if b is not None:
        bd = b._data
        if bd.dtype != xd.dtype:
            raise RuntimeError(
                f"expected scalar type {_scalar_name(x.dtype)} but found {_scalar_name(b.dtype)}"
            )
        if bd.shape not in ((o,), (1,), ()):
            from .pointwise import broadcast_shapes

            broadcast_shapes(bd.shape, out_shape)
            if len(bd.shape) > 1 or bd.size != o:
                out = linear(x, w)
                return out + b
    x2 = xd.reshape(m, i_)
    out = np.empty((m, o), xd.dtype)
    gemm(False, x2, True, wd, out, 0.0)  # the BLAS the VJP uses (one thread pool)
    if b is not None:
        out += b._data.reshape(-1) if b._data.size == o else b._data.reshape(())
        if b._data.size != o:
            from .views import expand

            b = expand(b.reshape(()) if b._data.ndim else b, (o,))
    out = out.reshape(out_shape)
    if b is None:
        return emit(_MM, out, (x, w), iattrs=_MM.pack(m=m, i=i_, o=o, has_b=0), saved=(xd, wd))
    return emit(_ADDMM, out, (x, w, b), iattrs=_MM.pack(m=m, i=i_, o=o, has_b=1), saved=(xd, wd))
