"""Joins and shape ops: cat, stack, split, chunk, unbind, narrow, flip, repeat, movedim.

* cat / stack: one row with every input; seen as (outer, L_j) blocks per input, so the
  VJP copies each input's blocks out of g (stack is a cat of unsqueezed inputs);
* split / chunk / unbind / narrow: one slice row per output (an output is a strided view);
* flip / repeat / movedim / tile: a strided-view row with its own shape (`vjp_view`:
  gx[offset + idx . strides] += g, so repeat's shared elements sum their gradients).
"""

import numpy as np
from numba import njit

from nbgrad._array import contig

from .. import _dtype
from .._optable import attrs, declare
from ..autograd.grad_mode import STATE
from ..backends.cpu.rowio import (
    acc,
    cot,
    first,
    gather_strided,
    iattr,
    iattrs,
    in_slot,
    out_slot,
    step,
    value,
    wants,
)
from ..tensor import Tensor, _wrap_dim
from . import cuda
from .cuda import launcher
from .recording import emit
from .viewbase import mark

# a cat/stack row: the output seen as (outer, total), input j its columns of length
# lengths[j] (nin inputs); a view row: output element i is input element offset + idx(i) .
# strides over the view's shape (`dims`: the shape, then the strides; repeat's view shape
# is not its output's)
A_CAT = attrs("outer", "total", "nin", "*lengths")
A_VIEW = attrs("offset", "nd", "*dims")


@njit(cache=True, error_model="numpy")
def vjp_cat(T, k, V):
    s_y = out_slot(T, k, 0)
    outer, total, nin = iattr(T, k, A_CAT.outer), iattr(T, k, A_CAT.total), iattr(T, k, A_CAT.nin)
    g = cot(T, s_y, V)
    off = 0
    for j in range(nin):
        L = iattr(T, k, A_CAT.lengths + j)
        s = in_slot(T, k, j)
        if wants(T, s):
            gs = cot(T, s, V)
            init = first(T, s)
            for o in range(outer):
                src = o * total + off
                dst = o * L
                if init:
                    for i in range(L):
                        gs[dst + i] = g[src + i]
                else:
                    for i in range(L):
                        gs[dst + i] += g[src + i]
        off += L


@njit(cache=True, error_model="numpy")
def vjp_view(T, k, V):
    """Output element i is x[offset + idx(i) . strides] over the row's view shape."""
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    shp, st = _view_attrs(T, k)
    nd = shp.size
    g = cot(T, s_y, V)
    gx = acc(T, s_x, V)
    idx = np.zeros(nd, np.int64)
    offs = np.zeros(2, np.int64)
    offs[0] = iattr(T, k, A_VIEW.offset)
    for i in range(g.size):
        gx[offs[0]] += g[i]
        step(idx, shp, offs, st, st)


@njit(cache=True, error_model="numpy")
def _view_attrs(T, k):
    """A view row's view shape and strides."""
    nd = iattr(T, k, A_VIEW.nd)
    return iattrs(T, k, A_VIEW.dims, nd), iattrs(T, k, A_VIEW.dims + nd, nd)


@njit(cache=True, error_model="numpy")
def replay_view(T, k, V):
    """The gather (nbgrad.compile)."""
    shp, st = _view_attrs(T, k)
    x, y = value(T, in_slot(T, k, 0), V), value(T, out_slot(T, k, 0), V)
    gather_strided(x, y, iattr(T, k, A_VIEW.offset), shp, st)


@njit(cache=True, error_model="numpy")
def replay_cat(T, k, V):
    """Each input's blocks into the output (nbgrad.compile)."""
    y = value(T, out_slot(T, k, 0), V)
    outer, total, nin = iattr(T, k, A_CAT.outer), iattr(T, k, A_CAT.total), iattr(T, k, A_CAT.nin)
    off = 0
    for j in range(nin):
        L = iattr(T, k, A_CAT.lengths + j)
        x = value(T, in_slot(T, k, j), V)
        for o in range(outer):
            for i in range(L):
                y[o * total + off + i] = x[o * L + i]
        off += L


