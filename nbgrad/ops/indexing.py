"""Gathers and scatters by flat positions: one VJP kernel pair covers every indexing op.

* take rows (gather, index_select, advanced indexing, max/min over a dim, ...): the output
  is `x.flat[pos]` for an int64 array `pos` (computed and bounds-checked in Python); the
  VJP scatter-adds `g` at `pos`, so duplicate indices accumulate.
* put-add rows (scatter_add, index_add, index_put with accumulate): the output is `x` with
  `alpha * src.flat[spos]` added at `x.flat[dpos]`; gx = g, gsrc = alpha * g[dpos] at spos.
* put rows (index_put / x[idx] = v): the output is `x` with `x.flat[dpos] = v.flat[spos]`;
  gx = g zeroed at dpos, gv = sum of g[dpos] at spos.

Every position array is saved with the row and read by address (`vi64`). The ops are
declared at the end with their facets (`registry.declare`): named attributes (`A_TAKE`,
`A_PUT`, one schema for CPU and CUDA rows), CPU VJP kernels, CUDA forwards and VJP
launchers (kernels in backends/cuda/kernels.py), compiled replays and differentiable
VJPs. Those are written with `gather_at` / `scatter_at` (takes and put-adds at flat
positions, over leading batch dims): every op that moves elements without arithmetic
(views, joins, einsum's diagonals) writes its differentiable VJP with them, and as they
are recorded ops whose own VJPs are here, the set is closed under differentiation.
"""

import functools

import numpy as np
from numba import njit

from nbgrad._array import contig

from .._dtype import scalar_name as _scalar_name
from .._optable import attrs, declare
from ..backends.cpu.memory import vi64
from ..backends.cpu.rowio import acc, cot, fattr, first, iattr, in_slot, out_slot, value, wants
from ..tensor import Tensor, _host, _wrap_dim
from .recording import emit

# a take row: the address of its positions (int64; 0 on CUDA, where the row saves them on
# the device) and their count; a put or put-add row: the addresses of the destination and
# source positions, their count, whether the source is added (else stored), and alpha,
# the scale of an added source
A_TAKE = attrs("pos_at", "n")
A_PUT = attrs("dpos_at", "spos_at", "n", "add")
F_PUT = attrs("alpha")
_TAKE_NODES = (
    "IndexBackward0",
    "GatherBackward0",
    "IndexSelectBackward0",
    "MaxBackward0",
    "MinBackward0",
    "TakeAlongDimBackward0",
    "MaskedSelectBackward0",
    "TakeBackward0",
)
# the CUDA rows of the view and shape ops (slices, flips, splits, ...) are takes at saved
# positions too (ops/cuda/index.py), named by the node PyTorch gives the op
_VIEW_TAKE_NODES = (
    "SliceBackward0",
    "SelectBackward0",
    "UnsqueezeBackward0",
    "FlipBackward0",
    "RepeatBackward0",
    "PermuteBackward0",
    "NarrowBackward0",
    "SplitBackward0",
    "UnbindBackward0",
    "SplitWithSizesBackward0",
)
_PUT_ADD_NODES = ("ScatterAddBackward0", "IndexAddBackward0", "IndexPutBackward0")
_PUT_NODES = ("IndexPutBackward0", "CopySlices")


TRACE = None  # set by nbgrad.compile while it traces a call (nbgrad/_compile/trace.py)


def _by_index(fn):
    """Mark an op whose positions it computes from index values: while nbgrad.compile
    traces, its calls are reported (so a replay can call it again for new positions)."""

    @functools.wraps(fn)
    def op(*args, **kwargs):
        if TRACE is None:
            return fn(*args, **kwargs)
        return TRACE(fn, args, kwargs)

    return op


def addr(a):
    return a.__array_interface__["data"][0] if a.size else 0


@njit(cache=True, error_model="numpy")
def vjp_take(T, k, V):
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    n = iattr(T, k, A_TAKE.n)
    pos = vi64(iattr(T, k, A_TAKE.pos_at), n)
    g = cot(T, s_y, V)
    gx = acc(T, s_x, V)
    for i in range(n):
        gx[pos[i]] += g[i]


