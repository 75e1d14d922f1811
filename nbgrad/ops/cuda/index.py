"""Indexing, joins and shape copies on CUDA: each is a gather by flat positions.

The positions depend only on shapes and index values, so they are computed on the host by
running the CPU op itself on an *image* of the input: a CPU int64 tensor of its shape
holding 0..n-1 (`image`). The CPU op validates the arguments and raises PyTorch's errors;
its result holds the flat source position of every output element. The device gathers
(`take`); the VJP scatter-adds the cotangent back with atomics, so duplicate indices
accumulate. Index tensors on the GPU are copied to the host for this (bounds are checked
before any kernel runs); shape-only ops (flip, narrow, split, ...) copy nothing back.
"""

import numpy as np

from ..._optable import BY_NAME
from ...backends.cuda import runtime as rt
from ...backends.cuda.kernels import build as _kernels
from ...backends.cuda.launch import launch
from ...ops import indexing as _ix
from ...ops import joins as _joins
from ...ops import views as _views
from ...tensor import Tensor, _wrap_dim
from .forwards import _tensor_cls, cast, device_error, wrap


def image(shape, start=0):
    n = int(np.prod(shape, dtype=np.int64))
    return Tensor._make(np.arange(start, start + n, dtype=np.int64).reshape(shape), -1, False)


def _dev_pos(pos):
    return rt.from_host(np.ascontiguousarray(pos, np.int64).reshape(-1))


def _host_index(index):
    """An index with its CUDA tensors copied to the host (positions are computed there)."""
    if isinstance(index, tuple):
        return tuple(_host_index(i) for i in index)
    return index.cpu() if isinstance(index, Tensor) and index.is_cuda else index


def _on_cuda(t, other="cuda:0"):
    """A tensor operand on the GPU; a CPU 0-dim tensor without gradient is uploaded."""
    if t.is_cuda:
        return t
    if t._data.ndim == 0 and not t._rg:
        return _tensor_cls()._make(rt.from_host(t._data), -1, False)
    raise device_error(other, t.device)


# -- take: out = x.flat[pos] (ops/indexing.py), the forward of the view and join ops too ----
def positional(x, fn, op, *args):
    """fn(image of x, *args) gives the positions (or a tuple of them, one per output)."""
    r = fn(image(x._data.shape), *args)
    if isinstance(r, Tensor):
        return _ix.cuda_take(x, r._data, r._data.shape, op)
    return tuple(_ix.cuda_take(x, t._data, t._data.shape, op) for t in r)


def getitem(x, index):
    index = _host_index(index)
    if _ix.is_advanced(index):
        return positional(x, _ix.getitem_advanced, _ix.TAKE["IndexBackward0"], index)
    img = image(x._data.shape)
    node = BY_NAME[_views._index_node(_views._normalize_index(img, index))].node
    return positional(x, _views.getitem, _ix.TAKE[node], index)


_SHAPE_OPS = {  # CPU function in ops/joins.py -> the row its outputs record
    "narrow": "SliceBackward0",
    "flip": "FlipBackward0",
    "fliplr": "FlipBackward0",
    "flipud": "FlipBackward0",
    "repeat": "RepeatBackward0",
    "tile": "RepeatBackward0",
    "movedim": "PermuteBackward0",
    "unbind": "UnbindBackward0",
    "chunk": "SplitBackward0",
}


def shape_op(name, x, *args):
    node = _SHAPE_OPS.get(name)
    if name == "split":
        node = "SplitBackward0" if isinstance(args[0], int) else "SplitWithSizesBackward0"
    return positional(x, getattr(_joins, name), _ix.TAKE[node], *args)


