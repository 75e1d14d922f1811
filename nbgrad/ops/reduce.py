"""Reductions: sum, mean, prod, var/std, logsumexp, cumsum and vector norms.

Forward by NumPy's pairwise sums (a full sum of a large float array by the vectorised
`full_sum`); VJPs compiled. Each op is declared at the end with all its facets
(`registry.declare`): its row's named attributes, CPU VJP kernel, compiled replay or
eager call for `nbgrad.compile`, CUDA VJP launcher and differentiable VJP. A row
reducing any set of dims records them as a bit mask over its input's dims (`dims`); one
reducing around a single dim (prod, cumsum) records the layout (outer, n, inner) around
it. CUDA rows record the same attributes: the CUDA forwards (`ops/cuda/forwards.py:
reduce`, `ops/cuda/reductions.py`) move a set of dims that is not adjacent to the
end first, so their row reduces a run of dims of the moved copy.
"""

import math

import numpy as np
from numba import njit, prange

from nbgrad._array import contig

from .. import _dtype
from .._optable import attrs, declare
from ..autograd.grad_mode import is_grad_enabled
from ..backends.cpu.broadcast import spread
from ..backends.cpu.rowio import (
    cot,
    fattr,
    first,
    iattr,
    in_slot,
    numel,
    out_slot,
    push,
    shape,
    step,
    value,
    view_as,
    wants,
)
from ..backends.cpu.vecloops import rsum
from ..tensor import Tensor, _wrap_dim
from . import cuda
from .recording import emit

# -- a row's attributes, by name -----------------------------------------------------------
DIMS = attrs("dims")  # the reduced dims, bit d for dim d of the input
LINE = attrs("outer", "n", "inner")  # around one dim: outer * inner lines of n, stride inner
DIMS_MEAN = attrs("dims", "mean")  # var/std; mean: the saved mean's address (0 on CUDA)
SCALE = attrs("scale")  # sum/mean: 1, or 1/count
P = attrs("p")  # a p-norm's order
CORRECTION = attrs("correction")  # var/std


def dim_bits(dims):
    """The bit mask of a set of dims."""
    bits = 0
    for d in dims:
        bits |= 1 << d
    return bits


def bit_dims(bits, nd):
    """The dims of a bit mask, in order."""
    return tuple(d for d in range(nd) if bits >> d & 1)


@njit(cache=True, error_model="numpy")
def _reduced_strides(bits, shp):
    """Strides of the reduced tensor walked over the input's shape (0 on the dims in
    bit mask `bits`)."""
    nd = shp.size
    st = np.zeros(nd, np.int64)
    run = 1
    for d in range(nd - 1, -1, -1):
        if not (bits >> d) & 1:
            st[d] = run
            run *= shp[d]
    return st


@njit(cache=True, error_model="numpy")
def vjp_sum(T, k, V):
    """gx = broadcast of g * scale back over the reduced dims (scale 1/count for mean)."""
    s_y = out_slot(T, k, 0)
    s_x = in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    g = cot(T, s_y, V)
    scale = g.dtype.type(fattr(T, k, SCALE.scale))
    if numel(T, s_y) == 1:  # one value everywhere: kept as one value where it can be
        push(T, s_x, V, g[0] * scale)
        return
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    shp = shape(T, s_x)
    spread(g, gx, shp, _reduced_strides(iattr(T, k, DIMS.dims), shp), scale, init)


@njit(cache=True, error_model="numpy")
def vjp_norm(T, k, V):
    """d||x||/dx = x / ||x|| (0 where the norm is 0, as PyTorch's subgradient)."""
    s_y = out_slot(T, k, 0)
    s_x = in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    g = cot(T, s_y, V)
    y = value(T, s_y, V)
    x = value(T, s_x, V)
    n = numel(T, s_x)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    shp = shape(T, s_x)
    st = _reduced_strides(iattr(T, k, DIMS.dims), shp)
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    for i in range(n):
        o = offs[0]
        v = g[o] * x[i] / y[o] if y[o] != 0 else 0.0 * g[o]
        if init:
            gx[i] = v
        else:
            gx[i] += v
        step(idx, shp, offs, st, st)


# -- NumPy's summation order: the compiled replay of a sum over trailing dims -------------
BLOCK = 128  # NumPy's PW_BLOCKSIZE


@njit(cache=True, error_model="numpy")
def _block(a, lo, n, acc):
    """A leaf of NumPy's pairwise sum (`@TYPE@_pairwise_sum` for n <= 128)."""
    if n < 8:
        res = acc
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    m = n - n % 8
    i = 8
    while i < m:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True, error_model="numpy")
