"""Shape ops and basic indexing.

Two VJP kernels cover them all:

* `vjp_flat`: the output has the input's elements in the same order (reshape, view,
  flatten, squeeze, unsqueeze, clone): gx += g, element for element;
* `vjp_strided`: each output element is input element `offset + sum(idx * stride)`
  (slicing, select, transpose, permute, expand): gx[offset + idx.stride] += g. Expand
  maps many outputs to one input (stride 0), so its VJP is the sum PyTorch computes.

Forward values are NumPy views made contiguous; the row stores offset and strides in
elements of the input's C-contiguous buffer.
"""

import numpy as np
from numba import njit

from nbgrad._array import check_writable, contig

from .._optable import attrs, declare
from ..autograd.grad_mode import STATE
from ..backends.cpu.memory import address
from ..backends.cpu.rowio import (
    acc,
    cot,
    first,
    gather_strided,
    iattr,
    iattrs,
    in_slot,
    out_slot,
    shape,
    step,
    value,
    wants,
)
from ..tensor import Tensor, _wrap_dim
from . import cuda
from .cuda import launcher
from .recording import emit
from .viewbase import check, is_view, mark, same, shares, write_back

# a strided row: output element i is input element offset + idx(i) . strides (the
# output's shape); a setitem row: the view's offset and ndim, then its shape, its strides
# in x and v's broadcast strides (`dims`, 3 * nd values)
A_STRIDED = attrs("offset", "*strides")
A_SETITEM = attrs("offset", "nd", "*dims")


@njit(cache=True, error_model="numpy")
def vjp_flat(T, k, V):
    s_y = out_slot(T, k, 0)
    s_x = in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    g = cot(T, s_y, V)
    gx = cot(T, s_x, V)
    if first(T, s_x):
        gx[:] = g
    else:
        for i in range(g.size):
            gx[i] += g[i]


@njit(cache=True, error_model="numpy")
def vjp_strided(T, k, V):
    s_y = out_slot(T, k, 0)
    s_x = in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    g = cot(T, s_y, V)
    gx = acc(T, s_x, V)
    shp = shape(T, s_y)
    st = iattrs(T, k, A_STRIDED.strides, shp.size)
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    offs[0] = iattr(T, k, A_STRIDED.offset)
    for i in range(g.size):
        gx[offs[0]] += g[i]
        step(idx, shp, offs, st, st)


@njit(cache=True, error_model="numpy")
def vjp_setitem(T, k, V):
    """out = x with view(x) := v. gx = g with the view zeroed; gv = g[view] summed to v."""
    s_y, s_x, s_v = out_slot(T, k, 0), in_slot(T, k, 0), in_slot(T, k, 1)
    g = cot(T, s_y, V)
    shp, xst, vst, off = _setitem_attrs(T, k)
    nd = shp.size
    cnt = 1
    for d in range(nd):
        cnt *= shp[d]
    if wants(T, s_v):
        gv = acc(T, s_v, V)
        idx = np.zeros(nd, np.int64)
        offs = np.zeros(2, np.int64)
        offs[0] = off
        for _ in range(cnt):
            gv[offs[1]] += g[offs[0]]
            step(idx, shp, offs, xst, vst)
    if wants(T, s_x):
        h = g.copy()
        idx = np.zeros(nd, np.int64)
        offs = np.zeros(2, np.int64)
        offs[0] = off
        for _ in range(cnt):
            h[offs[0]] = 0
            step(idx, shp, offs, xst, xst)
        gx = cot(T, s_x, V)
        if first(T, s_x):
            gx[:] = h
        else:
            for i in range(h.size):
                gx[i] += h[i]


@njit(cache=True, error_model="numpy")
def _setitem_attrs(T, k):
    """A setitem row's view shape, its strides in x, v's strides, and its offset in x."""
    nd = iattr(T, k, A_SETITEM.nd)
    d = A_SETITEM.dims
    return (
        iattrs(T, k, d, nd),
        iattrs(T, k, d + nd, nd),
        iattrs(T, k, d + 2 * nd, nd),
        iattr(T, k, A_SETITEM.offset),
    )