# -- cat / stack: each input is scattered to its own output positions ------------------------
def join(tensors, dim, stack):
    ts = _joins._tensors(tensors, "stack" if stack else "cat")
    ts = [_on_cuda(t) for t in ts]
    dt = ts[0].dtype
    for t in ts[1:]:
        from ... import _dtype

        dt = _dtype.promote_types(dt, t.dtype)
    ts = [cast(t, dt) for t in ts]
    imgs, offs, off = [], [], 0
    for t in ts:
        imgs.append(image(t._data.shape, off))
        offs.append(off)
        off += t._data.size
    pos = (_joins.stack if stack else _joins.cat)(imgs, dim)._data  # validates as the CPU
    inv = np.empty(off, np.int64)
    inv[pos.reshape(-1)] = np.arange(pos.size, dtype=np.int64)
    out = rt.empty(pos.shape, dt.np)
    K = _kernels()
    dpos = []
    for t, o in zip(ts, offs):
        n = t._data.size
        p = _dev_pos(inv[o : o + n])
        if n:
            launch(K.put, n, t._data.flat, p.flat, out.flat, p.flat, True)
        dpos.append(p)
    if not dt.is_floating_point:
        return _tensor_cls()._make(out, -1, False)
    # the CPU row's attributes (input j: L_j columns of each of the output's `outer` rows);
    # the VJP scatters by the saved positions
    outer = int(np.prod(pos.shape[: _wrap_dim(dim, pos.ndim)], dtype=np.int64))
    Ls = [t._data.size // outer if outer else 0 for t in ts]
    op = BY_NAME["stack" if stack else "cat"]
    ia = op.pack(outer=outer, total=sum(Ls), nin=len(ts), lengths=Ls)
    return wrap(out, tuple(ts), op, iattrs=ia, saved=tuple(dpos))


def vjp_join(G, k):
    g = G.cot(G.out(k, 0))
    for j, pos in enumerate(G.saved(k)):
        s = G.inp(k, j)
        if G.wants(s):
            gx, acc = G.take(s)
            if gx.size:
                launch(_kernels().take, gx.size, g, pos, gx, acc)


# -- x[index] = value ---------------------------------------------------------------------------
def setitem(x, index, value):
    """x[index] = value, as the CPU: an advanced index is `index_put` (duplicates: the
    last write wins, and every source gets the cotangent at its destination, as PyTorch);
    for a basic index the CPU's assignment, run on a marker (-1 everywhere) with the
    value's image, gives each written element the value position it takes. Recorded out of
    place when gradients flow; otherwise the result is stored into x."""
    from ...autograd.grad_mode import STATE
    from ...ops import viewbase
    from ...ops.pointwise import is_scalar

    if viewbase.is_view(x):  # its base is written too: refuse what PyTorch refuses
        viewbase.check(x, index=index)
    index = _host_index(index)
    if isinstance(value, Tensor):
        v = _on_cuda(value)
    elif is_scalar(value) or isinstance(value, (list, tuple, np.ndarray)):
        v = _tensor_cls()._make(rt.from_host(np.asarray(value, x._data.dtype)), -1, False)
    else:
        raise TypeError(f"can't assign a {type(value).__name__} to a Tensor")
    grad = STATE.enabled and (x._rg or v._rg)
    if grad and x._leaf and x._rg:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )
    if _ix.is_advanced(index):
        r = _ix.index_put(x, index, v)
    else:
        marker = Tensor._make(np.full(x._data.shape, -1, np.int64), -1, False)
        _views.setitem(marker, index, image(v._data.shape))
        m = marker._data.reshape(-1)
        dpos = np.flatnonzero(m >= 0)
        r = _ix.cuda_put(x, v, dpos, m[dpos], 1.0, _ix.PUT["CopySlices"], False)
    x._assign(r, index)


def nonzero_tuple(cond):
    """where(cond): the indices of the true elements, one int64 CUDA tensor per dim. The
    result's size depends on the values, so the mask is copied to the host (as PyTorch
    synchronises here) and the indices are copied back."""
    c = cond._data.host()
    return tuple(
        _tensor_cls()._make(rt.from_host(np.ascontiguousarray(i, np.int64)), -1, False)
        for i in np.nonzero(c)
    )