def pairwise(a, lo, n, acc):
    """NumPy's pairwise summation of a[lo:lo+n] in a's dtype (`acc`: a zero of it): halve
    (keeping multiples of 8) down to blocks of <= 128, add the halves' sums. Iterative,
    because Numba cannot reload a cached recursive function."""
    if n <= BLOCK:
        return _block(a, lo, n, acc)
    los = np.empty(64, np.int64)
    ns = np.empty(64, np.int64)
    state = np.zeros(64, np.int64)  # 0: fresh, 1: left half summed, 2: both summed
    vals = np.empty(64, a.dtype)
    los[0], ns[0], state[0] = lo, n, 0
    sp, vp = 1, 0
    while sp:
        t = sp - 1
        m = ns[t]
        if m <= BLOCK:
            vals[vp] = _block(a, los[t], m, acc)
            vp += 1
            sp -= 1
            continue
        n2 = m // 2
        n2 -= n2 % 8
        if state[t] == 0:
            state[t] = 1
            los[sp], ns[sp], state[sp] = los[t], n2, 0
            sp += 1
        elif state[t] == 1:
            state[t] = 2
            los[sp], ns[sp], state[sp] = los[t] + n2, m - n2, 0
            sp += 1
        else:
            vals[vp - 2] = vals[vp - 2] + vals[vp - 1]
            vp -= 1
            sp -= 1
    return vals[0]


@njit(cache=True, error_model="numpy")
def _sum_last(x, y, mean):
    """Sums of y.size consecutive blocks of x: NumPy's order for a reduction over
    trailing dims of a C-contiguous array (pairwise per block; checked bit-exact)."""
    n = x.size // y.size
    z = x.dtype.type(0)
    for o in range(y.size):
        r = z + pairwise(x, o * n, n, z)
        y[o] = r / x.dtype.type(n) if mean else r


@njit(cache=True, error_model="numpy")
def replay_sum_last(T, k, V):
    _sum_last(value(T, in_slot(T, k, 0), V), value(T, out_slot(T, k, 0), V), False)


@njit(cache=True, error_model="numpy")
def replay_mean_last(T, k, V):
    _sum_last(value(T, in_slot(T, k, 0), V), value(T, out_slot(T, k, 0), V), True)


def _trailing(a, in_shape):
    """Whether a row reduces trailing dims of a non-empty input (contiguous blocks)."""
    if 0 in in_shape:
        return False
    mask = [a.dims >> d & 1 for d in range(len(in_shape))]
    first = mask.index(1) if 1 in mask else len(mask)
    return all(mask[first:])


SUM_BLOCK = 2048
FULL_SUM_MIN = 1 << 14  # below, NumPy's sum is as fast (and small results stay NumPy's)
SUM_PAR_MIN = 1 << 18


@njit(cache=True, parallel=True, error_model="numpy")
def _block_sums_par(x, p):
    for b in prange(p.size):
        p[b] = rsum(x[b * SUM_BLOCK : (b + 1) * SUM_BLOCK])


@njit(cache=True, error_model="numpy")
def full_sum(x):
    """Sum of a flat float array: blocks of SUM_BLOCK summed by the vectorised `rsum` (many
    partial sums, each over a few dozen elements; blocks in parallel on large arrays), the
    block sums then summed the same way in float64. Deterministic: the blocks do not depend
    on the thread count. NumPy's pairwise sum of float32 is not vectorised (3x slower)."""
    nb = (x.size + SUM_BLOCK - 1) // SUM_BLOCK
    p = np.empty(nb, np.float64)
    if x.size >= SUM_PAR_MIN:
        _block_sums_par(x, p)
    else:
        for b in range(nb):
            p[b] = rsum(x[b * SUM_BLOCK : (b + 1) * SUM_BLOCK])
    while p.size > SUM_BLOCK:
        q = np.empty((p.size + SUM_BLOCK - 1) // SUM_BLOCK, np.float64)
        for b in range(q.size):
            q[b] = rsum(p[b * SUM_BLOCK : (b + 1) * SUM_BLOCK])
        p = q
    return rsum(p)


def _dims(dim, nd):
    """Normalise `dim` (int, sequence or None) to a sorted tuple of wrapped dims."""
    if dim is None:
        return tuple(range(nd))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) == 0:
        return tuple(range(nd))
    out = []
    for d in dims:
        w = _wrap_dim(d, nd)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(sorted(out)) if nd else ()