# -- differentiable VJPs (create_graph, forward mode, batched gradients) -----------------
def _dvjp_cat(row, g):
    """Input j is columns [off, off + L_j) of the output seen as (outer, total)."""
    a = row.attrs()
    g2 = g.reshape(row.bshape + (a.outer, a.total))
    out, off = [], 0
    for j in range(a.nin):
        L = a.lengths[j]
        gj = g2[..., off : off + L].reshape(row.bshape + row.shape(row.ins[j]))
        out.append(gj if row.wants(j) else None)
        off += L
    return tuple(out)


def _dvjp_view(row, g):
    """Output element i is x.flat[offset + idx(i) . strides] (`dims`: the view's shape,
    then its strides; repeat's view shape differs from its output's)."""
    from .indexing import scatter_at, strided_positions

    a = row.attrs()
    nd = a.nd
    pos = strided_positions(a.offset, list(a.dims[nd:]), list(a.dims[:nd]))
    return (scatter_at(g, pos, row.shape(row.ins[0]), row.nb),)


_JOIN = dict(
    a=A_CAT, vjp=vjp_cat, replay=replay_cat, dvjp=_dvjp_cat,
    cuda_vjp=launcher("cuda.index", "vjp_join"),
)  # fmt: skip
_CAT = declare("cat", "CatBackward0", **_JOIN)
_STACK = declare("stack", "StackBackward0", **_JOIN)
_VIEW = {
    # (on CUDA, these ops record takes at saved positions: indexing.TAKE)
    n: declare("view_" + n, n, a=A_VIEW, vjp=vjp_view, replay=replay_view, dvjp=_dvjp_view)
    for n in (
        "FlipBackward0",
        "RepeatBackward0",
        "PermuteBackward0",
        "SliceBackward0",
        "SelectBackward0",
        "NarrowBackward0",
        "SplitBackward0",
        "UnbindBackward0",
        "SplitWithSizesBackward0",
    )
}


def view_row(x, view, node, out_shape=None, take=None, multi=None):
    """Record `view` (a NumPy view into x's buffer, any strides) as a gather of x. With
    `take` (a function making the same view of any tensor of x's shape), the result is a
    view of x as in PyTorch: in-place writes to it reach x (viewbase.py)."""
    out = contig(view)
    if out_shape is not None:
        out = out.reshape(out_shape)
    if not (STATE.enabled and x._rg) or x._data.dtype.kind != "f":
        y = Tensor._make(out, -1, False)
    else:
        item = x._data.itemsize
        base = x._data.__array_interface__["data"][0]
        offset = (view.__array_interface__["data"][0] - base) // item if view.size else 0
        strides = tuple(s // item for s in view.strides)
        op = _VIEW[node]
        ia = op.pack(offset=offset, nd=view.ndim, dims=tuple(view.shape) + strides)
        y = emit(op, out, (x,), iattrs=ia)
    return y if take is None else mark(y, x, take, multi=multi)


def _tensors(tensors, name):
    if isinstance(tensors, Tensor):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"
        )
    ts = list(tensors)
    for i, t in enumerate(ts):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    if not ts:
        raise (ValueError if name == "stack" else RuntimeError)(
            f"{name} expects a non-empty TensorList"
        )
    return ts


def _promote(ts):
    dt = ts[0].dtype
    for t in ts[1:]:
        dt = _dtype.promote_types(dt, t.dtype)
    return [t if t.dtype is dt else t.to(dt) for t in ts], dt


def _join(ts, d, op, blocks, out):
    floats = out.dtype.kind == "f"
    if not floats:
        return Tensor._make(out, -1, False)
    outer = blocks[0]
    Ls = blocks[1]
    ia = op.pack(outer=outer, total=int(sum(Ls)), nin=len(ts), lengths=Ls)
    return emit(op, out, tuple(ts), iattrs=ia)