@njit(cache=True, error_model="numpy")
def vjp_put_add(T, k, V):
    s_y, s_x, s_s = out_slot(T, k, 0), in_slot(T, k, 0), in_slot(T, k, 1)
    n = iattr(T, k, A_PUT.n)
    g = cot(T, s_y, V)
    if wants(T, s_x):
        gx = cot(T, s_x, V)
        if first(T, s_x):
            gx[:] = g
        else:
            for i in range(g.size):
                gx[i] += g[i]
    if wants(T, s_s):
        dpos = vi64(iattr(T, k, A_PUT.dpos_at), n)
        spos = vi64(iattr(T, k, A_PUT.spos_at), n)
        alpha = g.dtype.type(fattr(T, k, F_PUT.alpha))
        gs = acc(T, s_s, V)
        for i in range(n):
            gs[spos[i]] += alpha * g[dpos[i]]


@njit(cache=True, error_model="numpy")
def vjp_put(T, k, V):
    s_y, s_x, s_s = out_slot(T, k, 0), in_slot(T, k, 0), in_slot(T, k, 1)
    n = iattr(T, k, A_PUT.n)
    dpos = vi64(iattr(T, k, A_PUT.dpos_at), n)
    g = cot(T, s_y, V)
    if wants(T, s_s):
        spos = vi64(iattr(T, k, A_PUT.spos_at), n)
        gs = acc(T, s_s, V)
        for i in range(n):
            gs[spos[i]] += g[dpos[i]]
    if wants(T, s_x):
        h = g.copy()
        for i in range(n):
            h[dpos[i]] = 0
        gx = cot(T, s_x, V)
        if first(T, s_x):
            gx[:] = h
        else:
            for i in range(h.size):
                gx[i] += h[i]


# -- recording helpers -----------------------------------------------------------------
def take(x, pos, shape, node="IndexBackward0"):
    """x.flat[pos] reshaped to `shape` (pos: int64, in bounds: checked by the caller)."""
    op = TAKE[node]
    if x.is_cuda:
        return cuda_take(x, pos, shape, op)
    pos = contig(pos, dtype=np.int64).reshape(-1)
    out = x._data.reshape(-1)[pos].reshape(shape)
    if x._data.dtype.kind != "f":
        return Tensor._make(out, -1, False)
    return emit(op, out, (x,), iattrs=op.pack(pos_at=addr(pos), n=pos.size), saved=(pos,))


def masked_select(x, mask):
    """x[mask] with x and mask broadcast: the mask's true positions are found on the host
    (the result's size depends on them; PyTorch synchronises on CUDA too)."""
    from .pointwise import broadcast_shapes
    from .views import expand

    if not isinstance(mask, Tensor):
        raise TypeError(
            f"masked_select(): argument 'mask' must be Tensor, not {type(mask).__name__}"
        )
    if x.is_cuda:
        from .cuda.index import _on_cuda

        mask = _on_cuda(mask)
    elif mask.is_cuda:  # PyTorch moves no operand to the host behind the user's back
        from .cuda.forwards import device_error

        raise device_error("cpu", "cuda:0")
    m = _host(mask._data)
    if m.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(m.shape, x._data.shape)
    if x._data.shape != shape:
        x = expand(x, shape)
    pos = np.flatnonzero(np.broadcast_to(m, shape))
    return take(x, pos, (pos.size,), "MaskedSelectBackward0")


def put_add(x, src, dpos, spos, alpha=1.0, node="ScatterAddBackward0"):
    if x.is_cuda:
        return cuda_put(x, src, dpos, spos, alpha, PUT_ADD[node], True)
    dpos = contig(dpos, dtype=np.int64).reshape(-1)
    spos = contig(spos, dtype=np.int64).reshape(-1)
    out = x._data.copy()
    vals = src._data.reshape(-1)[spos]
    if alpha != 1:
        vals = vals * alpha
    np.add.at(out.reshape(-1), dpos, vals.astype(out.dtype, copy=False))
    if out.dtype.kind != "f":
        return Tensor._make(out, -1, False)
    op = PUT_ADD[node]
    ia = op.pack(dpos_at=addr(dpos), spos_at=addr(spos), n=dpos.size, add=1)
    fa = op.pack_f(alpha=float(alpha))
    return emit(op, out, (x, src), iattrs=ia, fattrs=fa, saved=(dpos, spos))