def _reduce(x, dim, keepdim, dtype, mean):
    data = x._data
    nd = data.ndim
    dims = _dims(dim, nd)
    if dtype is not None:
        x = x.to(_dtype.as_dtype(dtype))
        data = x._data
    if mean and data.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {x.dtype.name.capitalize()}"
        )
    if data.dtype.kind == "b" or (data.dtype == np.int32 and dtype is None):
        data = data.astype(np.int64)  # integer sums are int64 unless a dtype is given
    full = dim is None
    if (
        len(dims) == nd
        and data.size >= FULL_SUM_MIN
        and data.dtype.kind == "f"
        and data.flags.c_contiguous
    ):
        r = np.asarray(full_sum(data.reshape(-1)), data.dtype)
        if keepdim:
            r = r.reshape((1,) * nd)
    else:
        r = np.add.reduce(data, axis=dims, keepdims=keepdim)
    if mean:
        count = 1
        for d in dims:
            count *= data.shape[d]
        r = r / count if count else r * np.nan
    out = contig(np.asarray(r, dtype=data.dtype))
    if data.dtype.kind != "f":
        return Tensor._make(out, -1, False)
    scale = 1.0
    if mean:
        scale = 1.0 / count if count else float("nan")
    op = (MEAN if full else MEAN_DIM) if mean else (SUM if full else SUM_DIM)
    return emit(op, out, (x,), iattrs=op.pack(dims=dim_bits(dims)), fattrs=op.pack_f(scale=scale))


def sum(x, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    if getattr(x, "is_cuda", False):
        return cuda.forwards.reduce("sum", x, dim, keepdim, dtype)
    return _reduce(x, dim, keepdim, dtype, False)


def mean(x, dim=None, keepdim=False, *, dtype=None):
    if getattr(x, "is_cuda", False):
        return cuda.forwards.reduce("mean", x, dim, keepdim, dtype)
    return _reduce(x, dim, keepdim, dtype, True)


def norm(x, p="fro", dim=None, keepdim=False, dtype=None):
    if p is None or p == "fro":
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"norm with p={p!r} is not supported (numbers and 'fro' are)")
    return vector_norm(x, p, dim, keepdim, dtype=dtype)


# -- prod, var/std, logsumexp, cumsum, p-norms ---------------------------------------
@njit(cache=True, error_model="numpy")
def vjp_prod(T, k, V):
    """(outer, n, inner) groups: gx = g * prod(others); exact with zeros (no division
    when the group has a zero)."""
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    outer, n, inner = iattr(T, k, LINE.outer), iattr(T, k, LINE.n), iattr(T, k, LINE.inner)
    g = cot(T, s_y, V)
    x = value(T, s_x, V)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    for o in range(outer):
        for j in range(inner):
            base = o * n * inner + j
            zeros = 0
            zi = -1
            p = g.dtype.type(1)
            for c in range(n):
                v = x[base + c * inner]
                if v == 0:
                    zeros += 1
                    zi = c
                else:
                    p *= v
            gg = g[o * inner + j]
            for c in range(n):
                q = base + c * inner
                if zeros == 0:
                    v = gg * p / x[q]
                elif zeros == 1 and c == zi:
                    v = gg * p
                else:
                    v = 0.0 * gg
                if init:
                    gx[q] = v
                else:
                    gx[q] += v


@njit(cache=True, error_model="numpy")
def vjp_var(T, k, V):
    _var_grad(T, k, V, False)


@njit(cache=True, error_model="numpy")
def vjp_std(T, k, V):
    _var_grad(T, k, V, True)


@njit(cache=True, error_model="numpy")
def _var_grad(T, k, V, is_std):
    """var: gx = g * 2 (x - mean) / (N - c); std: gx = g * (x - mean) / ((N - c) * std),
    0 where std is 0."""
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    g = cot(T, s_y, V)
    y = value(T, s_y, V)
    x = value(T, s_x, V)
    m = view_as(iattr(T, k, DIMS_MEAN.mean), numel(T, s_y), V)
    shp = shape(T, s_x)
    bits = iattr(T, k, DIMS_MEAN.dims)
    count = 1
    for d in range(shp.size):
        if (bits >> d) & 1:
            count *= shp[d]
    den = count - fattr(T, k, CORRECTION.correction)
    st = _reduced_strides(bits, shp)
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    for i in range(numel(T, s_x)):
        o = offs[0]
        if is_std:
            # 0 where std is 0 (a constant group), as PyTorch's std_backward masks it
            v = g[o] * (x[i] - m[o]) / (den * y[o]) if y[o] != 0 else 0.0
        else:
            v = g[o] * 2 * (x[i] - m[o]) / den
        if init:
            gx[i] = v
        else:
            gx[i] += v
        step(idx, shp, offs, st, st)


