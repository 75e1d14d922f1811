"""einsum: general subscripts (repeated indices, traces, `...`, implicit output).

Equations are normalised to single letters per dim (ellipsis dims get their own letters),
size-1 dims that broadcast are expanded first, and more than two operands are contracted
pairwise (each pair keeps the letters still needed), so a row has one or two operands.

* BLAS rows: two operands without repeated letters whose letters are batch (in A, B and
  out), m (A and out), k (A and B) or n (B and out). The forward saves A and B permuted to
  (batch, m, k) and (batch, k, n) (no copy when already so) and runs batched GEMM; the VJP
  is gA = g B^T and gB = A^T g per batch with BLAS (`blas.gemm`), scattered back
  through the operands' strides; below a `sum` (g one value c everywhere, rowio.bcast)
  those are c times B's row sums and A's column sums, with no GEMM.
* generic rows (traces, diagonals, sums of a letter only one operand has, ...): the VJP
  walks the whole index space once: gX_i[pos_i] += g[pos_out] * X_j[pos_j].
In both, the VJP of an operand is the einsum of the cotangent with the other operand.
"""

import numpy as np
from numba import njit

from nbgrad._array import contig

from .._dtype import scalar_name as _scalar_name
from .._optable import register
from ..backends.cpu.blas import gemm, matmul_into
from ..backends.cpu.memory import view_as
from ..backends.cpu.rowio import (
    bcast,
    bval,
    cot,
    first,
    iattr,
    iattrs,
    in_slot,
    out_slot,
    value,
    wants,
)
from ..tensor import Tensor
from .linalg import vjp_const
from .recording import emit

_V = "nbgrad.ops.einsum:"
_GEN = register("einsum", "EinsumBackward0", _V + "vjp_einsum")
_BLAS = register("einsum_bmm", "BmmBackward0", _V + "vjp_einsum")


@njit(inline="always")
def _step3(idx, shp, offs, s0, s1, s2):
    d = shp.size - 1
    while d >= 0:
        idx[d] += 1
        offs[0] += s0[d]
        offs[1] += s1[d]
        offs[2] += s2[d]
        if idx[d] < shp[d]:
            return
        offs[0] -= s0[d] * shp[d]
        offs[1] -= s1[d] * shp[d]
        offs[2] -= s2[d] * shp[d]
        idx[d] = 0
        d -= 1


@njit(cache=True, error_model="numpy")
def _strided_copy(src, shp, st, dst):
    """dst (contiguous over shp) = src[idx . st]."""
    nd = shp.size
    idx = np.zeros(nd, np.int64)
    offs = np.zeros(3, np.int64)
    z = np.zeros(nd, np.int64)
    for i in range(dst.size):
        dst[i] = src[offs[0]]
        _step3(idx, shp, offs, st, z, z)


@njit(cache=True, error_model="numpy")
def _strided_add(dst, shp, st, src, init):
    """dst[idx . st] (+)= src (contiguous over shp); `init`: dst not written yet."""
    if init:
        dst[:] = 0
    nd = shp.size
    idx = np.zeros(nd, np.int64)
    offs = np.zeros(3, np.int64)
    z = np.zeros(nd, np.int64)
    for i in range(src.size):
        dst[offs[0]] += src[i]
        _step3(idx, shp, offs, st, z, z)


@njit(cache=True, error_model="numpy", inline="always")
def blas_layout(T, k):
    """A BLAS row's layout attrs (after nb, m, k, n and A/B's addresses, attrs 1-6): the
    output's, A's and B's (shape, strides) and whether each is already (batch, ...) laid
    out (then it is its gathered array itself)."""
    p = 7
    ndg = iattr(T, k, p)
    gshp, gst = iattrs(T, k, p + 1, ndg), iattrs(T, k, p + 1 + ndg, ndg)
    p += 1 + 2 * ndg
    nda = iattr(T, k, p)
    ashp, ast = iattrs(T, k, p + 1, nda), iattrs(T, k, p + 1 + nda, nda)
    p += 1 + 2 * nda
    ndb = iattr(T, k, p)
    bshp, bst = iattrs(T, k, p + 1, ndb), iattrs(T, k, p + 1 + ndb, ndb)
    p += 1 + 2 * ndb
    return gshp, gst, ashp, ast, bshp, bst, iattr(T, k, p), iattr(T, k, p + 1), iattr(T, k, p + 2)