def put(x, src, dpos, spos, node="IndexPutBackward0"):
    if x.is_cuda:
        return cuda_put(x, src, dpos, spos, 1.0, PUT[node], False)
    dpos = contig(dpos, dtype=np.int64).reshape(-1)
    spos = contig(spos, dtype=np.int64).reshape(-1)
    out = x._data.copy()
    out.reshape(-1)[dpos] = src._data.reshape(-1)[spos]
    if out.dtype.kind != "f":
        return Tensor._make(out, -1, False)
    op = PUT[node]
    ia = op.pack(dpos_at=addr(dpos), spos_at=addr(spos), n=dpos.size, add=0)
    fa = op.pack_f(alpha=1.0)
    return emit(op, out, (x, src), iattrs=ia, fattrs=fa, saved=(dpos, spos))


# -- index arithmetic ------------------------------------------------------------------
def _index_array(index, name):
    if not isinstance(index, Tensor):
        raise TypeError(
            f"{name}(): argument 'index' (position 3) must be Tensor, not {type(index).__name__}"
        )
    d = index._data.host() if index.is_cuda else index._data  # positions: computed on host
    if d.dtype != np.int64:
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")
    return d


def _along_dim_positions(shape, dim, index):
    """Flat positions in a tensor of `shape` of index-shaped coordinates with `index`
    along `dim` (gather/scatter semantics; index may be smaller than shape elsewhere)."""
    nd = len(shape)
    strides = np.ones(nd, np.int64)
    for d in range(nd - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    pos = np.zeros(index.shape, np.int64)
    for d in range(nd):
        if d == dim:
            pos += index * strides[d]
        else:
            r = np.arange(index.shape[d], dtype=np.int64).reshape(
                [-1 if q == d else 1 for q in range(nd)]
            )
            pos += r * strides[d]
    return pos


def _check_along(x, dim, index, name, src=None, wrap=False):
    """Shapes and bounds of a gather/scatter index; `wrap`: negative indices count from
    the end (take_along_dim, as PyTorch's); otherwise they are out of bounds."""
    xd = x._data
    nd = max(xd.ndim, 1)
    d = _wrap_dim(dim, xd.ndim)
    xs = xd.shape if xd.ndim else (1,)
    ind = index.reshape(index.shape if index.ndim else (1,))
    if ind.ndim != nd and index.size:
        raise RuntimeError(
            f"Index tensor must have the same number of dimensions as "
            f"{'input' if src is None else 'self'} tensor"
        )
    for q in range(nd):
        if ind.size and q != d and ind.shape[q] > xs[q]:
            raise RuntimeError(
                f"Size does not match at dimension {q} expected index {list(ind.shape)} to be "
                f"no larger than {'self' if src is not None else 'input'} {list(xs)} apart "
                f"from dimension {d}"
            )
        if src is not None and src.ndim and ind.size and ind.shape[q] > src.shape[q]:
            raise RuntimeError(
                f"Size does not match at dimension {q} expected index {list(ind.shape)} to be "
                f"no larger than src {list(src.shape)}"
            )
    if ind.size:
        lo, hi = ind.min(), ind.max()
        low = -xs[d] if wrap else 0
        if lo < low or hi >= xs[d]:
            bad = lo if lo < low else hi
            raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {xs[d]}")
    return d, xs, np.where(ind < 0, ind + xs[d], ind) if wrap else ind


@_by_index
def gather(input, dim, index, *, sparse_grad=False):  # noqa: A002
    x = input
    idx = _index_array(index, "gather")
    d, xs, ind = _check_along(x, dim, idx, "gather")
    pos = _along_dim_positions(xs, d, ind)
    return take(x, pos, idx.shape, "GatherBackward0")


@_by_index
def take_along_dim(input, indices, dim=None):  # noqa: A002
    x = input
    if dim is None:
        from .views import reshape

        return take_along_dim(
            reshape(x, (-1,)), reshape(indices, (-1,)) if indices._data.ndim != 1 else indices, 0
        )
    idx = _index_array(indices, "take_along_dim")
    shape = np.broadcast_shapes(
        tuple(1 if q == _wrap_dim(dim, x._data.ndim) else s for q, s in enumerate(idx.shape)),
        tuple(1 if q == _wrap_dim(dim, x._data.ndim) else s for q, s in enumerate(x._data.shape)),
    )
    d = _wrap_dim(dim, x._data.ndim)
    ishape = tuple(idx.shape[d] if q == d else s for q, s in enumerate(shape))
    xshape = tuple(x._data.shape[d] if q == d else s for q, s in enumerate(shape))
    from .views import expand

    if xshape != x._data.shape:
        x = expand(x, xshape)
    idx = np.broadcast_to(idx, ishape)
    d, xs, ind = _check_along(x, d, idx, "take_along_dim", wrap=True)
    return take(x, _along_dim_positions(xs, d, ind), ishape, "TakeAlongDimBackward0")


@_by_index
def scatter_add(input, dim, index, src):  # noqa: A002
    x = input
    idx = _index_array(index, "scatter_add")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' must be Tensor, not {type(src).__name__}")
    if src.dtype is not x.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    d, xs, ind = _check_along(x, dim, idx, "scatter_add", src._data)
    dpos = _along_dim_positions(xs, d, ind)
    ss = src._data.shape if src._data.ndim else (1,)
    spos = _along_dim_positions(
        ss,
        d,
        np.broadcast_to(
            np.arange(ind.shape[d]).reshape([-1 if q == d else 1 for q in range(ind.ndim)]),
            ind.shape,
        ),
    )
    return put_add(x, src, dpos, spos, 1.0, "ScatterAddBackward0")


def _check_index_vector(index, name, size, dim, cpu=True):
    """index_select/index_add's index: a vector of positions in [0, size) (PyTorch does
    not wrap negative ones here, and raises its kernels' errors)."""
    idx = _index_array(index, name)
    if idx.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    idx = idx.reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        bad = idx.min() if idx.min() < 0 else idx.max()
        if name != "index_select":
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
        if dim == 1 and cpu:  # PyTorch's CPU index_select checks dim 1 in another kernel
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
        raise IndexError("index out of range in self")
    return idx


def _dim_positions(shape, dim, idx):
    """Flat positions of x.index_select(dim, idx) in a tensor of `shape`, output order."""
    outer = int(np.prod(shape[:dim], dtype=np.int64))
    inner = int(np.prod(shape[dim + 1 :], dtype=np.int64))
    n = shape[dim]
    pos = (
        np.arange(outer, dtype=np.int64)[:, None, None] * (n * inner)
        + idx[None, :, None] * inner
        + np.arange(inner, dtype=np.int64)[None, None, :]
    )
    return pos.reshape(-1)


@_by_index
def index_select(input, dim, index):  # noqa: A002
    x = input
    xd = x._data
    d = _wrap_dim(dim, xd.ndim)
    xs = xd.shape if xd.ndim else (1,)
    idx = _check_index_vector(index, "index_select", xs[d], d, not x.is_cuda)
    out_shape = xs[:d] + (idx.size,) + xs[d + 1 :]
    if xd.ndim == 0:
        out_shape = () if index._data.ndim == 0 else (idx.size,)
    return take(x, _dim_positions(xs, d, idx), out_shape, "IndexSelectBackward0")


@_by_index
def index_add(input, dim, index, source, *, alpha=1):  # noqa: A002
    x = input
    xd = x._data
    d = _wrap_dim(dim, xd.ndim)
    xs = xd.shape if xd.ndim else (1,)
    idx = _check_index_vector(index, "index_add", xs[d], d)
    if not isinstance(source, Tensor):
        raise TypeError("index_add(): argument 'source' must be Tensor")
    ss = source._data.shape if source._data.ndim else (1,)
    want = xs[:d] + (idx.size,) + xs[d + 1 :]
    if tuple(ss) != tuple(want):
        raise RuntimeError(
            f"source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(xs)} source.shape = {list(ss)}"
        )
    if source.dtype is not x.dtype:
        raise RuntimeError(
            f"index_add_(): self ({_scalar_name(x.dtype)}) and source "
            f"({_scalar_name(source.dtype)}) must have the same scalar type"
        )
    dpos = _dim_positions(xs, d, idx)
    spos = np.arange(source._data.size, dtype=np.int64)
    return put_add(x, source, dpos, spos, alpha, "IndexAddBackward0")


def flat_positions(x, index):
    """Flat positions selected by a PyTorch/NumPy index with tensor/list/bool parts, in
    output order, and the output shape; raises PyTorch's errors for bad indices."""
    xd = x._data
    if not isinstance(index, tuple):
        index = (index,)
    conv = []
    dim = 0
    n_real = 0
    for i in index:
        if isinstance(i, Tensor):
            i = i._data.host() if i.is_cuda else i._data
        if isinstance(i, (list, tuple)):
            i = np.asarray(i)
            if i.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        conv.append(i)
        if i is None or i is Ellipsis:
            continue
        n_real += i.ndim if isinstance(i, np.ndarray) and i.dtype == np.bool_ else 1
    if n_real > xd.ndim:
        raise IndexError(f"too many indices for tensor of dimension {xd.ndim}")
    # bounds, with PyTorch's wording, before NumPy sees the index
    for i in conv:
        if i is Ellipsis:
            dim += xd.ndim - n_real
            continue
        if i is None:
            continue
        if isinstance(i, np.ndarray):
            if i.dtype == np.bool_:
                for q in range(i.ndim):
                    if i.shape[q] != xd.shape[dim + q]:
                        raise IndexError(
                            f"The shape of the mask {list(i.shape)} at index {q} does not "
                            f"match the shape of the indexed tensor {list(xd.shape)} at index "
                            f"{dim + q}"
                        )
                dim += i.ndim
                continue
            if i.dtype.kind not in "iu":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            n = xd.shape[dim]
            if i.size and (i.min() < -n or i.max() >= n):
                bad = i.min() if i.min() < -n else i.max()
                raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {n}")
        elif isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            n = xd.shape[dim]
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {n}")
        elif isinstance(i, slice):
            if i.step is not None and i.step <= 0:
                raise ValueError("step must be greater than zero")
        elif isinstance(i, float):
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                "are valid indices (got float)"
            )
        dim += 1
    ar = np.arange(xd.size, dtype=np.int64).reshape(xd.shape)
    try:
        pos = ar[tuple(conv)]
    except IndexError as e:
        raise IndexError(str(e)) from None
    return contig(pos), pos.shape