@njit(cache=True, error_model="numpy")
def vjp_logsumexp(T, k, V):
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    g = cot(T, s_y, V)
    y = value(T, s_y, V)
    x = value(T, s_x, V)
    shp = shape(T, s_x)
    st = _reduced_strides(iattr(T, k, DIMS.dims), shp)
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    for i in range(numel(T, s_x)):
        o = offs[0]
        v = g[o] * np.exp(x[i] - y[o]) if y[o] != -np.inf else 0.0 * g[o]
        if init:
            gx[i] = v
        else:
            gx[i] += v
        step(idx, shp, offs, st, st)


@njit(cache=True, error_model="numpy")
def vjp_cumsum(T, k, V):
    """gx = reverse cumulative sum of g along the dim."""
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    outer, n, inner = iattr(T, k, LINE.outer), iattr(T, k, LINE.n), iattr(T, k, LINE.inner)
    g = cot(T, s_y, V)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    for o in range(outer):
        for j in range(inner):
            base = o * n * inner + j
            run = g.dtype.type(0)
            for c in range(n - 1, -1, -1):
                q = base + c * inner
                run += g[q]
                if init:
                    gx[q] = run
                else:
                    gx[q] += run


@njit(cache=True, error_model="numpy")
def vjp_pnorm(T, k, V):
    """d||x||_p: p=inf/-inf share g among ties of |x| == y; p=0 gives 0; else
    g * sign(x) |x|^(p-1) / y^(p-1) (0 where y == 0)."""
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    p = fattr(T, k, P.p)
    g = cot(T, s_y, V)
    y = value(T, s_y, V)
    x = value(T, s_x, V)
    n = numel(T, s_x)
    shp = shape(T, s_x)
    st = _reduced_strides(iattr(T, k, DIMS.dims), shp)
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    cnt = np.zeros(numel(T, s_y), np.int64)
    inf = p == np.inf or p == -np.inf
    if inf:
        for i in range(n):
            if abs(x[i]) == y[offs[0]]:
                cnt[offs[0]] += 1
            step(idx, shp, offs, st, st)
        idx[:] = 0
        offs[:] = 0
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    for i in range(n):
        o = offs[0]
        xi = x[i]
        s = (xi > 0) - (xi < 0)
        if inf:
            v = g[o] * s / cnt[o] if abs(xi) == y[o] else 0.0 * g[o]
        elif p == 0 or y[o] == 0:
            v = 0.0 * g[o]
        elif p == 1:
            v = g[o] * s
        else:
            v = g[o] * s * abs(xi) ** (p - 1) / y[o] ** (p - 1)
        if init:
            gx[i] = v
        else:
            gx[i] += v
        step(idx, shp, offs, st, st)


def _float_check(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )


def _layout(shape, d):
    outer = int(np.prod(shape[:d], dtype=np.int64))
    inner = int(np.prod(shape[d + 1 :], dtype=np.int64))
    return outer, shape[d], inner