@njit(cache=True, error_model="numpy")
def _vjp_blas(T, k, V):
    s_y, s_a, s_b = out_slot(T, k, 0), in_slot(T, k, 0), in_slot(T, k, 1)
    nb, nm, nk, nn = iattr(T, k, 1), iattr(T, k, 2), iattr(T, k, 3), iattr(T, k, 4)
    ac = view_as(iattr(T, k, 5), nb * nm * nk, V).reshape((nb, nm, nk))
    bc = view_as(iattr(T, k, 6), nb * nk * nn, V).reshape((nb, nk, nn))
    gshp, gst, ashp, ast, bshp, bst, g_id, a_id, b_id = blas_layout(T, k)
    if bcast(T, s_y) and a_id and b_id:
        vjp_const(T, s_a, s_b, V, bval(T, s_y, V), ac, bc)
        return
    graw = cot(T, s_y, V)
    if g_id:
        gc = graw.reshape((nb, nm, nn))
    else:
        tmp = np.empty(nb * nm * nn, graw.dtype)
        _strided_copy(graw, gshp, gst, tmp)
        gc = tmp.reshape((nb, nm, nn))
    if wants(T, s_a):
        ga = cot(T, s_a, V)
        init = first(T, s_a)
        t = ga.reshape((nb, nm, nk)) if a_id else np.empty((nb, nm, nk), ga.dtype)
        for i in range(nb):
            gemm(False, gc[i], True, bc[i], t[i], 0.0 if init or not a_id else 1.0)
        if not a_id:
            _strided_add(ga, ashp, ast, t.reshape(t.size), init)
    if wants(T, s_b):
        gb = cot(T, s_b, V)
        init = first(T, s_b)
        t = gb.reshape((nb, nk, nn)) if b_id else np.empty((nb, nk, nn), gb.dtype)
        for i in range(nb):
            gemm(True, ac[i], False, gc[i], t[i], 0.0 if init or not b_id else 1.0)
        if not b_id:
            _strided_add(gb, bshp, bst, t.reshape(t.size), init)


@njit(cache=True, error_model="numpy")
def _vjp_generic(T, k, V):
    s_y = out_slot(T, k, 0)
    nops, L = iattr(T, k, 1), iattr(T, k, 2)
    shp = iattrs(T, k, 3, L)
    sy = iattrs(T, k, 3 + L, L)
    s0 = iattrs(T, k, 3 + 2 * L, L)
    s1 = iattrs(T, k, 3 + 3 * L, L)
    g = cot(T, s_y, V)
    total = 1
    for d in range(L):
        total *= shp[d]
    idx = np.zeros(L, np.int64)
    offs = np.zeros(3, np.int64)
    sa = in_slot(T, k, 0)
    x0 = value(T, sa, V)
    if nops == 1:
        if wants(T, sa):
            gx = cot(T, sa, V)
            if first(T, sa):
                gx[:] = 0
            for _ in range(total):
                gx[offs[1]] += g[offs[0]]
                _step3(idx, shp, offs, sy, s0, s1)
        return
    sb = in_slot(T, k, 1)
    x1 = value(T, sb, V)
    if wants(T, sa):
        gx = cot(T, sa, V)
        if first(T, sa):
            gx[:] = 0
        for _ in range(total):
            gx[offs[1]] += g[offs[0]] * x1[offs[2]]
            _step3(idx, shp, offs, sy, s0, s1)
    if wants(T, sb):
        idx[:] = 0
        offs[:] = 0
        gx = cot(T, sb, V)
        if first(T, sb):
            gx[:] = 0
        for _ in range(total):
            gx[offs[2]] += g[offs[0]] * x0[offs[1]]
            _step3(idx, shp, offs, sy, s0, s1)


@njit(cache=True, error_model="numpy")
def vjp_einsum(T, k, V):
    if iattr(T, k, 0) == 1:
        _vjp_blas(T, k, V)
    else:
        _vjp_generic(T, k, V)


