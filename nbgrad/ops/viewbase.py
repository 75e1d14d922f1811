"""In-place writes through a view reach its base, as in PyTorch.

nbgrad's storage is always C-contiguous, so a view whose elements are not contiguous in
its base (a column `x[:, 0]`, a transpose) is a copy, and under autograd an in-place op
rebinds the tensor it is applied to instead of mutating it. Either way the base would not
see the write. So a view remembers where it came from: `_aux[3]` holds

    (base, take, may_overlap, multi)

where `take(t)` applies the same view op to any tensor `t` of the base's shape,
`may_overlap` whether an `expand`
is on the way (several elements of the view may then be one element of the base), and
`multi` names the output of an op returning several views (unbind, split, chunk), which
PyTorch does not let autograd modify in place.

After an in-place change of a view (`write_back`), its new values go to the *root* (the
first base that is not itself a view) at the view's positions there, found by applying
the chain of `take`s to an arange over the root's shape:

* outside autograd, stored into the root's buffer (nothing to do when every link shares
  memory: the write already happened there);
* when the change was recorded, or the root takes part in a graph, as a recorded `put`
  (CopySlices, as PyTorch) that the root is rebound to, so gradients see the write.

Every view is also listed, weakly, on its root (`_aux[2]`). When the root's values change
in place — written directly, rebound by an in-place op under autograd, or written through
another view — `refresh` gives each live view that no longer shows the root's memory its
new values: it takes the chain again from the root (recorded when the view takes part in a
graph, so later gradients flow through the write, as through PyTorch's regenerated view
nodes) and counts a write on the old copy, since PyTorch's view shares the root's version
counter: rows that saved the view's old value raise PyTorch's in-place error at backward.
"""

import weakref

import numpy as np

from .. import _versions as _ver
from .._array import check_writable
from ..autograd.grad_mode import STATE, set_grad_enabled
from ..tensor import Tensor

_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
_LEAF_VIEW = "a view of a leaf Variable that requires grad is being used in an in-place operation."


def mark(out, base, take, overlap=False, multi=None):
    """Record that `out` (a fresh Tensor) is a view of `base` taken by `take` (kept cheap:
    every view op calls it; what a write needs is worked out when one happens)."""
    a = base._aux
    root = base
    if a is not None and a[3] is not None:
        overlap = overlap or a[3][2]
        root, a = _root(base)
    out._aux = [None, False, 0, (base, take, overlap, multi)]
    if a is None:
        a = root._aux = [None, False, 0, None]
    live = a[2]
    if not live:
        a[2] = [weakref.ref(out)]
    else:
        live.append(weakref.ref(out))
        n = len(live)
        if n >= 32 and not n & (n - 1):  # at powers of two: amortised pruning of dead views
            live[:] = [r for r in live if r() is not None]
    return out


def _root(t):
    while True:
        a = t._aux
        if a is None or a[3] is None:
            return t, a
        t = a[3][0]


def shares(t):
    """Whether view t's buffer is its base's memory (a write to it is already there)."""
    return _window(t._data, t._aux[3][0]._data)


def same(t):
    return t


def alias(t, out):
    """`out` shares t's buffer (detach, .data): a view of t if t is a view, so writes to
    it reach t's base as PyTorch's do."""
    a = t._aux
    if a is not None and a[3] is not None:
        mark(out, t, same)
    return out


def is_view(t):
    a = t._aux
    return a is not None and a[3] is not None


def _chain(t):
    """The root of t's views and the takes from the root down to t."""
    takes = []
    node = t
    while True:
        a = node._aux
        info = a[3] if a is not None else None
        if info is None:
            return node, takes[::-1]
        takes.append(info[1])
        node = info[0]


def _positions(t, root, takes):
    """Flat positions in `root` of t's elements (row-major over t's shape)."""
    shape = root._data.shape
    pos = Tensor._make(np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape), -1, False)
    try:
        for take in takes:
            pos = take(pos)
    except (IndexError, RuntimeError):
        pos = None
    if pos is None or pos._data.shape != t._data.shape:
        raise RuntimeError(
            "the base of this view changed shape since the view was taken (`.data` was "
            "assigned?); an in-place write through the view cannot reach it"
        )
    return np.ascontiguousarray(pos._data, np.int64).reshape(-1)


def check(t, fill=False, index=None):
    """Refuse, before anything is written, an in-place write through view `t` that PyTorch
    refuses (a view of a leaf that requires grad; overlapping elements, except for a fill,
    which writes one value to them all; with `index`, only the elements `t[index]` are
    written) or that would land in read-only memory."""
    multi = t._aux[3][3]
    if multi is not None and t._rg and STATE.enabled:
        raise RuntimeError(
            f"Output {multi[1]} of {multi[0]} is a view and is being modified inplace. This "
            "view is the output of a function that returns multiple views. Such functions do "
            "not allow the output views to be modified inplace. You should replace the "
            "inplace operation by an out-of-place one."
        )
    node = t
    while True:
        a = node._aux
        info = a[3] if a is not None else None
        if info is None:
            break
        base = info[0]
        if base._rg and STATE.enabled and base._leaf:
            raise RuntimeError(_LEAF_VIEW)
        if not base.is_cuda:
            check_writable(base._data)
        node = base
    if t._aux[3][2] and not fill:
        root, takes = _chain(t)
        pos = _positions(t, root, takes)
        if index is not None:
            pos = pos.reshape(t._data.shape)[_host(index)].reshape(-1)
        if np.unique(pos).size < pos.size:
            raise RuntimeError(_OVERLAP)