def prod(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    x = input
    _float_check(x, "prod")
    if x.is_cuda:
        return cuda.reductions.prod(x, dim, keepdim, dtype)
    if dtype is not None:
        x = x.to(_dtype.as_dtype(dtype))
    data = x._data
    if dim is None:
        r = np.asarray(np.prod(data), data.dtype if data.dtype.kind == "f" else np.int64)
        lay = (1, data.size, 1)
        op = PROD
    else:
        if not isinstance(dim, (int, np.integer)):
            raise TypeError("prod(): argument 'dim' must be int")
        d = _wrap_dim(dim, data.ndim)
        sh = data.shape if data.ndim else (1,)
        r = np.prod(data, axis=d if data.ndim else None, keepdims=keepdim and data.ndim > 0)
        r = np.asarray(r, data.dtype if data.dtype.kind == "f" else np.int64)
        lay = _layout(sh, d)
        op = PROD_DIM
    out = np.array(r, copy=True) if r.ndim == 0 else contig(r)
    if data.dtype.kind != "f":
        return Tensor._make(out, -1, False)
    return emit(op, out, (x,), iattrs=op.pack(outer=lay[0], n=lay[1], inner=lay[2]), saved=(data,))


def _var_args(dim, unbiased, correction, keepdim):
    if isinstance(dim, bool):  # var(x, unbiased)
        unbiased, dim = dim, None
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    elif unbiased is not None:
        raise RuntimeError("var(): cannot specify both unbiased and correction")
    return dim, float(correction), keepdim


def _var(x, dim, unbiased, keepdim, correction, is_std):
    name = "std" if is_std else "var"
    _float_check(x, name)
    if x.is_cuda:
        return cuda.reductions.var(x, dim, unbiased, keepdim, correction, is_std)
    dim, corr, keepdim = _var_args(dim, unbiased, correction, keepdim)
    data = x._data
    if data.dtype.kind != "f":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _dims(dim, data.ndim)
    count = 1
    for d in dims:
        count *= data.shape[d]
    den = count - corr
    if den <= 0:
        import warnings

        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
            "less than the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    m = (
        np.mean(data, axis=dims, keepdims=True)
        if data.size
        else np.full([1 if d in dims else s for d, s in enumerate(data.shape)], np.nan, data.dtype)
    )
    dev = data - m
    with np.errstate(all="ignore"):
        v = np.sum(dev * dev, axis=dims, keepdims=True) / max(den, 0)
        r = np.sqrt(v) if is_std else v
    r = np.asarray(r, data.dtype)
    out = r if keepdim else r.reshape([n for d, n in enumerate(data.shape) if d not in dims])
    out = contig(out) if out.ndim else np.array(out, copy=True)
    m = contig(m, data.dtype)
    op = STD if is_std else VAR
    ia = op.pack(dims=dim_bits(dims), mean=m.__array_interface__["data"][0])
    return emit(op, out, (x,), iattrs=ia, fattrs=op.pack_f(correction=corr), saved=(data, out, m))


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    return _var(input, dim, unbiased, keepdim, correction, False)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    return _var(input, dim, unbiased, keepdim, correction, True)


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    x = input
    _float_check(x, "logsumexp")
    if x.is_cuda:
        return cuda.reductions.logsumexp(x, dim, keepdim)
    data = x._data
    if data.dtype.kind != "f":
        data = data.astype(_dtype.get_default_dtype().np)
        x = Tensor._make(data, -1, False)
    dims = _dims(dim, data.ndim)
    if data.size == 0:
        r = np.full([1 if d in dims else s for d, s in enumerate(data.shape)], -np.inf, data.dtype)
    else:
        m = np.max(data, axis=dims, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        with np.errstate(divide="ignore"):
            r = np.log(np.sum(np.exp(data - m), axis=dims, keepdims=True)) + m
    r = np.asarray(r, data.dtype)
    out = r if keepdim else r.reshape([n for d, n in enumerate(data.shape) if d not in dims])
    out = contig(out) if out.ndim else np.array(out, copy=True)
    ia = LOGSUMEXP.pack(dims=dim_bits(dims))
    return emit(LOGSUMEXP, out, (x,), iattrs=ia, saved=(data, out))


def cumsum(input, dim, *, dtype=None):  # noqa: A002
    x = input
    _float_check(x, "cumsum")
    if x.is_cuda:
        return cuda.reductions.cumsum(x, dim, dtype)
    if dtype is not None:
        x = x.to(_dtype.as_dtype(dtype))
    data = x._data
    d = _wrap_dim(dim, data.ndim)
    if data.dtype.kind in "bi" and data.dtype != np.int64:
        data = data.astype(np.int64)
    out = contig(np.cumsum(data, axis=d if data.ndim else None).reshape(data.shape))
    if data.dtype.kind != "f":
        return Tensor._make(out, -1, False)
    outer, n, inner = _layout(data.shape if data.ndim else (1,), d)
    return emit(CUMSUM, out, (x,), iattrs=CUMSUM.pack(outer=outer, n=n, inner=inner))


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    _float_check(x, "linalg.vector_norm")
    if x.is_cuda:
        return cuda.reductions.norm(x, ord, dim, keepdim, dtype)
    if dtype is not None:
        x = x.to(_dtype.as_dtype(dtype))
    if x._data.dtype.kind != "f":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {x.dtype.name.capitalize()}"
        )
    p = float(ord)
    data = x._data
    dims = _dims(dim, data.ndim)
    a = np.abs(data)
    if data.size == 0 and p in (np.inf, -np.inf) or (p < 0 and data.size == 0):
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because "
            "the operation does not have an identity"
        )
    if p == np.inf:
        r = np.max(a, axis=dims, keepdims=True)
    elif p == -np.inf:
        r = np.min(a, axis=dims, keepdims=True)
    elif p == 0:
        r = np.sum(a != 0, axis=dims, keepdims=True).astype(data.dtype)
    elif p == 1:
        r = np.sum(a, axis=dims, keepdims=True)
    elif p == 2:
        r = np.sqrt(np.sum(a * a, axis=dims, keepdims=True))
    else:
        with np.errstate(divide="ignore"):
            r = np.sum(a**p, axis=dims, keepdims=True) ** (1.0 / p)
    r = np.asarray(r, data.dtype)
    out = r if keepdim else r.reshape([n for d, n in enumerate(data.shape) if d not in dims])
    out = contig(out) if out.ndim else np.array(out, copy=True)
    ia = NORM.pack(dims=dim_bits(dims))
    if p == 2:
        return emit(NORM, out, (x,), iattrs=ia, saved=(data, out))
    return emit(PNORM, out, (x,), iattrs=ia, fattrs=PNORM.pack_f(p=p), saved=(data, out))