@njit(cache=True, error_model="numpy")
def replay_strided(T, k, V):
    """The gather (nbgrad.compile)."""
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    shp = shape(T, s_y)
    st = iattrs(T, k, A_STRIDED.strides, shp.size)
    gather_strided(value(T, s_x, V), value(T, s_y, V), iattr(T, k, A_STRIDED.offset), shp, st)


@njit(cache=True, error_model="numpy")
def replay_setitem(T, k, V):
    """x[view] = v out of place (nbgrad.compile)."""
    y = value(T, out_slot(T, k, 0), V)
    v = value(T, in_slot(T, k, 1), V)
    y[:] = value(T, in_slot(T, k, 0), V)
    shp, xst, vst, off = _setitem_attrs(T, k)
    cnt = 1
    for d in range(shp.size):
        cnt *= shp[d]
    idx = np.zeros(shp.size, np.int64)
    offs = np.zeros(2, np.int64)
    offs[0] = off
    for _ in range(cnt):
        y[offs[0]] = v[offs[1]]
        step(idx, shp, offs, xst, vst)


# -- differentiable VJPs (create_graph, forward mode, batched gradients) -----------------
# Each view moves elements without arithmetic: its VJP scatters g back to the positions
# its elements came from (`indexing.scatter_at`), a recorded op that differentiates again.
def _dvjp_flat(row, g):
    """Same elements in the same order: g reshaped to the input's shape."""
    return (g.reshape(row.bshape + row.shape(row.ins[0])),)


def _dvjp_strided(row, g):
    """gx = g scatter-added at the view's positions in x; for expand, g summed back over
    the broadcast dims (the same sums without a scatter's repeated positions)."""
    from .indexing import scatter_at, strided_positions

    if row.name == "expand":
        return (row.sum_to(g, row.ins[0]),)
    ys = row.shape(row.outs[0])
    a = row.attrs()
    pos = strided_positions(a.offset, list(a.strides[: len(ys)]), ys)
    return (scatter_at(g, pos, row.shape(row.ins[0]), row.nb),)


def _dvjp_setitem(row, g):
    """An overwrite of a strided view of x by v broadcast to it (`dims`: the view's shape,
    its strides in x, v's broadcast strides in v)."""
    from .indexing import dvjp_overwrite, strided_positions

    a = row.attrs()
    nd = a.nd
    shp, xst, vst = (list(a.dims[i * nd : (i + 1) * nd]) for i in range(3))
    dpos = strided_positions(a.offset, xst, shp)
    return dvjp_overwrite(row, g, dpos, strided_positions(0, vst, shp))


# replay of the flat ops: a compiled program's elementwise copy (`_compile/program.py`)
_FLAT = {
    n: declare(
        n, node, vjp=vjp_flat, dvjp=_dvjp_flat, cuda_vjp=launcher("cuda.forwards", "vjp_flat")
    )
    for n, node in (
        ("view", "ViewBackward0"),
        ("unsafe_view", "UnsafeViewBackward0"),
        ("unsqueeze", "UnsqueezeBackward0"),
        ("squeeze", "SqueezeBackward0"),
        ("squeeze_dim", "SqueezeBackward1"),
        ("clone", "CloneBackward0"),
    )
}
# CUDA rows of these: permutes and expands are strided copies (ops/cuda/forwards.py); the
# others record takes at saved positions (indexing.TAKE)
_CUDA_STRIDED = {
    "transpose": "vjp_permute", "permute": "vjp_permute", "t": "vjp_permute",
    "expand": "vjp_expand",
}  # fmt: skip
_STRIDED = {
    n: declare(
        n,
        node,
        a=A_STRIDED,
        vjp=vjp_strided,
        replay=replay_strided,
        dvjp=_dvjp_strided,
        cuda_vjp=launcher("cuda.forwards", _CUDA_STRIDED[n]) if n in _CUDA_STRIDED else None,
    )  # fmt: skip
    for n, node in (
        ("slice", "SliceBackward0"),
        ("select", "SelectBackward0"),
        ("transpose", "TransposeBackward0"),
        ("permute", "PermuteBackward0"),
        ("expand", "ExpandBackward0"),
        ("index_basic", "IndexBackward0"),
        ("t", "TBackward0"),
        ("unsqueeze_index", "UnsqueezeBackward0"),
    )
}
_SETITEM = declare(
    "setitem", "CopySlices", a=A_SETITEM, vjp=vjp_setitem, replay=replay_setitem,
    dvjp=_dvjp_setitem,
)  # fmt: skip