# -- parsing ---------------------------------------------------------------------------
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse(equation, shapes):
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->", 1)
        if "->" in rhs:
            raise RuntimeError("einsum(): found '->' more than once in equation")
    else:
        lhs, rhs = eq, None
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise RuntimeError(
            "einsum(): more operands were provided than specified in the equation"
            if len(shapes) > len(terms)
            else "einsum(): fewer operands were provided than specified in the equation"
        )
    used = set(c for c in eq if c.isalpha())
    for c in eq:
        if not (c.isalpha() or c in ".,->"):
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {eq.index(c)} in "
                f"the equation string, subscripts must be in [a-zA-Z]"
            )
    pool = [c for c in _LETTERS if c not in used]
    ell_rank = 0
    parsed = []
    for i, (t, sh) in enumerate(zip(terms, shapes)):
        if t.count("...") > 1 or (t.replace("...", "").count(".")):
            raise RuntimeError(
                "einsum(): found '.' for operand {i} that is not part of any ellipsis"
            )
        nlet = len(t.replace("...", ""))
        if "..." in t:
            e = len(sh) - nlet
            if e < 0:
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({nlet}) is more than "
                    f"the number of dimensions ({len(sh)}) for operand {i}"
                )
            ell_rank = max(ell_rank, e)
        elif nlet != len(sh):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlet}) does not match "
                f"the number of dimensions ({len(sh)}) for operand {i} and no ellipsis was "
                "given"
            )
        parsed.append(t)
    ell = "".join(pool[:ell_rank])
    ops = []
    for t, sh in zip(parsed, shapes):
        if "..." in t:
            e = len(sh) - len(t.replace("...", ""))
            t = t.replace("...", ell[ell_rank - e :])
        ops.append(t)
    if rhs is None:
        counts = {}
        for t in ops:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    else:
        if rhs.count("...") > 1:
            raise RuntimeError("einsum(): found '...' more than once in the output")
        out = rhs.replace("...", ell)
        for c in out:
            if out.count(c) > 1:
                raise RuntimeError(
                    f"einsum(): output subscript {c} appears more than once in the output"
                )
            if not any(c in t for t in ops):
                raise RuntimeError(
                    f"einsum(): output subscript {c} does not appear in the equation for any "
                    "input operand"
                )
    return ops, out


def _strides(shape):
    st = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        st[d] = st[d + 1] * shape[d + 1]
    return st


def _letter_strides(sub, shape, letters):
    """Element stride of each letter in an operand (summed when repeated, 0 if absent)."""
    st = _strides(shape)
    out = {c: 0 for c in letters}
    for c, s in zip(sub, st):
        out[c] += s
    return [out[c] for c in letters]


def einsum(equation, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError("einsum(): argument 'equation' (position 1) must be str")
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): operand {i} must be a Tensor, not {type(t).__name__}")
    cuda = any(t.is_cuda for t in operands)
    if cuda and not all(t.is_cuda for t in operands):
        from ..backends.cuda.ops import device_error

        first = operands[0].is_cuda
        raise device_error("cuda:0" if first else "cpu", "cpu" if first else "cuda:0")
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    ops, out = _parse(equation, [t._data.shape for t in operands])
    for i, (t, sub) in enumerate(zip(operands, ops)):
        seen = {}
        for c, n in zip(sub, t._data.shape):
            if seen.setdefault(c, n) != n:  # a diagonal needs equal sizes: no broadcasting
                raise RuntimeError(
                    f"einsum(): subscript {c} is repeated for operand {i} but the sizes don't "
                    f"match, {n} != {seen[c]}"
                )
    # letter sizes; size-1 dims broadcast (expanded first)
    size = {}
    for i, (t, sub) in enumerate(zip(operands, ops)):
        for c, n in zip(sub, t._data.shape):
            if c in size and size[c] != n and n != 1 and size[c] != 1:
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {n} for operand {i} which does not "
                    f"broadcast with previously seen size {size[c]}"
                )
            size[c] = max(size.get(c, n), n) if n != 1 else size.get(c, 1)
    ts = []
    from .views import expand

    for t, sub in zip(operands, ops):
        full = tuple(size[c] for c in sub)
        if full != t._data.shape:
            t = t.expand(full) if cuda else expand(t, full)
        ts.append(t)
    # dtype: every operand the same float dtype (torch requires equal dtypes)
    dt = ts[0].dtype
    for t in ts[1:]:
        if t.dtype is not dt:
            raise RuntimeError(
                f"expected scalar type {dt.name.capitalize()} but found {_scalar_name(t.dtype)}"
            )
    while len(ts) > 2:
        a, b = ts[0], ts[1]
        rest = "".join(ops[2:]) + out
        keep = "".join(c for c in dict.fromkeys(ops[0] + ops[1]) if c in rest)
        ab = _einsum2([a, b], [ops[0], ops[1]], keep, size)
        ts = [ab] + ts[2:]
        ops = [keep] + ops[2:]
    return _einsum2(ts, ops, out, size)