# -- CUDA: VJP launchers (kernels in backends/cuda/kernels.py) ----------------------------
def _cuda_vjp_sum(G, k):
    """sum/mean: g (times the scale) gathered back over the reduced dims."""
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch
    from ..backends.cuda.primitives import dev_ints

    sx = G.inp(k, 0)
    if not G.wants(sx):
        return
    xs = G.shape(sx)
    bits = type(DIMS)(*G.iattrs(k)).dims
    gst = [0] * len(xs)  # strides of g laid out with the reduced dims kept as size 1
    run = 1
    for d in range(len(xs) - 1, -1, -1):
        if not bits >> d & 1:
            gst[d] = run
            run *= xs[d]
    gx, acc = G.take(sx)
    shp, st = dev_ints(xs, gst)
    scale = G.fattr(k, SCALE.scale)
    launch(build().gather, gx.size, G.cot(G.out(k, 0)), gx, shp, st, acc, scale)


def cuda_vjp_lines(kind, p=None):
    """The launcher of the `lines_vjp` kernel of `kind` (a name in backends/cuda/kernels.py)
    for a row reducing a run of dims (`dims`) or around one dim (`outer`, `n`, `inner`);
    `p`: the kernel's parameter, or None for the row's first float attribute."""

    def vjp(G, k):
        from ..backends.cuda import kernels as K
        from ..backends.cuda.launch import launch
        from .cuda.reductions import line_layout

        sx = G.inp(k, 0)
        if not G.wants(sx):
            return
        ia = G.iattrs(k)
        if kind in ("PROD", "CUMSUM"):
            outer, n, inner = type(LINE)(*ia)
        else:
            xs = G.shape(sx)
            outer, n, inner = line_layout(xs, bit_dims(ia[DIMS.dims], len(xs)))
        kd = getattr(K, kind)
        g = G.cot(G.out(k, 0))
        x, y = G.saved(k) if kd != K.CUMSUM else (g, g)
        gx, acc = G.take(sx)
        q = G.fattr(k, 0) if p is None else p
        nl = outer * inner if n or kd != K.CUMSUM else 0  # an empty cumsum runs nothing
        if nl:
            launch(K.build().lines_vjp, nl, x, y, g, gx, nl, n, inner, kd, q, acc)

    return vjp


# -- differentiable VJPs (create_graph, forward mode, batched gradients) ------------------
# Written with nbgrad ops, so they are recorded and broadcast over the cotangent's leading
# batch dims (`row.nb`). Masks of ties and signs are constants built on the saved
# (detached) values; what varies smoothly is recomputed from the row's values.
def _as_float(row, m):
    """A bool Tensor as 0/1 in the dtype of the row's input."""
    return m.to(row.dtype(row.ins[0]))


def _sign(row, v):
    """sign(v) as 0/1/-1 (0 for NaN: the kernels' (v > 0) - (v < 0)), a constant."""
    return _as_float(row, v > 0) - _as_float(row, v < 0)


def reduced(row):
    """(input shape, output shape with the reduced dims kept as 1, reduced dims as
    negative indices, valid with or without batch dims) of a row with `dims`."""
    xs = row.shape(row.ins[0])
    bits = row.attrs().dims
    keep = tuple(1 if bits >> d & 1 else n for d, n in enumerate(xs))
    return xs, keep, tuple(d - len(xs) for d in bit_dims(bits, len(xs)))


def ties(row, x, y, dims, nan=True):
    """1 / (number of ties) where x == y (and NaN == NaN, for max/min), else 0: how
    max/min and the inf-norms share the gradient (a constant)."""
    from .select import where

    hit = x == y
    if nan:
        hit = hit | ((x != x) & (y != y))
    h = _as_float(row, hit)
    cnt = h.sum(dim=dims, keepdim=True) if dims else h
    return where(cnt > 0, h / cnt, 0.0)  # no ties: a NaN norm


def _dvjp_sum(row, g):
    """Broadcast g back over the reduced dims (times 1/count for a mean)."""
    if not row.wants(0):
        return (None,)
    xs, keep, _ = reduced(row)
    if is_grad_enabled() and g.requires_grad or type(g._data) is not np.ndarray:
        gx = g.reshape(row.bshape + keep).expand(row.bshape + xs)
    else:  # nothing to record: broadcast with NumPy (the expand op's path is slower)
        gd = np.empty(row.bshape + xs, g._data.dtype)
        gd[...] = g._data.reshape(row.bshape + keep)
        gx = Tensor._make(gd, -1, False)
    scale = row.fattr0()
    return (gx * scale if scale != 1.0 else gx,)


