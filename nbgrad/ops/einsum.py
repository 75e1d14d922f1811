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
from .._optable import attrs, declare
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
    step,
    value,
    wants,
)
from ..tape import S_ADDR
from ..tensor import Tensor
from .linalg import vjp_const
from .recording import emit

# A generic row: `nops` operands (1 or 2) over `L` letters; `walk` holds the letters'
# sizes, then their element strides in the output, operand 0 and operand 1 (L each), then
# the normalised equation's characters (`equation`).
A_GEN = attrs("nops", "L", "*walk")
# A BLAS row: batched (nb, nm, nk) @ (nb, nk, nn); `a_at`, `b_at` address A and B gathered
# to that layout; `layout` is read by `blas_layout` and is followed by the equation.
A_BMM = attrs("nb", "nm", "nk", "nn", "a_at", "b_at", "*layout")


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
    """A BLAS row's `layout`: the output's, A's and B's (shape, strides) and whether each
    is already (batch, ...) laid out (then it is its gathered array itself)."""
    p = A_BMM.layout
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


@njit(inline="always")
def _blas_sizes(T, k):
    a = A_BMM
    return iattr(T, k, a.nb), iattr(T, k, a.nm), iattr(T, k, a.nk), iattr(T, k, a.nn)


@njit(cache=True, error_model="numpy")
def vjp_bmm(T, k, V):
    s_y, s_a, s_b = out_slot(T, k, 0), in_slot(T, k, 0), in_slot(T, k, 1)
    nb, nm, nk, nn = _blas_sizes(T, k)
    ac = view_as(iattr(T, k, A_BMM.a_at), nb * nm * nk, V).reshape((nb, nm, nk))
    bc = view_as(iattr(T, k, A_BMM.b_at), nb * nk * nn, V).reshape((nb, nk, nn))
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
def vjp_einsum(T, k, V):
    s_y = out_slot(T, k, 0)
    nops, L, w = iattr(T, k, A_GEN.nops), iattr(T, k, A_GEN.L), A_GEN.walk
    shp = iattrs(T, k, w, L)
    sy = iattrs(T, k, w + L, L)
    s0 = iattrs(T, k, w + 2 * L, L)
    s1 = iattrs(T, k, w + 3 * L, L)
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
def replay_bmm(T, k, V):
    """The BLAS row's forward, as `_einsum2` runs it: A and B gathered to (batch, m, k)
    and (batch, k, n) (into the buffers at `a_at`, `b_at`, which the VJP reads; the
    operand itself when already so laid out), one batched GEMM, the result scattered to
    the output's letter order."""
    s_y, s_a, s_b = out_slot(T, k, 0), in_slot(T, k, 0), in_slot(T, k, 1)
    nb, nm, nk, nn = _blas_sizes(T, k)
    gshp, gst, ashp, ast, bshp, bst, g_id, a_id, b_id = blas_layout(T, k)
    _gather(T, k, A_BMM.a_at, s_a, a_id, ashp, ast, nb * nm * nk, V)
    _gather(T, k, A_BMM.b_at, s_b, b_id, bshp, bst, nb * nk * nn, V)
    y = value(T, s_y, V)
    yc = y if g_id else np.empty(nb * nm * nn, y.dtype)
    if nk == 0:
        yc[:] = 0
    elif yc.size:
        ac = view_as(iattr(T, k, A_BMM.a_at), nb * nm * nk, V)
        bc = view_as(iattr(T, k, A_BMM.b_at), nb * nk * nn, V)
        matmul_into(ac, bc, yc, nb, nm, nk, nn, True, True)
    if not g_id:  # y[idx . gst] = yc[i], walking the (batch, m, n) letters
        idx = np.zeros(gshp.size, np.int64)
        offs = np.zeros(2, np.int64)
        for i in range(yc.size):
            y[offs[0]] = yc[i]
            step(idx, gshp, offs, gst, gst)


@njit(cache=True, error_model="numpy")
def _gather(T, k, at, s, ident, shp, st, size, V):
    """An operand as the VJP reads it (by the address in attr `at`): the operand itself,
    or its gather into the buffer there."""
    if ident:
        iattrs(T, k, at, 1)[0] = T[3][s, S_ADDR]  # (a view: the row's attr is written)
    elif size:
        _strided_copy(value(T, s, V), shp, st, view_as(iattr(T, k, at), size, V))