def _einsum2(ts, ops, out, size):
    if ts[0].is_cuda:
        from ..backends.cuda.einsum import einsum2

        return einsum2(ts, ops, out, size)
    arrays = [t._data for t in ts]
    eq = ",".join(ops) + "->" + out
    out_shape = tuple(size[c] for c in out)
    if arrays[0].dtype.kind != "f":
        r = np.einsum(eq, *arrays)
        return Tensor._make(contig(np.asarray(r)).reshape(out_shape), -1, False)
    blas = len(ts) == 2 and all(len(set(s)) == len(s) for s in ops)
    if blas:
        A, B = ops
        batch = [c for c in A if c in B and c in out]
        m = [c for c in A if c not in B and c in out]
        kk = [c for c in A if c in B and c not in out]
        n = [c for c in B if c not in A and c in out]
        blas = len(batch) + len(m) + len(kk) == len(A) and len(batch) + len(kk) + len(n) == len(B)
    if not blas:
        r = np.einsum(eq, *arrays, optimize=len(ts) > 1)
        res = contig(np.asarray(r, arrays[0].dtype)).reshape(out_shape)
        letters = list(dict.fromkeys("".join(ops) + out))
        L = len(letters)
        attrs = [0, len(ts), L] + [size[c] for c in letters]
        attrs += _letter_strides(out, out_shape, letters)
        attrs += _letter_strides(ops[0], arrays[0].shape, letters)
        attrs += _letter_strides(ops[1], arrays[1].shape, letters) if len(ts) > 1 else [0] * L
        return emit(_GEN, res, tuple(ts), iattrs=tuple(attrs), saved=(*arrays, eq))
    a, b = arrays

    def prod(cs):
        p = 1
        for c in cs:
            p *= size[c]
        return p

    nb, nm, nk, nn = prod(batch), prod(m), prod(kk), prod(n)
    ac = contig(a.transpose([A.index(c) for c in batch + m + kk])).reshape(nb, nm, nk)
    bc = contig(b.transpose([B.index(c) for c in batch + kk + n])).reshape(nb, nk, nn)
    # Numba's BLAS, as the VJP (NumPy's matmul would start a second BLAS thread pool)
    yc = (np.empty if nk else np.zeros)((nb, nm, nn), a.dtype)
    if yc.size and nk:
        matmul_into(ac.reshape(-1), bc.reshape(-1), yc.reshape(-1), nb, nm, nk, nn, 1, 1)
    canon = batch + m + n
    res = contig(
        yc.reshape([size[c] for c in canon]).transpose([canon.index(c) for c in out])
    ).reshape(out_shape)

    def walk(order, sub, shape):
        """(nd, shape..., strides...) walking `order`'s letters over an operand's layout."""
        st = dict(zip(sub, _strides(shape)))
        return [len(order)] + [size[c] for c in order] + [st[c] for c in order]

    ga = walk(canon, out, out_shape)
    aa = walk(batch + m + kk, A, a.shape)
    bb = walk(batch + kk + n, B, b.shape)
    ident = [
        int(list(out) == canon),
        int(list(A) == batch + m + kk),
        int(list(B) == batch + kk + n),
    ]
    attrs = (
        [
            1,
            nb,
            nm,
            nk,
            nn,
            ac.__array_interface__["data"][0] if ac.size else 0,
            bc.__array_interface__["data"][0] if bc.size else 0,
        ]
        + ga
        + aa
        + bb
        + ident
    )
    # a, b and the equation too, for the differentiable VJP (autograd/derivatives): it needs
    # the operands on their slots (ac, bc themselves unless those are permuted copies)
    return emit(_BLAS, res, tuple(ts), iattrs=tuple(attrs), saved=(ac, bc, a, b, eq))