@_by_index
def getitem_advanced(x, index):
    pos, shape = flat_positions(x, index)
    return take(x, pos, shape, "IndexBackward0")


@_by_index
def index_put(x, index, value, accumulate=False):
    """x with x[index] = value (or += value): recorded out of place."""
    pos, shape = flat_positions(x, index)
    if not isinstance(value, Tensor):
        value = Tensor._make(np.asarray(value, x._data.dtype), -1, False)
    if value.dtype is not x.dtype:
        value = value.to(x.dtype)
    vshape = value._data.shape
    try:
        np.broadcast_shapes(vshape, shape)
        if len(vshape) > len(shape) and any(s != 1 for s in vshape[: len(vshape) - len(shape)]):
            raise ValueError
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(vshape)} cannot be broadcast to "
            f"indexing result of shape {list(shape)}"
        ) from None
    vsrc = value._data.reshape(
        vshape[len(vshape) - len(shape) :] if len(vshape) > len(shape) else vshape
    )
    spos = np.broadcast_to(np.arange(value._data.size, dtype=np.int64).reshape(vsrc.shape), shape)
    if accumulate:
        return put_add(x, value, pos, spos, 1.0, "IndexPutBackward0")
    # duplicates: the last write wins (NumPy's sequential order, as PyTorch's CPU kernel);
    # as in PyTorch, every source still gets the cotangent at its destination
    dpos = pos.reshape(-1)
    sp = spos.reshape(-1)
    return put(x, value, dpos, sp, "IndexPutBackward0")