def cat(tensors, dim=0, *, out=None):
    ts = _tensors(tensors, "cat")
    if any(t.is_cuda for t in ts):
        return cuda.index.join(ts, dim, False)
    ts, dt = _promote(ts)
    # legacy: 1-D empty tensors are skipped
    pos = [i for i, t in enumerate(ts) if not (t._data.ndim == 1 and t._data.size == 0)]
    keep = [ts[i] for i in pos]
    if not keep:
        return Tensor._make(np.empty((0,), dt.np), -1, False)
    ref = keep[0]._data
    if ref.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _wrap_dim(dim, ref.ndim)
    for i, t in zip(pos, keep):
        sh = t._data.shape
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if len(sh) != ref.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {ref.ndim} and {len(sh)}"
            )
        for q in range(ref.ndim):
            if q != d and sh[q] != ref.shape[q]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref.shape[q]} but got size {sh[q]} for tensor number {i} in "
                    "the list."
                )
    out = np.concatenate([t._data for t in keep], axis=d)
    outer = int(np.prod(ref.shape[:d], dtype=np.int64))
    Ls = [int(np.prod(t._data.shape[d:], dtype=np.int64)) for t in keep]
    return _join(keep, d, _CAT, (outer, Ls), out)


concat = concatenate = cat


def stack(tensors, dim=0, *, out=None):
    ts = _tensors(tensors, "stack")
    if any(t.is_cuda for t in ts):
        return cuda.index.join(ts, dim, True)
    ts, dt = _promote(ts)
    ref = ts[0]._data.shape
    d = _wrap_dim(dim, len(ref) + 1)
    for i, t in enumerate(ts):
        if t._data.shape != ref:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(ref)} at entry 0 "
                f"and {list(t._data.shape)} at entry {i}"
            )
    out = contig(np.stack([t._data for t in ts], axis=d))
    outer = int(np.prod(ref[:d], dtype=np.int64))
    L = int(np.prod(ref[d:], dtype=np.int64))
    return _join(ts, d, _STACK, (outer, [L] * len(ts)), out)


def hstack(tensors):
    ts = _tensors(tensors, "hstack")
    return cat(ts, 0 if ts[0]._data.ndim == 1 else 1)


def vstack(tensors):
    ts = [t if t.ndim >= 2 else t.reshape(1, -1) for t in _tensors(tensors, "vstack")]
    return cat(ts, 0)


def _slice_dim(x, d, start, stop, node, multi=None):
    idx = [slice(None)] * x._data.ndim
    idx[d] = slice(start, stop)
    idx = tuple(idx)
    take = lambda t: _slice_dim(t, d, start, stop, node)  # noqa: E731
    return view_row(x, x._data[idx], node, take=take, multi=multi)


def _cuda_views(outs, x, kind, take):
    """CUDA results of split/chunk/unbind (copies: ops/cuda/index.py) made views of x, so
    writes to them reach it (ops/viewbase.py); `take(t)[i]` is output i of a host t."""
    for i, o in enumerate(outs):
        mark(o, x, lambda t, i=i: take(t)[i], multi=(kind, i))
    return outs


def split(tensor, split_size_or_sections, dim=0):
    x = tensor
    if x.is_cuda:
        kind = "Split" if isinstance(split_size_or_sections, int) else "SplitWithSizes"
        outs = cuda.index.shape_op("split", x, split_size_or_sections, dim)
        return _cuda_views(outs, x, kind, lambda t: split(t, split_size_or_sections, dim))
    d = _wrap_dim(dim, x._data.ndim)
    n = x._data.shape[d]
    if isinstance(split_size_or_sections, (int, np.integer)):
        s = int(split_size_or_sections)
        if s < 0 or (s == 0 and n != 0):
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
                if s == 0
                else f"split expects split_size be non-negative, but got split_size={s}"
            )
        sizes = [s] * (n // s) + ([n % s] if n % s else []) if s else [0]
        node = "SplitBackward0"
    else:
        sizes = [int(v) for v in split_size_or_sections]
        if sum(sizes) != n or any(v < 0 for v in sizes):
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's "
                f"size at dimension {d}), but got split_sizes={sizes}"
            )
        node = "SplitWithSizesBackward0"
    out, start = [], 0
    name = node.replace("Backward0", "")
    for i, s in enumerate(sizes):
        out.append(_slice_dim(x, d, start, start + s, node, (name, i)))
        start += s
    return tuple(out)


