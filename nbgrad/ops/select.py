"""Selection: max/min (whole tensor, over a dim with indices, against a tensor),
amax/amin, argmax/argmin, where.

Over a dim the gradient goes to the returned index: a `take` row (ops/indexing.py). The
whole-tensor max/min and amax/amin share the gradient evenly among ties (as PyTorch):
one VJP kernel counts the ties per output, then distributes. Their rows record the
reduced dims as `ops/reduce.py`'s do; `where` records the address of its condition. Each
op is declared at the end with all its facets (`registry.declare`).
"""

from collections import namedtuple

import numpy as np
from numba import carray, njit

from nbgrad._array import contig

from .._dtype import scalar_name as _scalar_name
from .._optable import attrs, declare
from ..backends.cpu.memory import _voidptr
from ..backends.cpu.rowio import (
    cot,
    first,
    iattr,
    in_slot,
    numel,
    out_slot,
    shape,
    step,
    value,
    wants,
)
from ..tensor import Tensor, _wrap_dim
from . import cuda, indexing
from .recording import emit
from .reduce import (
    DIMS,
    _dims,
    _reduced_strides,
    bit_dims,
    cuda_vjp_lines,
    dim_bits,
    reduced,
    ties,
)

COND = attrs("cond")  # where: the address of the condition, as uint8 (0 on a CUDA row,
# which keeps it among its saved arrays)

return_types_max = namedtuple("max", ["values", "indices"])
return_types_min = namedtuple("min", ["values", "indices"])


@njit(cache=True, error_model="numpy")
def vjp_amax(T, k, V):
    """gx = g / count where x == y (count: ties per output), 0 elsewhere."""
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    g = cot(T, s_y, V)
    y = value(T, s_y, V)
    x = value(T, s_x, V)
    n = numel(T, s_x)
    shp = shape(T, s_x)
    st = _reduced_strides(iattr(T, k, DIMS.dims), shp)
    cnt = np.zeros(numel(T, s_y), np.int64)
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    for i in range(n):
        o = offs[0]
        if x[i] == y[o] or (x[i] != x[i] and y[o] != y[o]):
            cnt[o] += 1
        step(idx, shp, offs, st, st)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    idx[:] = 0
    offs[:] = 0
    for i in range(n):
        o = offs[0]
        hit = x[i] == y[o] or (x[i] != x[i] and y[o] != y[o])
        v = g[o] / cnt[o] if hit else 0.0 * g[o]
        if init:
            gx[i] = v
        else:
            gx[i] += v
        step(idx, shp, offs, st, st)


@njit(inline="always", cache=True, error_model="numpy")
def _u8(addr, n):
    return carray(_voidptr(addr), n, np.uint8)


@njit(cache=True, error_model="numpy")
def vjp_where(T, k, V):
    s_y, s_a, s_b = out_slot(T, k, 0), in_slot(T, k, 0), in_slot(T, k, 1)
    g = cot(T, s_y, V)
    n = g.size
    c = _u8(iattr(T, k, COND.cond), n)
    z = g.dtype.type(0)
    for j, s in ((0, s_a), (1, s_b)):
        if wants(T, s):
            gs = cot(T, s, V)
            if first(T, s):
                for i in range(n):
                    gs[i] = g[i] if (c[i] != 0) == (j == 0) else z
            else:
                for i in range(n):
                    if (c[i] != 0) == (j == 0):
                        gs[i] += g[i]


def _check_tensor(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )


def _empty_check(x, name, dims):
    xd = x._data
    if xd.size == 0:
        if dims is None:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        for d in dims:
            if xd.shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _amax(x, dim, keepdim, is_max, node):
    xd = x._data
    dims = _dims(dim, xd.ndim)
    _empty_check(x, node.split("Backward")[0].lower(), dims if dim is not None else None)
    f = np.max if is_max else np.min
    out = contig(np.asarray(f(xd, axis=dims, keepdims=keepdim)))
    if xd.dtype.kind != "f":
        return Tensor._make(out, -1, False)
    op = AMAX[node]
    return emit(op, out, (x,), iattrs=op.pack(dims=dim_bits(dims)), saved=(xd, out))


def amax(input, dim=(), keepdim=False):  # noqa: A002
    _check_tensor(input, "amax")
    if input.is_cuda:
        return cuda.reductions.amax(input, dim, keepdim, True)
    return _amax(input, dim if dim != () else None, keepdim, True, "AmaxBackward0")