def is_advanced(index):
    items = index if isinstance(index, tuple) else (index,)
    for i in items:
        if isinstance(i, (Tensor, list, np.ndarray)) or isinstance(i, bool):
            return True
    return False


# -- CUDA: forwards and VJP launchers (kernels in backends/cuda/kernels.py) ----------------
def cuda_take(x, pos, shape, op):
    """x.flat[pos] with `shape` on CUDA; pos: host int64 positions in bounds, or a
    CudaArray; `op` one of TAKE's rows. Also the forward of the view and shape ops
    (ops/cuda/index.py), whose CUDA rows are these takes."""
    from ..backends.cuda import runtime as rt
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch
    from .cuda.forwards import _tensor_cls, wrap
    from .cuda.index import _dev_pos

    d = x._data
    out = rt.empty(shape, d.dtype)
    p = pos if isinstance(pos, rt.CudaArray) else _dev_pos(pos)
    if out.size:
        launch(build().take, out.size, d.flat, p.flat, out.flat, 0)
    if d.dtype.kind != "f":
        return _tensor_cls()._make(out, -1, False)
    return wrap(out, (x,), op, iattrs=op.pack(pos_at=0, n=p.size), saved=(p,))


def cuda_vjp_take(G, k):
    """gx = g scatter-added at the saved positions (also the view and join ops')."""
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch

    sx = G.inp(k, 0)
    if not G.wants(sx):
        return
    (pos,) = G.saved(k)
    gx, acc = G.take(sx)
    K = build()
    if not acc:
        launch(K.fill, gx.size, gx, gx.dtype.type(0))
    if pos.size:
        g = G.cot(G.out(k, 0))
        launch(K.put_add, pos.size, g, pos, gx, pos, 1, True)