def as_shape(args):
    """Accept f(2, 3), f((2, 3)) and f([2, 3]) as PyTorch does."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    out = []
    for a in args:
        if isinstance(a, Tensor):
            a = a.item()
        if not isinstance(a, (int, np.integer)):
            raise TypeError(f"shape must be a sequence of ints, got {type(a).__name__}")
        out.append(int(a))
    return tuple(out)


def _infer(shape, numel):
    shape = list(shape)
    neg = [i for i, d in enumerate(shape) if d == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for d in shape:
        if d < -1:
            raise RuntimeError(f"invalid shape dimension {d}")
    known = 1
    for d in shape:
        if d != -1:
            known *= d
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _flat(x, new_shape, name):
    if x.is_cuda:  # the same device buffer, another shape
        y = cuda.forwards.view(x, new_shape, name)
    else:
        y = emit(_FLAT[name], x._data.reshape(new_shape), (x,))
    return mark(y, x, lambda t: _flat(t, new_shape, name))


def _cuda_permute(x, perm, name, take):
    """A CUDA tensor's permuted dims: a copy (device storage stays C-contiguous), recorded
    as a view of x for in-place writes (viewbase.py)."""
    return mark(cuda.forwards.permute(x, tuple(perm), name), x, take)


def reshape(x, shape, node=None):
    shape = _infer(as_shape(shape) if isinstance(shape, (tuple, list)) else (shape,), x._data.size)
    if shape == x._data.shape and not x._rg and not x.is_cuda:
        return mark(Tensor._make(x._data, -1, False), x, same)
    return _flat(x, shape, "view")


def flatten(x, start_dim=0, end_dim=-1):
    nd = x._data.ndim
    if nd == 0:
        return _flat(x, (1,), "view")
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    sh = x._data.shape
    return _flat(x, sh[:s] + (int(np.prod(sh[s : e + 1])),) + sh[e + 1 :], "view")


def unsqueeze(x, dim):
    nd = x._data.ndim
    d = _wrap_dim(dim, nd + 1)
    sh = x._data.shape
    return _flat(x, sh[:d] + (1,) + sh[d:], "unsqueeze")


def squeeze(x, dim=None):
    sh = x._data.shape
    if dim is None:
        return _flat(x, tuple(n for n in sh if n != 1), "squeeze")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = {_wrap_dim(d, len(sh)) for d in dims} if sh else set()
    return _flat(x, tuple(n for i, n in enumerate(sh) if not (i in dims and n == 1)), "squeeze_dim")


def clone(x):
    if x.is_cuda:
        return cuda.forwards.clone(x)
    return emit(_FLAT["clone"], x._data.copy(), (x,))


def contiguous(x):
    """x, or its copy where PyTorch copies: a view that is not contiguous (on the CPU the
    views that are copies of their base). CUDA views are all copies that pass writes back
    to their base, so they are returned as they are."""
    a = x._aux
    if a is not None and a[3] is not None and not x.is_cuda and not shares(x):
        return clone(x)  # a copy in PyTorch too: writes to it stay there
    return x


def _strided(x, view, name, take):
    """Record `view` (a NumPy view of x's buffer) as a strided gather of x; the result is
    a view of x (`take(x)` makes it again: viewbase.py)."""
    out = contig(view)
    if not (STATE.enabled and x._rg):
        return mark(Tensor._make(out, -1, False), x, take, name == "expand")
    item = x._data.itemsize
    # (compiled `address`: ~1 us for both, `__array_interface__` ~2.5 us each)
    offset = (address(view) - address(x._data)) // item if view.size else 0
    strides = tuple([s // item for s in view.strides])
    y = emit(_STRIDED[name], out, (x,), iattrs=_STRIDED[name].pack(offset=offset, strides=strides))
    return mark(y, x, take, name == "expand")


def t(x):
    if x.is_cuda:
        return _cuda_permute(x, range(x._data.ndim - 1, -1, -1), "t", t)
    if x._data.ndim < 2:
        return _strided(x, x._data, "t", t)
    return _strided(x, x._data.T, "t", t)


def transpose(x, dim0, dim1):
    nd = x._data.ndim
    if nd == 0 and not x.is_cuda:
        return x if not x._rg else _strided(x, x._data, "transpose", same)
    d0, d1 = _wrap_dim(dim0, nd), _wrap_dim(dim1, nd)
    perm = list(range(nd))
    if nd:
        perm[d0], perm[d1] = perm[d1], perm[d0]
    if x.is_cuda:
        return _cuda_permute(x, perm, "transpose", lambda t: transpose(t, d0, d1))
    return _strided(x, x._data.transpose(perm), "transpose", lambda t: transpose(t, d0, d1))


def permute(x, dims):
    nd = x._data.ndim
    if len(dims) != nd:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not "
            f"equal to len(dims) = {len(dims)}"
        )
    w = [_wrap_dim(d, nd) for d in dims]
    if len(set(w)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    if x.is_cuda:
        return _cuda_permute(x, w, "permute", lambda t: permute(t, w))
    return _strided(x, x._data.transpose(w), "permute", lambda t: permute(t, w))


def expand(x, sizes):
    sizes = tuple(sizes)
    sh = x._data.shape
    if len(sizes) < len(sh):
        raise RuntimeError(
            f"expand({x.dtype.name.capitalize()}Tensor{{{list(sh)}}}, size={list(sizes)}): "
            "the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the "
            f"tensor ({len(sh)})"
        )
    target = []
    lead = len(sizes) - len(sh)
    for i, s in enumerate(sizes):
        have = sh[i - lead] if i >= lead else None
        if s == -1:
            if have is None:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            s = have
        if have is not None and have != 1 and have != s:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({have}) "
                f"at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor "
                f"sizes: {list(sh)}"
            )
        target.append(s)
    target = tuple(target)
    if x.is_cuda:  # a copy, recorded as a view that overlaps itself
        return mark(cuda.forwards.expand(x, target), x, lambda t: expand(t, target), True)
    return _strided(x, np.broadcast_to(x._data, target), "expand", lambda t: expand(t, target))


def _normalize_index(x, index):
    if not isinstance(index, tuple):
        index = (index,)
    for i in index:
        if isinstance(i, (Tensor, list, np.ndarray)) or (
            isinstance(i, bool) and not isinstance(i, (int,))
        ):
            raise NotImplementedError(
                "advanced (tensor/list/bool) indexing is not supported yet; use slices, ints, "
                "None and ..."
            )
        if isinstance(i, float):
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                "are valid indices (got float)"
            )
    if not any(i is Ellipsis for i in index):
        index = index + (Ellipsis,)  # keeps a 0-d result an array, not a NumPy scalar
    # bounds, with PyTorch's wording
    dim = 0
    sh = x._data.shape
    n_real = sum(1 for i in index if i is not None and i is not Ellipsis)
    if n_real > len(sh):
        raise IndexError(f"too many indices for tensor of dimension {len(sh)}")
    for i in index:
        if i is Ellipsis:
            dim += len(sh) - n_real
            continue
        if i is None:
            continue
        if isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            if not -sh[dim] <= i < sh[dim]:
                raise IndexError(
                    f"index {i} is out of bounds for dimension {dim} with size {sh[dim]}"
                )
        elif isinstance(i, slice):
            if i.step is not None and i.step <= 0:
                raise ValueError("step must be greater than zero")
        dim += 1
    return index


def _index_node(index):
    """PyTorch applies an index left to right; the result's node is the last step's."""
    name = "slice"
    for i in index:
        if i is None:
            name = "unsqueeze_index"
        elif isinstance(i, slice):
            if i != slice(None):
                name = "slice"
        elif i is not Ellipsis:
            name = "select"
    return name


def getitem(x, index):
    from .indexing import getitem_advanced, is_advanced

    if x.is_cuda:  # gathers at positions the host computes: a view only for a basic index
        out = cuda.index.getitem(x, index)
        return out if is_advanced(index) else mark(out, x, lambda t: t[index])
    if is_advanced(index):
        return getitem_advanced(x, index)
    index = _normalize_index(x, index)
    view = x._data[index]
    return _strided(x, view, _index_node(index), lambda t: getitem(t, index))


def setitem(x, index, value):
    """x[index] = value. Recorded out of place (CopySlices) when gradients flow."""
    from .indexing import index_put, is_advanced
    from .pointwise import as_tensor_like, is_scalar

    if x.is_cuda:
        return cuda.index.setitem(x, index, value)

    if is_view(x):  # its base is written too (viewbase.py): refuse what PyTorch refuses
        check(x, index=index)

    if is_advanced(index):
        if not (STATE.enabled and (x._rg or (isinstance(value, Tensor) and value._rg))):
            from .indexing import flat_positions

            pos, _ = flat_positions(x, index)
            v = value._data if isinstance(value, Tensor) else value
            check_writable(x._data)  # NumPy's refusal, not a ValueError taken for a shape's
            try:
                x._data.reshape(-1)[pos.reshape(-1)] = np.broadcast_to(v, pos.shape).reshape(-1)
            except ValueError:
                raise RuntimeError(
                    f"shape mismatch: value tensor of shape {list(np.shape(v))} cannot be "
                    f"broadcast to indexing result of shape {list(pos.shape)}"
                ) from None
            x._version += 1
            if is_view(x):
                write_back(x, False, index)
            return
        if x._leaf and x._rg:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )
        x._assign(index_put(x, index, value), index)
        return
    index = _normalize_index(x, index)
    v = value if isinstance(value, Tensor) else None
    if v is None:
        if not (is_scalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"can't assign a {type(value).__name__} to a Tensor")
        v = as_tensor_like(value, x)
    view = x._data[index]
    try:
        np.broadcast_shapes(v._data.shape, view.shape)
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(v._data.shape)} cannot be broadcast "
            f"to indexing result of shape {list(view.shape)}"
        ) from None
    if not (STATE.enabled and (x._rg or v._rg)):
        x._data[index] = v._data
        x._version += 1
        if is_view(x):
            write_back(x, False, index)
        return
    if x._leaf and x._rg:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )
    if v.dtype is not x.dtype:
        v = v.to(x.dtype)
    out = x._data.copy()
    out[index] = v._data
    item = x._data.itemsize
    off = (view.__array_interface__["data"][0] - x._data.__array_interface__["data"][0]) // item
    nd = view.ndim
    xst = tuple(s // item for s in view.strides)
    vb = np.broadcast_to(v._data, view.shape)
    vst = tuple(s // item for s in vb.strides)
    ia = _SETITEM.pack(offset=off if view.size else 0, nd=nd, dims=view.shape + xst + vst)
    x._assign(emit(_SETITEM, out, (x, v), iattrs=ia), index)