def chunk(input, chunks, dim=0):  # noqa: A002
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.is_cuda:
        outs = cuda.index.shape_op("chunk", input, chunks, dim)
        return _cuda_views(outs, input, "Split", lambda t: chunk(t, chunks, dim))
    d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    size = -(-n // chunks) if n else 0
    if size == 0:
        return tuple(split(input, [0] * min(chunks, max(n, 1)), d)) if n == 0 else ()
    return split(input, size, d)


def unbind(input, dim=0):  # noqa: A002
    x = input
    if x.is_cuda:
        outs = cuda.index.shape_op("unbind", x, dim)
        return _cuda_views(outs, x, "Unbind", lambda t: unbind(t, dim))
    d = _wrap_dim(dim, x._data.ndim)
    out = []
    for i in range(x._data.shape[d]):
        idx = [slice(None)] * x._data.ndim
        idx[d] = i
        # the Ellipsis keeps a 0-d result a view of x (an int alone gives a NumPy scalar,
        # a copy whose address is not inside x's buffer)
        at = (*idx, Ellipsis)
        take = lambda t, at=at: t[at]  # noqa: E731
        out.append(view_row(x, x._data[at], "UnbindBackward0", take=take, multi=("Unbind", i)))
    return tuple(out)


def narrow(input, dim, start, length):  # noqa: A002
    x = input
    if x.is_cuda:
        out = cuda.index.shape_op("narrow", x, dim, start, length)
        return mark(out, x, lambda t: narrow(t, dim, start, length))
    if isinstance(start, Tensor):
        start = int(start.item())
    if x._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, x._data.ndim)
    n = x._data.shape[d]
    if not -n <= start <= n:
        raise IndexError(
            f"start out of range (expected to be in range of [{-n}, {n}], but got {start})"
        )
    if start < 0:
        start += n
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return _slice_dim(x, d, start, start + length, "SliceBackward0")


def flip(input, dims):  # noqa: A002
    x = input
    if x.is_cuda:
        return cuda.index.shape_op("flip", x, dims)
    if isinstance(dims, int):
        dims = (dims,)
    nd = x._data.ndim
    ws = [_wrap_dim(d, nd) for d in dims]
    seen = set()
    for w in ws:
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.add(w)
    return view_row(x, np.flip(x._data, axis=tuple(ws)) if ws else x._data, "FlipBackward0")


def fliplr(input):  # noqa: A002
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input):  # noqa: A002
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def repeat(x, sizes):
    if x.is_cuda:
        return cuda.index.shape_op("repeat", x, sizes)
    sizes = tuple(int(s) for s in sizes)
    sh = x._data.shape
    if len(sizes) < len(sh):
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(sizes)}: {list(sizes)}"
        )
    sh = (1,) * (len(sizes) - len(sh)) + sh
    base = x._data.reshape(sh)
    # view of shape (r0, s0, r1, s1, ...) with stride 0 along each repeat axis
    shape2 = []
    for r, s in zip(sizes, sh):
        shape2 += [r, s]
    inter = base.reshape([v for s in sh for v in (1, s)])
    view = np.broadcast_to(inter, shape2)
    out_shape = tuple(r * s for r, s in zip(sizes, sh))
    return view_row(x, view, "RepeatBackward0", out_shape)


def tile(input, dims):  # noqa: A002
    dims = tuple(dims)
    nd = input._data.ndim
    if len(dims) < nd:
        dims = (1,) * (nd - len(dims)) + dims
    return repeat(input, dims)


def movedim(input, source, destination):  # noqa: A002
    x = input
    if x.is_cuda:
        out = cuda.index.shape_op("movedim", x, source, destination)
        return mark(out, x, lambda t: movedim(t, source, destination))
    nd = x._data.ndim
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    s = [_wrap_dim(d, nd) for d in src]
    t = [_wrap_dim(d, nd) for d in dst]
    if len(set(s)) != len(s):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(src)})")
    if len(set(t)) != len(t):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(dst)})")
    perm = [-1] * nd
    for a, b in zip(s, t):
        perm[b] = a
    rest = iter([d for d in range(nd) if d not in s])
    perm = [p if p >= 0 else next(rest) for p in perm]
    return view_row(x, x._data.transpose(perm), "PermuteBackward0", take=lambda t: t.permute(perm))


moveaxis = movedim