def cuda_put(x, src, dpos, spos, alpha, op, add):
    """x with alpha * src.flat[spos] added at (add) or stored to (not add) x.flat[dpos]."""
    from ..backends.cuda import runtime as rt
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch
    from .cuda.forwards import _tensor_cls, cast, wrap
    from .cuda.index import _dev_pos, _on_cuda

    src = _on_cuda(src)
    if src.dtype is not x.dtype:
        src = cast(src, x.dtype)
    dpos = np.ascontiguousarray(dpos, np.int64).reshape(-1)
    spos = np.ascontiguousarray(spos, np.int64).reshape(-1)
    K = build()
    d = x._data
    out = rt.empty(d.shape, d.dtype)
    if out.size:
        launch(K.store, out.size, out.flat, d.flat, 0)
    fd, fs = dpos, spos
    if not add and dpos.size:  # duplicates: the last write wins, as the CPU (deterministic)
        _, last = np.unique(dpos[::-1], return_index=True)
        keep = dpos.size - 1 - last
        fd, fs = dpos[keep], spos[keep]
    if fd.size:
        pd, ps = _dev_pos(fd), _dev_pos(fs)
        if not add:
            launch(K.put, fd.size, src._data.flat, ps.flat, out.flat, pd.flat, False)
        elif d.dtype == np.bool_:  # a sum of bools is their logical or
            launch(K.put_or, fd.size, src._data.flat, ps.flat, out.flat, pd.flat, False)
        else:
            launch(K.put_add, fd.size, src._data.flat, ps.flat, out.flat, pd.flat, alpha, False)
    if d.dtype.kind != "f":
        return _tensor_cls()._make(out, -1, False)
    ia = op.pack(dpos_at=0, spos_at=0, n=dpos.size, add=int(add))
    fa = op.pack_f(alpha=float(alpha))
    return wrap(out, (x, src), op, iattrs=ia, fattrs=fa, saved=(_dev_pos(dpos), _dev_pos(spos)))


def _cuda_vjp_put(G, k):
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch

    sy, sx, ss = G.out(k, 0), G.inp(k, 0), G.inp(k, 1)
    a = type(A_PUT)(*G.iattrs(k))
    dpos, spos = G.saved(k)
    g = G.cot(sy)
    K = build()
    if G.wants(ss):  # every source gets the cotangent at its destination
        gs, acc = G.take(ss)
        if not acc:
            launch(K.fill, gs.size, gs, gs.dtype.type(0))
        if dpos.size:
            launch(K.put_add, dpos.size, g, dpos, gs, spos, G.fattr(k, F_PUT.alpha), False)
    if G.wants(sx):
        if a.add or not dpos.size:
            gx, acc = G.take(sx)
            launch(K.store, gx.size, gx, g, acc)
        else:  # overwritten elements get no gradient: g with zeros at dpos
            h = G.scratch(g.size, g.dtype)
            launch(K.store, h.size, h, g, 0)
            launch(K.fill_at, dpos.size, h, dpos, 0)
            gx, acc = G.take(sx)
            launch(K.store, gx.size, gx, h, acc)