def amin(input, dim=(), keepdim=False):  # noqa: A002
    _check_tensor(input, "amin")
    if input.is_cuda:
        return cuda.reductions.amax(input, dim, keepdim, False)
    return _amax(input, dim if dim != () else None, keepdim, False, "AminBackward0")


def _max_min(is_max, input, dim=None, keepdim=False, *, other=None):  # noqa: A002
    name = "max" if is_max else "min"
    _check_tensor(input, name)
    if input.is_cuda and other is None:
        return cuda.reductions.max_min(is_max, input, dim, keepdim)
    if isinstance(dim, Tensor):
        other, dim = dim, None
    if other is not None:
        from ..functions import maximum, minimum

        return maximum(input, other) if is_max else minimum(input, other)
    x = input
    xd = x._data
    if dim is None:
        if xd.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return _amax(x, None, False, is_max, "MaxBackward1" if is_max else "MinBackward1")
    d = _wrap_dim(dim, xd.ndim)
    xs = xd.shape if xd.ndim else (1,)
    if xs[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    x3 = xd.reshape(int(np.prod(xs[:d], dtype=np.int64)), xs[d], -1)
    # torch returns the first NaN if any (NaN propagates), else the first extreme
    idx = np.argmax(x3, axis=1) if is_max else np.argmin(x3, axis=1)
    if xd.dtype.kind == "f":
        nanm = np.isnan(x3)
        if nanm.any():
            has = nanm.any(axis=1)
            idx = np.where(has, np.argmax(nanm, axis=1), idx)
    out_shape = xs[:d] + ((1,) if keepdim else ()) + xs[d + 1 :]
    if xd.ndim == 0:
        out_shape = ()
    inner = x3.shape[2]
    pos = (
        np.arange(x3.shape[0], dtype=np.int64)[:, None] * (xs[d] * inner)
        + idx * inner
        + np.arange(inner, dtype=np.int64)[None, :]
    )
    values = indexing.take(x, pos, out_shape, "MaxBackward0" if is_max else "MinBackward0")
    indices = Tensor._make(contig(idx.astype(np.int64).reshape(out_shape)), -1, False)
    return (return_types_max if is_max else return_types_min)(values, indices)


def max(input, dim=None, keepdim=False, *, out=None):  # noqa: A001, A002
    return _max_min(True, input, dim, keepdim)


def min(input, dim=None, keepdim=False, *, out=None):  # noqa: A001, A002
    return _max_min(False, input, dim, keepdim)


def _arg(is_max, input, dim=None, keepdim=False):  # noqa: A002
    name = "argmax" if is_max else "argmin"
    _check_tensor(input, name)
    xd = input._data
    if dim is None:
        if xd.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        f = np.argmax if is_max else np.argmin
        flat = xd.reshape(-1)
        i = f(flat)
        if xd.dtype.kind == "f" and np.isnan(flat).any():
            i = np.argmax(np.isnan(flat))
        r = np.asarray(i, np.int64)
        if keepdim:
            r = r.reshape((1,) * xd.ndim)
        return Tensor._make(r, -1, False)
    r = _max_min(is_max, input, dim, keepdim)
    return r.indices


def argmax(input, dim=None, keepdim=False):  # noqa: A002
    if getattr(input, "is_cuda", False):
        return cuda.forwards.arg_best(input, dim, keepdim, True)
    return _arg(True, input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):  # noqa: A002
    if getattr(input, "is_cuda", False):
        return cuda.forwards.arg_best(input, dim, keepdim, False)
    return _arg(False, input, dim, keepdim)


def where(condition, input=None, other=None):  # noqa: A002
    from .. import _dtype
    from .pointwise import broadcast_shapes, is_scalar
    from .views import expand

    if any(getattr(v, "is_cuda", False) for v in (condition, input, other)):
        return cuda.forwards.where(condition, input, other)
    if input is None and other is None:
        c = condition._data
        return tuple(Tensor._make(contig(i.astype(np.int64)), -1, False) for i in np.nonzero(c))
    if not isinstance(condition, Tensor):
        raise TypeError(
            f"where(): argument 'condition' (position 1) must be Tensor, not "
            f"{type(condition).__name__}"
        )
    if condition._data.dtype != np.bool_:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{_scalar_name(condition.dtype)}"
        )
    a, b = input, other
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    if not ta and not tb:
        dt = (
            _dtype.get_default_dtype()
            if any(isinstance(v, float) for v in (a, b))
            else (_dtype.int64)
        )
        a = Tensor._make(np.asarray(a, dt.np), -1, False)
        b = Tensor._make(np.asarray(b, dt.np), -1, False)
    elif not ta:
        if not is_scalar(a):
            raise TypeError(f"where(): argument 'input' must be Tensor, not {type(a).__name__}")
        dt = _dtype.result_type_scalar(b.dtype, a)
        a = Tensor._make(np.asarray(a, dt.np), -1, False)
    elif not tb:
        if not is_scalar(b):
            raise TypeError(f"where(): argument 'other' must be Tensor, not {type(b).__name__}")
        dt = _dtype.result_type_scalar(a.dtype, b)
        b = Tensor._make(np.asarray(b, dt.np), -1, False)
    dt = _dtype.promote_types(a.dtype, b.dtype)
    if a.dtype is not dt:
        a = a.to(dt)
    if b.dtype is not dt:
        b = b.to(dt)
    shp = broadcast_shapes(broadcast_shapes(condition._data.shape, a._data.shape), b._data.shape)
    c = contig(np.broadcast_to(condition._data, shp))
    out = contig(np.where(c, a._data, b._data))
    if not dt.is_floating_point or not (a._rg or b._rg):
        return Tensor._make(out, -1, False)
    if a._data.shape != shp:
        a = expand(a, shp)
    if b._data.shape != shp:
        b = expand(b, shp)
    c8 = c.view(np.uint8)
    return emit(WHERE, out, (a, b), iattrs=WHERE.pack(cond=indexing.addr(c8)), saved=(c8,))