def _host(index):
    """A tensor index as NumPy indexes an array of positions (tensors as host arrays)."""
    items = index if isinstance(index, tuple) else (index,)
    out = []
    for i in items:
        if isinstance(i, Tensor):
            i = i._data.host() if i.is_cuda else i._data
        elif isinstance(i, list):
            i = np.asarray(i)
        out.append(i)
    return tuple(out) + (Ellipsis,) if not any(i is Ellipsis for i in out) else tuple(out)


def write_back(t, recorded, index=None, since=None):
    """`t`, a view, changed in place (`recorded`: as a recorded op; `index`: only t[index]
    changed; `since`: the stamp of the write's first row): its base sees it."""
    root, takes = _chain(t)
    record = STATE.enabled and (recorded or root._rg) and not _through_alias(takes)
    if not record and _all_share(t):
        changed(root, t)  # the write is already in the root's memory, counted on its storage
        return
    pos = _positions(t, root, takes)
    src = np.arange(pos.size, dtype=np.int64)
    if index is not None:  # only what changed (an expanded view's other copies are stale)
        src = src.reshape(t._data.shape)[_host(index)].reshape(-1)
        pos = pos[src]
    if record or root.is_cuda:
        from .indexing import put

        root._assign(put(root, t, pos, src, "CopySlices"), since=since, writer=t)
    else:
        root._data.reshape(-1)[pos] = t._data.reshape(-1)[src]
        _ver.bump(root._data)
        changed(root, t)


def changed(root, writer=None, before=None, since=None):
    """`root` (not a view) changed in place: its live views that do not show its memory
    take its new values (`writer`, the view the write came through, already has them;
    `before`: the root's buffer before the write, when the write rebound the root;
    `since`: the stamp of the write's first row, as for the root's own write)."""
    a = root._aux
    if a is None or not a[2]:
        return
    views = []
    graph = root._rg and STATE.enabled  # views in it take the root's new node, windows too
    for r in a[2]:
        v = r()
        if v is None or v is writer:
            continue
        if (graph and v._rg) or root.is_cuda or not _window(v._data, root._data):
            views.append(v)
    before = root._data if before is None else before
    for v in views:
        _retake(v, root, before, since)


def _window(a, b):
    """Whether arrays a and b share memory (one is a window on the other)."""
    return type(a) is np.ndarray and type(b) is np.ndarray and np.may_share_memory(a, b)


def _retake(v, root, before, since):
    """Give view v its values from the root again: its chain of takes, recorded when v is
    in a graph (the new row replaces v's; rows recorded before that saved the old value
    raise at backward, through the write counted on it, as PyTorch's shared counter)."""
    _, takes = _chain(v)
    if not takes:
        return
    with set_grad_enabled(STATE.enabled and v._rg):
        try:
            new = root
            for take in takes:
                new = take(new)
        except (IndexError, RuntimeError):  # the root changed shape (`.data =`): left as is
            return
    if new._data.shape != v._data.shape:
        return
    old, slot = v._data, v._slot
    v._data, v._slot, v._rg = new._data, new._slot, new._rg
    new._slot = -1
    if slot >= 0:
        from ..tape import TAPE

        TAPE.release(slot)
    if not _window(old, before):  # a copy: its own write (a window's is the root's)
        _ver.bump(old, since)


def _through_alias(takes):
    """Whether a detach() or .data link is on the way: a write through it is not seen by
    autograd (PyTorch writes the shared memory and counts a version, nothing more)."""
    return any(take is same for take in takes)


def _all_share(t):
    node = t
    while True:
        a = node._aux
        if a is None or a[3] is None:
            return True
        if not shares(node):
            return False
        node = a[3][0]


def store(t, values):
    """Set view `t` to the constant `values` (an array of t's shape; fill_, zero_, copy_ of
    a constant) and pass it to its base. In a graph, `t` is rebound to the constant rather
    than written (its old buffer may be the base's recorded value)."""
    since = _ver.take_since(t)
    root, takes = _chain(t)
    if t.is_cuda:
        from .cuda.tensor import from_host

        const = from_host(np.asarray(values, t._data.dtype))
    if STATE.enabled and (t._rg or root._rg) and not _through_alias(takes):
        from ..tape import TAPE

        if t._slot >= 0:
            TAPE.release(t._slot)
        data = const._data if t.is_cuda else np.array(values, t._data.dtype)
        t._data, t._slot, t._rg = data, -1, False
        t._version += 1
        write_back(t, True, None, since)
        return t
    if t.is_cuda:
        return t._assign(const, since=since)  # stored on the device, then passed on
    np.copyto(t._data, values, casting="unsafe")
    t._version += 1
    write_back(t, False)
    return t