# -- compiled replay (nbgrad.compile): the positions are remade at each replay -----------
@njit(cache=True, error_model="numpy")
def replay_take(T, k, V):
    """x.flat[pos]."""
    x, y = value(T, in_slot(T, k, 0), V), value(T, out_slot(T, k, 0), V)
    n = iattr(T, k, A_TAKE.n)
    pos = vi64(iattr(T, k, A_TAKE.pos_at), n)
    for i in range(n):
        y[i] = x[pos[i]]


@njit(cache=True, error_model="numpy")
def replay_put_add(T, k, V):
    """x with alpha * src.flat[spos] added at dpos, in order (np.add.at); a scaled value is
    rounded to the dtype first, as eager's `vals * alpha`."""
    y, x = value(T, out_slot(T, k, 0), V), value(T, in_slot(T, k, 0), V)
    src = value(T, in_slot(T, k, 1), V)
    y[:] = x
    n = iattr(T, k, A_PUT.n)
    dpos, spos = vi64(iattr(T, k, A_PUT.dpos_at), n), vi64(iattr(T, k, A_PUT.spos_at), n)
    a = fattr(T, k, F_PUT.alpha)
    alpha = y.dtype.type(a)
    for i in range(n):
        v = src[spos[i]]
        if a != 1.0:
            v = v * alpha
        y[dpos[i]] += v


@njit(cache=True, error_model="numpy")
def replay_put(T, k, V):
    """x with x.flat[dpos] = src.flat[spos], in order (the last duplicate wins)."""
    y, x = value(T, out_slot(T, k, 0), V), value(T, in_slot(T, k, 0), V)
    src = value(T, in_slot(T, k, 1), V)
    y[:] = x
    n = iattr(T, k, A_PUT.n)
    dpos, spos = vi64(iattr(T, k, A_PUT.dpos_at), n), vi64(iattr(T, k, A_PUT.spos_at), n)
    for i in range(n):
        y[dpos[i]] = src[spos[i]]


# -- differentiable VJPs (create_graph, forward mode, batched gradients) -----------------
def host(a):
    """A saved array (positions, masks) as a NumPy array: copied off the GPU if there."""
    return a if type(a) is np.ndarray else a.host()


def _batched_pos(pos, n, bshape):
    """Positions into a (batch + shape) buffer: pos offset by n per batch element."""
    nbatch = int(np.prod(bshape)) if bshape else 1
    if nbatch == 1:
        return pos
    return (np.arange(nbatch, dtype=np.int64)[:, None] * n + pos[None, :]).reshape(-1)


def gather_at(t, pos, shape, nb=0):
    """t (batch + any shape) -> t.flat[pos] per batch element, shaped batch + `shape`."""
    bshape = tuple(t.shape[:nb])
    n = int(np.prod(t.shape[nb:])) if len(t.shape) > nb else 1
    bpos = _batched_pos(np.asarray(pos, np.int64).reshape(-1), n, bshape)
    return take(t, bpos, bshape + tuple(shape), node="IndexBackward0")


def scatter_at(g, pos, shape, nb=0):
    """The transpose of `gather_at`: zeros(batch + shape) with g added at pos (per batch)."""
    from .hostside import on_device_of

    bshape = tuple(g.shape[:nb])
    n = int(np.prod(shape)) if shape else 1
    pos = np.asarray(pos, np.int64).reshape(-1)
    bpos = _batched_pos(pos, n, bshape)
    zero = on_device_of(np.zeros(bshape + tuple(shape), g._data.dtype), g)
    src_pos = np.arange(bpos.size, dtype=np.int64)
    return put_add(zero, g, bpos, src_pos, node="IndexAddBackward0")