def _dvjp_norm(row, g):
    """d||x||_p = sign(x) |x|^(p-1) / y^(p-1) (x / y for p = 2; 0 where y = 0); p = 0
    gives 0; p = +-inf shares g among the ties |x| == y."""
    xs, keep, dims = reduced(row)
    p = 2.0 if row.name == "norm" else row.float_attrs().p
    if p == 0:
        return (row.zeros(row.ins[0]),)
    gk = g.reshape(row.bshape + keep)
    x = row.x()
    xd = x.detach()
    sign = _sign(row, xd)
    if math.isinf(p):
        share = ties(row, xd.abs(), row.y().detach().reshape(keep), dims, nan=False)
        return (gk * (sign * share),)
    if p == 1:
        return (gk * sign,)
    y = row.y().reshape(keep)
    y = y + _as_float(row, y.detach() == 0)  # y = 0 only where x = 0: divide by 1 instead
    if p == 2:
        return (gk * x / y,)
    return (gk * sign * x.abs() ** (p - 1) / y ** (p - 1),)


def _dvjp_var(row, g):
    """var: gx = g * 2 (x - mean) / den; std: gx = g * (x - mean) / (den * std); the mean
    is recomputed from x so that its dependence on x is differentiated too."""
    from .select import where

    xs, keep, dims = reduced(row)
    count = math.prod(xs[d] for d in dims)
    den = count - row.float_attrs().correction
    if row.cuda:  # the CUDA kernel divides by max(den, 0)
        den = max(den, 0.0)
    x = row.x()
    dev = x - x.mean(dim=dims, keepdim=True) if dims else x - x
    gk = g.reshape(row.bshape + keep)
    if row.name == "std":  # 0 where std is 0, as the first-order VJP (no NaN paths)
        y = row.y().reshape(keep)
        zero = y.detach() == 0
        return (where(zero, 0.0, gk * dev / (where(zero, 1.0, y) * den)),)
    return (gk * dev * 2.0 / den,)


def _dvjp_logsumexp(row, g):
    """gx = g * exp(x - y) (0 where y = -inf)."""
    from .select import where

    xs, keep, dims = reduced(row)
    y = row.y().reshape(keep)
    yd = y.detach()
    if row.cuda or (yd._data == -np.inf).any():  # an all -inf group: exp(-inf - 0) = 0
        y = where(yd == -math.inf, 0.0, y)
    return (g.reshape(row.bshape + keep) * (row.x() - y).exp(),)


def _dvjp_prod(row, g):
    """gx = g * (product of the other elements of the group): the exclusive prefix times
    the exclusive suffix product, which is exact with zeros (no division)."""
    outer, n, inner = row.attrs()
    xs = row.shape(row.ins[0])
    x3 = row.x().reshape(outer, n, inner)
    others = _exclusive_prod(row, x3, False) * _exclusive_prod(row, x3, True)
    gk = g.reshape(row.bshape + (outer, 1, inner))
    return ((gk * others).reshape(row.bshape + xs),)


def _exclusive_prod(row, x3, reverse):
    """Products of the elements before (after, if reverse) each one along dim 1, by
    log2(n) doubling steps of shifted products (Hillis-Steele)."""
    outer, n, inner = x3.shape
    p = _shift(row, x3, 1, reverse)
    s = 1
    while s < n:
        p = p * _shift(row, p, s, reverse)
        s *= 2
    return p


def _shift(row, t, s, reverse):
    """t moved s places along dim 1 (towards the end, or the start if reverse), ones in."""
    from .joins import cat

    outer, n, inner = t.shape
    s = min(s, n)
    ones = row.const(np.ones((outer, s, inner), t._data.dtype))
    if s == n:
        return ones
    return cat([t[:, s:], ones] if reverse else [ones, t[:, : n - s]], dim=1)


def _dvjp_cumsum(row, g):
    """gx = the reverse cumulative sum of g along the dim."""
    outer, n, inner = row.attrs()
    d = row.nb + 1
    g3 = g.reshape(row.bshape + (outer, n, inner))
    gx = g3.flip(d).cumsum(d).flip(d)
    return (gx.reshape(row.bshape + row.shape(row.ins[0])),)


# -- eager calls (nbgrad.compile calls these back for rows it replays with NumPy's code) ---
def _line_dim(shp, outer, n):
    """The dim d of `shp` with prod(shp[:d]) == outer and shp[d] == n (a row's layout)."""
    for d in range(len(shp)):
        if math.prod(shp[:d]) == outer and shp[d] == n:
            return d
    return 0


