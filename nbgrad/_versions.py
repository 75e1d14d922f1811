"""Version counters: a backward never reads a saved value that was written in place since.

As in PyTorch, a counter belongs to a storage and is shared by every tensor on it (views,
`detach()`), except `.data`, which gets a counter of its own (`data_alias`). A storage is
the NumPy array that owns the memory (the end of a view's `.base` chain). Counters exist
only for storages that were ever written in place; all others are at version 0.

Rows do not record versions (that would cost every op a lookup). Each row instead carries
its recording stamp (`tape.R_SEQ`, written by the compiled row writer), and each write is
stamped with the count of rows recorded so far: a row saw a value that changed since iff
the value's storage has a write stamped later than the row. `LAST[0]`, the latest write's
stamp, lets a backward whose oldest row is newer than every write skip the check with one
comparison, which is the case for a training loop (the optimizer steps before the next
forward records anything).
"""

import threading
import weakref

import numpy as np

from .tape import D_SEQ, R_SEQ, TAPE

# id(storage) -> _Counter. Weak: an entry goes with its storage (and its id with it).
_COUNTERS: dict = {}
LAST = [-1]  # stamp of the latest in-place write to any storage
_TLS = threading.local()  # .since: (stamp, id(tensor)) of the in-place op under way
_KEEP = 64  # stamps kept per storage (more only when old graphs outlive many writes)


class _Counter:
    __slots__ = ("version", "writes", "ref", "replaced", "__weakref__")


def storage(a):
    """The array owning `a`'s memory (itself, if it owns it)."""
    b = a.base
    while isinstance(b, np.ndarray):
        a, b = b, b.base
    return a


def _forget(key):
    def drop(_ref):
        _COUNTERS.pop(key, None)

    return drop


def _counter(a, create):
    if type(a) is np.ndarray:
        r = a if a.base is None else storage(a)
    else:  # a CudaArray: its device buffer (shared by reshapes)
        r = a.dev
        r = getattr(r, "gpu_data", None) or r
    key = id(r)
    c = _COUNTERS.get(key)
    if c is not None and c.ref() is r:
        return c
    if not create:
        return None
    c = _Counter()
    c.version, c.writes, c.replaced = 0, [], None
    try:
        c.ref = weakref.ref(r, _forget(key))
    except TypeError:  # an object that cannot be weakly referenced: not tracked
        return None
    _COUNTERS[key] = c
    return c


def begin_write(t):
    """At the start of an in-place op on tensor t (its checks passed): rows recorded from
    now on are the op's own, and may read the value it replaces."""
    _TLS.since = (int(TAPE.desc[D_SEQ]), id(t))


def take_since(t):
    """The stamp `begin_write` took for t's in-place op, or None (none, or another's)."""
    s = getattr(_TLS, "since", None)
    _TLS.since = None
    return s[0] if s is not None and s[1] == id(t) else None


def bump(a, seq=None):
    """Record an in-place write to the storage of array `a`, seen by the rows recorded
    before stamp `seq` (default: every row recorded so far)."""
    c = _counter(a, True)
    if c is None:
        return
    T = TAPE
    if seq is None:
        seq = T.desc.item(D_SEQ)
    c.version += 1
    w = c.writes
    if len(w) >= _KEEP:
        # a write no recorded row predates can never fail a check: forget those. If an old
        # graph keeps them all relevant, keep the newest half: a check reads only the latest
        # write (the count only words its message). Pruning once per _KEEP // 2 writes, not
        # at every write, keeps a bump O(1) (a training loop bumps its .grad every backward)
        oldest = int(T.R[0, R_SEQ]) if T.n else seq
        drop = 0
        while drop < len(w) and w[drop] <= oldest:
            drop += 1
        del w[: max(drop, len(w) - _KEEP // 2)]
    w.append(seq)
    if seq > LAST[0]:
        LAST[0] = seq


def version(a):
    c = _counter(a, False)
    return 0 if c is None else c.version


def set_version(a, v):
    """Give a fresh storage a version (an in-place op that rebinds its tensor keeps
    counting from the old value's version); no write is recorded."""
    if v:
        c = _counter(a, True)
        if c is not None:
            c.version = v


class _Alias:
    """Lends an array's memory to a new array whose `.base` it is, so `storage()` stops
    there: the new array and its views get a counter of their own. Keeps `owner` alive."""

    __slots__ = ("__array_interface__", "owner")


def data_alias(a):
    """`a`'s memory as an array that is its own storage, so that views of it share a
    counter separate from `a`'s (PyTorch's `.data`)."""
    if type(a) is not np.ndarray or not a.flags.c_contiguous:
        return a
    i = a.__array_interface__
    o = _Alias()
    o.owner = a
    o.__array_interface__ = {"data": i["data"], "shape": i["shape"], "typestr": i["typestr"],
                             "version": 3}  # fmt: skip
    return np.asarray(o)


def replaced(a):
    """`a`, a value rows may have saved, was swapped out of its tensor by `.data =` (same
    shape and dtype, other values): rows recorded before raise at backward rather than
    read it, where PyTorch would read the new value instead."""
    bump(a)
    c = _counter(a, False)
    if c is not None:
        c.replaced = int(TAPE.desc[D_SEQ])