# -- differentiable VJPs (create_graph, forward mode, batched gradients) ------------------
def _dvjp_amax(row, g):
    """g shared evenly among the ties of the extreme (a constant mask)."""
    xs, keep, dims = reduced(row)
    y = row.y().detach().reshape(keep)
    return (g.reshape(row.bshape + keep) * ties(row, row.x().detach(), y, dims),)


def _dvjp_where(row, g):
    """Each output element comes from a or b by the saved condition (a, b expanded)."""
    c = row.saved[0]
    c = row.wrap((c if row.cuda else c.view(np.bool_)).reshape(row.shape(row.outs[0])))
    ga = where(c, g, 0.0) if row.wants(0) else None
    gb = where(c, 0.0, g) if row.wants(1) else None
    return ga, gb


# -- CUDA: the VJP launcher of where (its forward: ops/cuda/forwards.py) -------------------
def _cuda_vjp_where(G, k):
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch

    (c,) = G.saved(k)
    g = G.cot(G.out(k, 0))
    for j in (0, 1):
        s = G.inp(k, j)
        if G.wants(s):
            gx, acc = G.take(s)
            launch(build().where_vjp, gx.size, c, g, gx, j == 0, acc)


# -- eager calls (nbgrad.compile calls these back: the forward is NumPy's) ----------------
def _eager_amax(node):
    if node in ("MaxBackward1", "MinBackward1"):
        return lambda xs, a, f: (max if node == "MaxBackward1" else min)(xs[0])
    fn = amax if node == "AmaxBackward0" else amin
    return lambda xs, a, f: fn(xs[0], bit_dims(a.dims, xs[0].dim()), keepdim=True)


# -- declarations ---------------------------------------------------------------------
_KIND = {"AmaxBackward0": "AMAX", "AminBackward0": "AMIN", "MaxBackward1": "AMAX"}
_KIND["MinBackward1"] = "AMIN"
AMAX = {
    n: declare(
        "amax_" + n,
        n,
        a=DIMS,
        vjp=vjp_amax,
        eager=_eager_amax(n),
        cuda_vjp=cuda_vjp_lines(kind, 0.0),
        dvjp=_dvjp_amax,
    )  # fmt: skip
    for n, kind in _KIND.items()
}
WHERE = declare(
    "where", "WhereBackward0", a=COND, vjp=vjp_where, cuda_vjp=_cuda_vjp_where,
    dvjp=_dvjp_where,
)  # fmt: skip