def _eager_dims(fn, **kw):
    """The eager call of a reduction over the row's `dims`, kept (the row's output shape)."""
    return lambda xs, a, f: fn(xs[0], dim=bit_dims(a.dims, xs[0].dim()), keepdim=True, **kw)


def _eager_line(fn, **kw):
    """The eager call of an op around the dim of the row's (outer, n, inner)."""
    return lambda xs, a, f: fn(xs[0], _line_dim(tuple(xs[0].shape) or (1,), a.outer, a.n), **kw)


def _eager_var(fn):
    return lambda xs, a, f: fn(
        xs[0], bit_dims(a.dims, xs[0].dim()), correction=f.correction, keepdim=True
    )


def sum_to(g, shape, nb):
    """Reduce `g` (batch dims + a shape that `shape` broadcasts to) to batch + `shape`:
    the VJP of a broadcast, in the differentiable VJPs."""
    gs = tuple(g.shape)
    if gs[nb:] == tuple(shape):
        return g
    lead = len(gs) - nb - len(shape)
    dims = list(range(nb, nb + lead))
    for i, n in enumerate(shape):
        if n == 1 and gs[nb + lead + i] != 1:
            dims.append(nb + lead + i)
    if dims:
        g = g.sum(dim=dims, keepdim=True)
    return g.reshape(gs[:nb] + tuple(shape))


# -- declarations ---------------------------------------------------------------------
_SUM_FACETS = dict(a=DIMS, f=SCALE, vjp=vjp_sum, cuda_vjp=_cuda_vjp_sum, dvjp=_dvjp_sum)
SUM = declare("sum", "SumBackward0", **_SUM_FACETS)
SUM_DIM = declare(
    "sum_dim", "SumBackward1", replay=replay_sum_last, replay_when=_trailing,
    eager=_eager_dims(sum), **_SUM_FACETS,
)  # fmt: skip
MEAN = declare("mean", "MeanBackward0", **_SUM_FACETS)
MEAN_DIM = declare(
    "mean_dim", "MeanBackward1", replay=replay_mean_last, replay_when=_trailing,
    eager=_eager_dims(mean), **_SUM_FACETS,
)  # fmt: skip
NORM = declare(
    "norm", "LinalgVectorNormBackward0", a=DIMS, vjp=vjp_norm,
    eager=_eager_dims(vector_norm, ord=2), cuda_vjp=cuda_vjp_lines("PNORM", 2.0),
    dvjp=_dvjp_norm,
)  # fmt: skip
PROD = declare(
    "prod", "ProdBackward0", a=LINE, vjp=vjp_prod, eager=lambda xs, a, f: prod(xs[0]),
    cuda_vjp=cuda_vjp_lines("PROD", 0.0), dvjp=_dvjp_prod,
)  # fmt: skip
PROD_DIM = declare(
    "prod_dim", "ProdBackward1", a=LINE, vjp=vjp_prod, eager=_eager_line(prod, keepdim=True),
    cuda_vjp=cuda_vjp_lines("PROD", 0.0), dvjp=_dvjp_prod,
)  # fmt: skip
_VAR_FACETS = dict(a=DIMS_MEAN, f=CORRECTION, eager_attrs=True, dvjp=_dvjp_var)
VAR = declare(
    "var", "VarBackward0", vjp=vjp_var, eager=_eager_var(var),
    cuda_vjp=cuda_vjp_lines("VAR"), **_VAR_FACETS,
)  # fmt: skip
STD = declare(
    "std", "StdBackward0", vjp=vjp_std, eager=_eager_var(std),
    cuda_vjp=cuda_vjp_lines("STD"), **_VAR_FACETS,
)  # fmt: skip
LOGSUMEXP = declare(
    "logsumexp", "LogsumexpBackward0", a=DIMS, vjp=vjp_logsumexp,
    eager=_eager_dims(logsumexp), cuda_vjp=cuda_vjp_lines("LSE", 0.0),
    dvjp=_dvjp_logsumexp,
)  # fmt: skip
CUMSUM = declare(
    "cumsum", "CumsumBackward0", a=LINE, vjp=vjp_cumsum, eager=_eager_line(cumsum),
    cuda_vjp=cuda_vjp_lines("CUMSUM", 0.0), dvjp=_dvjp_cumsum,
)  # fmt: skip
PNORM = declare(
    "pnorm", "LinalgVectorNormBackward0", a=DIMS, f=P, vjp=vjp_pnorm,
    eager=lambda xs, a, f: vector_norm(
        xs[0], f.p, bit_dims(a.dims, xs[0].dim()), keepdim=True
    ),
    cuda_vjp=cuda_vjp_lines("PNORM"), dvjp=_dvjp_norm,
)  # fmt: skip