def strided_positions(offset, strides, shape):
    """Flat input positions of a strided view's elements, in the view's order."""
    pos = np.full((), offset, np.int64)
    for n, st in zip(shape, strides):
        pos = pos[..., None] + np.arange(n, dtype=np.int64) * st
    return pos.reshape(-1)


def dvjp_take(row, g):
    """out = x.flat[pos]: gx = g scatter-added at pos (duplicates accumulate)."""
    return (scatter_at(g, host(row.saved[0]), row.shape(row.ins[0]), row.nb),)


def _gather_src(row, g, dpos, spos, alpha=1.0):
    """The source's cotangent: alpha * g.flat[dpos] summed into src.flat[spos]."""
    ss = row.shape(row.ins[1])
    if np.array_equal(spos, np.arange(row.numel(row.ins[1]))):  # one source per write
        gs = gather_at(g, dpos, ss, row.nb)
    else:
        gs = scatter_at(gather_at(g, dpos, (dpos.size,), row.nb), spos, ss, row.nb)
    return gs * alpha if alpha != 1.0 else gs


def dvjp_overwrite(row, g, dpos, spos):
    """out = x; out.flat[dpos] = src.flat[spos]: gx = g zeroed at dpos, gsrc as a put-add's
    (alpha 1)."""
    from .select import where

    gx = gs = None
    if row.wants(0):
        keep = np.ones(row.numel(row.ins[0]), np.bool_)
        keep[dpos] = False
        keep = row.const(keep.reshape(row.shape(row.ins[0])))
        gx = where(keep, g, 0.0)
    if row.wants(1):
        gs = _gather_src(row, g, dpos, spos)
    return gx, gs


def _dvjp_put_add(row, g):
    """out = x; out.flat[dpos] += alpha * src.flat[spos]: gx = g, gsrc = alpha * g[dpos]
    summed at spos."""
    dpos, spos = (host(a) for a in row.saved)
    gs = _gather_src(row, g, dpos, spos, row.float_attrs().alpha) if row.wants(1) else None
    return (g if row.wants(0) else None), gs


def _dvjp_put(row, g):
    return dvjp_overwrite(row, g, *(host(a) for a in row.saved))


# -- the ops, declared with their facets (_optable.py) ----------------------------------
# rows whose positions a compiled replay can remake (IndexCall): max/min over a dim and
# masked_select compute theirs elsewhere (program.FALLBACK)
_BY_VALUE = ("MaxBackward0", "MinBackward0", "MaskedSelectBackward0", "TakeBackward0")
TAKE = {
    n: declare(
        "take_" + n,
        n,
        a=A_TAKE,
        vjp=vjp_take,
        cuda_vjp=cuda_vjp_take,
        replay=None if n in _BY_VALUE or n in _VIEW_TAKE_NODES else replay_take,
        dvjp=dvjp_take,
    )  # fmt: skip
    for n in _TAKE_NODES + _VIEW_TAKE_NODES
}
_PUT = dict(a=A_PUT, f=F_PUT, cuda_vjp=_cuda_vjp_put)
PUT_ADD = {
    n: declare("putadd_" + n, n, vjp=vjp_put_add, replay=replay_put_add, dvjp=_dvjp_put_add, **_PUT)
    for n in _PUT_ADD_NODES
}
PUT = {
    n: declare("put_" + n, n, vjp=vjp_put, replay=replay_put, dvjp=_dvjp_put, **_PUT)
    for n in _PUT_NODES
}


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"one_hot(): argument 'input' (position 1) must be Tensor, not {type(tensor).__name__}"
        )
    if tensor.is_cuda:
        from .cuda.forwards import one_hot as cuda_one_hot

        return cuda_one_hot(tensor, num_classes)
    d = tensor._data
    num_classes = _one_hot_classes(d, num_classes)
    out = np.zeros((d.size, num_classes), np.int64)
    out[np.arange(d.size), d.reshape(-1)] = 1
    return Tensor._make(out.reshape(d.shape + (num_classes,)), -1, False)


def _one_hot_classes(d, num_classes):
    """Check one_hot's indices (a host array; PyTorch's errors); the number of classes."""
    if d.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if d.size == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return num_classes
    if d.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        return int(d.max()) + 1
    if d.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return num_classes