def equation(name, a):
    """The normalised equation an einsum row records (`a`: its attrs by name), after its
    walk (a generic row) or its layout (a BLAS row)."""
    if name == "einsum":
        t = a.walk[4 * a.L :]
    else:
        t, p = a.layout, 0
        for _ in range(3):  # the output's, A's and B's (nd, shape, strides)
            p += 1 + 2 * t[p]
        t = t[p + 3 :]  # after the three layout flags
    return "".join(map(chr, t))


def _eager(xs, a, f):
    """A generic row's forward, as `_einsum2` runs it: NumPy's einsum."""
    r = np.einsum(equation("einsum", a), *[t._data for t in xs], optimize=len(xs) > 1)
    return Tensor._make(contig(np.asarray(r, xs[0]._data.dtype)), -1, False)


def _dvjp(row, g):
    """gX_j = einsum(g, X_k) onto X_j's subscripts (the row records the equation).

    Letters only X_j has get g's contraction broadcast along them; a letter repeated in
    X_j (a diagonal) takes the result onto the diagonal, zeros elsewhere."""
    from .indexing import scatter_at, strided_positions

    subs, so = equation(row.name, row.attrs()).split("->")
    subs = subs.split(",")
    size = {}
    for s, sub in zip(row.ins, subs):
        size.update(zip(sub, row.shape(s)))
    out = []
    for j, sub in enumerate(subs):
        if not row.wants(j):
            out.append(None)
            continue
        others = [(row.x(k), subs[k]) for k in range(len(subs)) if k != j]
        have = set(so).union(*(o for _, o in others))
        uniq = "".join(dict.fromkeys(sub))
        core = "".join(c for c in uniq if c in have)
        spec = ",".join(["..." + so] + [o for _, o in others]) + "->..." + core
        r = einsum(spec, g, *(t for t, _ in others))
        if core != uniq:  # broadcast along X_j's own letters
            keep = tuple(size[c] if c in have else 1 for c in uniq)
            r = r.reshape(row.bshape + keep).expand(row.bshape + tuple(size[c] for c in uniq))
        if uniq != sub:  # repeated letters: onto the diagonal
            st = dict.fromkeys(uniq, 0)
            stride = 1
            for c, n in reversed(list(zip(sub, row.shape(row.ins[j])))):
                st[c] += stride
                stride *= n
            pos = strided_positions(0, [st[c] for c in uniq], [size[c] for c in uniq])
            r = scatter_at(r, pos, row.shape(row.ins[j]), row.nb)
        out.append(r)
    return tuple(out)


GEN = declare("einsum", "EinsumBackward0", a=A_GEN, vjp=vjp_einsum, eager=_eager, dvjp=_dvjp)
BMM = declare(
    "einsum_bmm", "BmmBackward0", a=A_BMM, vjp=vjp_bmm, replay=replay_bmm, dvjp=_dvjp
)  # fmt: skip


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
        from .cuda.forwards import device_error

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
        from .cuda.einsum import einsum2

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
        walk = [size[c] for c in letters] + _letter_strides(out, out_shape, letters)
        walk += _letter_strides(ops[0], arrays[0].shape, letters)
        walk += _letter_strides(ops[1], arrays[1].shape, letters) if len(ts) > 1 else [0] * L
        ia = GEN.pack(nops=len(ts), L=L, walk=walk + [ord(c) for c in eq])
        return emit(GEN, res, tuple(ts), iattrs=ia, saved=tuple(arrays))
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
    ia = BMM.pack(
        nb=nb, nm=nm, nk=nk, nn=nn,
        a_at=ac.__array_interface__["data"][0] if ac.size else 0,
        b_at=bc.__array_interface__["data"][0] if bc.size else 0,
        layout=ga + aa + bb + ident + [ord(c) for c in eq],
    )  # fmt: skip
    # a and b too: the operands on their slots (ac, bc themselves unless those are
    # permuted copies), whose in-place changes the version check reports
    return emit(BMM, res, tuple(ts), iattrs=ia, saved=(ac, bc, a, b))
