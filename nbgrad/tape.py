"""The tape: one row of numbers per recorded op, and the slot table of values.

Layout (all int64 unless noted):

    rows  R[k]   code, dtype code, n_out, n_in, payload position/length in I,
                 float-attr position in F, freed flag, recording stamp
    I            per-row payload: out slots, in slots, then the op's int attrs
    F (float64)  per-row float attrs (scalar operands, scale factors)
    slots S[s]   address, numel, ndim, dtype code, requires-grad, producer row, shape

A value on the tape is a *slot*. Slot ids are stable for the life of the value (a free
list recycles them); rows are kept in recording order, which is a topological order, and
are compacted by a mark pass (`_gc`) when the tape fills. A row is alive while some live
tensor's slot can reach it, so memory stays flat across a training loop.

The NumPy arrays a row's VJP reads are kept alive by `saved[k]` (an object array, so
freeing a graph is one vectorised assignment); the VJP reads them by address.
"""

import threading
import weakref

import numpy as np
from numba import carray, njit, types

from ._atomic import deferred
from ._mt import CRITICAL, MT, register
from .backends.cpu.extern import export
from .backends.cpu.memory import _voidptr, address

# row columns
R_CODE, R_DT, R_NOUT, R_NIN, R_IPOS, R_ILEN, R_FPOS, R_FLEN, R_SAVED, R_SEQ = range(10)
# R_SAVED: 0 the row saves nothing (it can run again after backward, as in PyTorch),
# 1 it holds saved values, 2 they were freed by a backward without retain_graph
SAVES_NONE, SAVES_LIVE, SAVES_FREED = 0, 1, 2
# R_SEQ: how many rows had ever been recorded before this one (never reused, unlike row
# numbers): an in-place write stamped with a later count happened after the row saved its
# values (`_versions.py`)
RW = 10
# slot columns
S_ADDR, S_NUMEL, S_NDIM, S_DT, S_RG, S_PROD, S_SHAPE = range(7)
MAXD = 10  # dims a slot's shape holds: no tensor may have more (see `too_many_dims`)
SW = S_SHAPE + MAXD


def too_many_dims(ndim):
    """Refuse a value of more than MAXD dims before it exists (a Tensor or a tape slot):
    its shape would not fit its slot's row, and would overwrite the next slot's."""
    raise RuntimeError(
        f"nbgrad supports tensors of at most {MAXD} dimensions, but this operation would "
        f"create a tensor of {ndim} dimensions"
    )


@njit(cache=True, error_model="numpy")
def _slot_header(S, s, addr, numel, ndim, dt, rg, prod):
    S[s, S_ADDR] = addr
    S[s, S_NUMEL] = numel
    S[s, S_NDIM] = ndim
    S[s, S_DT] = dt
    S[s, S_RG] = rg
    S[s, S_PROD] = prod


@njit(cache=True, error_model="numpy")
def _set_slot(S, s, arr, dt, rg, prod):
    _slot_header(S, s, arr.ctypes.data, arr.size, arr.ndim, dt, rg, prod)
    for d in range(arr.ndim):
        S[s, S_SHAPE + d] = arr.shape[d]


def set_device_slot(S, s, arr, rg, prod):
    """Slot s describes device array `arr` (a CUDA array: its `.address` is on the device;
    its dtype code is 0 for float32, else 1, as its rows')."""
    dt = 0 if arr.dtype.char == "f" else 1
    _set_device_slot(S, s, arr.address, np.array(arr.shape, np.int64), dt, rg, prod)


@njit(cache=True, error_model="numpy")
def _set_device_slot(S, s, addr, shape, dt, rg, prod):
    n = 1
    for d in range(shape.size):
        S[s, S_SHAPE + d] = shape[d]
        n *= shape[d]
    _slot_header(S, s, addr, n, shape.size, dt, rg, prod)


@njit(cache=True, error_model="numpy")
def _row_header(R, k, code, dt, nout, nin, ipos, ilen, fpos, flen, saves):
    R[k, R_CODE] = code
    R[k, R_DT] = dt
    R[k, R_NOUT] = nout
    R[k, R_NIN] = nin
    R[k, R_IPOS] = ipos
    R[k, R_ILEN] = ilen
    R[k, R_FPOS] = fpos
    R[k, R_FLEN] = flen
    R[k, R_SAVED] = saves


# The tape descriptor: an int64 array holding the tape arrays' addresses and sizes and the
# counters (rows, payload ints, float attrs used, bytes of saving rows' outputs since the
# last collection, that count's limit, and rows ever recorded). Compiled code that appends
# rows takes its address, one integer, instead of five arrays (Numba unboxes each array
# argument).
D_R, D_NR, D_I, D_NI, D_F, D_NF, D_S, D_NS, D_N, D_IPOS, D_FPOS, D_BYTES, D_BLIM, D_SEQ = range(14)
D_LEN = 14
# A graph dropped without backward() (an evaluation pass outside no_grad) keeps its saved
# values until a collection. Rows alone would trigger one only every few thousand rows, so
# recording also counts the output bytes of rows that save values and collects once they
# pass this: garbage stays bounded by it even for a few huge ops per step.
SAVED_BYTES_LIMIT = 256 << 20


@njit(cache=True, error_model="numpy")
def _describe(desc, R, I, F, S):
    desc[D_R], desc[D_NR] = R.ctypes.data, R.shape[0]
    desc[D_I], desc[D_NI] = I.ctypes.data, I.size
    desc[D_F], desc[D_NF] = F.ctypes.data, F.size
    desc[D_S], desc[D_NS] = S.ctypes.data, S.shape[0]


# Appending a row is compiled into every recording kernel (each op's fused forward and
# record, per dtype and rank). Linked into each of them, the row writer cost about a second
# of compile per kernel instance; exported as C functions (`extern.py`) it is compiled
# once, and a kernel only writes its output's shape, which depends on its rank.
_I, _F = types.int64, types.float64


@export("nbgrad_tape_append_small", _I(*[_I] * 12, _F, _I))
def _append_small(d_addr, code, dt, out, addr, numel, ndim, nbytes, nin, in0, in1, nf, f0, saves):
    """The common row: one output, at most two inputs and one float attr, no int attrs.
    Returns the row index, or -1 if the tape is full (the caller makes room and retries)."""
    d = carray(_voidptr(d_addr), D_LEN, np.int64)
    k, ipos, fpos = d[D_N], d[D_IPOS], d[D_FPOS]
    if k >= d[D_NR] or ipos + 3 > d[D_NI] or fpos + 1 > d[D_NF] or d[D_BYTES] > d[D_BLIM]:
        return -1
    R = carray(_voidptr(d[D_R]), (d[D_NR], RW), np.int64)
    I = carray(_voidptr(d[D_I]), d[D_NI], np.int64)
    F = carray(_voidptr(d[D_F]), d[D_NF], np.float64)
    S = carray(_voidptr(d[D_S]), (d[D_NS], SW), np.int64)
    _row_header(R, k, code, dt, 1, nin, ipos, 1 + nin, fpos, nf, saves)
    I[ipos] = out
    I[ipos + 1] = in0
    if nin == 2:
        I[ipos + 2] = in1
    if nf:
        F[fpos] = f0
    _slot_header(S, out, addr, numel, ndim, dt, 1, k)
    R[k, R_SEQ] = d[D_SEQ]
    d[D_SEQ] += 1
    d[D_N] = k + 1
    d[D_IPOS] = ipos + 1 + nin
    d[D_FPOS] = fpos + nf
    if saves:
        d[D_BYTES] += nbytes
    return k


@export("nbgrad_tape_append", _I(*[_I] * 14))
def _append(d_addr, code, dt, nout, nin, p_addr, np_, f_addr, nf, addr, numel, ndim, nbytes, saves):
    """Any row: the payload (outs, ins, int attrs) and float attrs given by address."""
    d = carray(_voidptr(d_addr), D_LEN, np.int64)
    k, ipos, fpos = d[D_N], d[D_IPOS], d[D_FPOS]
    if k >= d[D_NR] or ipos + np_ > d[D_NI] or fpos + nf > d[D_NF] or d[D_BYTES] > d[D_BLIM]:
        return -1
    R = carray(_voidptr(d[D_R]), (d[D_NR], RW), np.int64)
    I = carray(_voidptr(d[D_I]), d[D_NI], np.int64)
    F = carray(_voidptr(d[D_F]), d[D_NF], np.float64)
    S = carray(_voidptr(d[D_S]), (d[D_NS], SW), np.int64)
    payload = carray(_voidptr(p_addr), np_, np.int64)
    _row_header(R, k, code, dt, nout, nin, ipos, np_, fpos, nf, saves)
    I[ipos : ipos + np_] = payload
    F[fpos : fpos + nf] = carray(_voidptr(f_addr), nf, np.float64)
    _slot_header(S, payload[0], addr, numel, ndim, dt, 1, k)
    R[k, R_SEQ] = d[D_SEQ]
    d[D_SEQ] += 1
    d[D_N] = k + 1
    d[D_IPOS] = ipos + np_
    d[D_FPOS] = fpos + nf
    if saves:
        d[D_BYTES] += nbytes
    return k


@njit(cache=True, error_model="numpy")
def _write_shape(d_addr, s, shape):
    d = carray(_voidptr(d_addr), D_LEN, np.int64)
    S = carray(_voidptr(d[D_S]), (d[D_NS], SW), np.int64)
    for j in range(len(shape)):
        S[s, S_SHAPE + j] = shape[j]


@njit(cache=True, error_model="numpy")
def record_small_at_end(desc_addr, code, dt, out, out_arr, nin, in0, in1, nf, f0, saves):
    """Append the common row (see `_append_small`) for output slot `out` holding
    `out_arr`. Returns the row index, or -1 if the tape is full."""
    a = out_arr
    k = _append_small(
        desc_addr, code, dt, out, a.ctypes.data, a.size, a.ndim, a.nbytes, nin, in0, in1, nf,
        f0, saves)  # fmt: skip
    if k >= 0:
        _write_shape(desc_addr, out, a.shape)
    return k


@njit(cache=True, error_model="numpy")
def record_at_end(desc_addr, code, dt, nout, nin, payload, fattrs, out_arr, saves):
    """Append any row: `payload` is outs, ins, int attrs; `out_arr` is the value of
    outs[0]. Returns the row index, or -1 if the tape is full."""
    a = out_arr
    k = _append(
        desc_addr, code, dt, nout, nin, payload.ctypes.data, payload.size, fattrs.ctypes.data,
        fattrs.size, a.ctypes.data, a.size, a.ndim, a.nbytes, saves)  # fmt: skip
    if k >= 0:
        _write_shape(desc_addr, payload[0], a.shape)
    return k


@njit(cache=True, error_model="numpy")
def _gc(R, I, F, S, n, live_slot):
    """Mark rows reachable from live slots, compact them in place; return the kept rows.

    `live_slot` (uint8) enters marking the slots held by live tensors and leaves marking
    every slot still referenced (so the caller can free the rest).
    """
    keep = np.zeros(n, np.uint8)
    for k in range(n - 1, -1, -1):
        p = R[k, R_IPOS]
        no = R[k, R_NOUT]
        alive = False
        for j in range(no):
            if live_slot[I[p + j]]:
                alive = True
        if alive:
            keep[k] = 1
            for j in range(no + R[k, R_NIN]):
                live_slot[I[p + j]] = 1
    kept = np.nonzero(keep)[0]
    ipos = 0
    fpos = 0
    for newk in range(kept.size):
        k = kept[newk]
        p, ln, fp, fl = R[k, R_IPOS], R[k, R_ILEN], R[k, R_FPOS], R[k, R_FLEN]
        for j in range(ln):
            I[ipos + j] = I[p + j]
        for j in range(fl):
            F[fpos + j] = F[fp + j]
        for c in range(RW):
            R[newk, c] = R[k, c]
        R[newk, R_IPOS] = ipos
        R[newk, R_FPOS] = fpos
        for j in range(R[newk, R_NOUT]):
            S[I[ipos + j], S_PROD] = newk
        ipos += ln
        fpos += fl
    return kept, ipos, fpos


class Tape:
    """The process-wide tape, shared by all threads.

    `lock` (re-entrant) makes each change of it one step for other threads: appending a
    row together with its saved values, taking a slot, growing and compacting, and a whole
    backward pass (which also owns the per-pass scratch: `gaddr`, `ginit`, `mark`, `arena`).
    Per-op changes take it only once several threads use nbgrad (`_mt.py`). Changes of
    several arrays also run under `deferred()`, so that Ctrl-C cannot split them
    (`_atomic.py`). Tensors give up their slots without it (`handles[s] -= 1` is one step
    under the GIL; a collection reads a snapshot of the counts)."""

    def __init__(self, rows=4096, slots=4096):
        self.lock = threading.RLock()
        self.R = np.zeros((rows, RW), np.int64)
        self.base_rows = rows
        self.I = np.zeros(rows * 8, np.int64)
        self.F = np.zeros(rows * 2, np.float64)
        self.S = np.zeros((slots, SW), np.int64)
        self.saved = np.empty(rows, object)  # per row: what its VJP reads (or a custom ctx)
        self.desc = np.zeros(D_LEN, np.int64)
        self.desc[D_BLIM] = SAVED_BYTES_LIMIT
        self.desc_addr = address(self.desc)
        self.ctr = self.desc[D_N : D_FPOS + 1]  # rows, payload ints, float attrs used
        # live tensors per slot, and the free slots: ops and Tensor.__del__ hold these lists,
        # so they are changed in place, never replaced
        self.handles = [0] * slots
        self.free = list(range(slots - 1, -1, -1))
        self.watch = {}  # slot -> weakref of a tensor whose .grad backward() fills
        self.retained = set()  # slots of the non-leaf ones of them (retain_grad)
        self.hooks = {}  # slot -> {id: hook}: Tensor.register_hook, kept while the slot is
        # per-sweep scratch, sized with the slot table
        self.gaddr = np.zeros(slots, np.int64)
        self.ginit = np.zeros(slots, np.uint8)
        self.mark = np.zeros(slots, np.uint8)
        self.arena = np.empty(0, np.uint8)  # gradient arena reused across backward passes
        self.pinned = 0  # > 0: row numbers must not move (no compaction; the tape grows)
        self._describe()

    def _describe(self):
        """Refresh the descriptor after any tape array was reallocated."""
        _describe(self.desc, self.R, self.I, self.F, self.S)

    n = property(lambda self: int(self.ctr[0]), lambda self, v: self.ctr.__setitem__(0, v))
    ipos = property(lambda self: int(self.ctr[1]), lambda self, v: self.ctr.__setitem__(1, v))
    fpos = property(lambda self: int(self.ctr[2]), lambda self, v: self.ctr.__setitem__(2, v))

    # -- slots ---------------------------------------------------------------------
    def new_slot(self):
        if MT.on:
            with self.lock:
                return self._take_slot()
        return self._take_slot()

    def _take_slot(self):
        if not self.free:
            self._grow_slots()
        s = self.free.pop()
        self.handles[s] = 1
        return s

    def leaf_slot(self, t):
        """Give a leaf tensor a slot the first time an op records it as an input."""
        if t._data.ndim > MAXD:
            too_many_dims(t._data.ndim)
        if MT.on:
            with self.lock:
                if t._slot >= 0:  # another thread gave it one meanwhile
                    return t._slot
                return self._leaf_slot(t)
        return self._leaf_slot(t)

    def _leaf_slot(self, t):
        s = self._take_slot()
        a = t._data
        if type(a) is np.ndarray:
            _set_slot(self.S, s, a, t.dtype.code, 1 if t.requires_grad else 0, -1)
        else:  # a device array (CUDA): `.address` is a device pointer
            set_device_slot(self.S, s, a, 1 if t.requires_grad else 0, -1)
        if t.requires_grad:
            self.watch[s] = weakref.ref(t)
        t._slot = s
        return s

    def release(self, s):
        self.handles[s] -= 1

    def _grow_slots(self):
        old = self.S.shape[0]
        new = old * 2
        S = np.concatenate([self.S, np.zeros((new - old, SW), np.int64)])
        # the scratch keeps its contents: a custom Function's backward may record (and so
        # grow the table) in the middle of a sweep that holds gradients in it
        gaddr, ginit, mark = (_grown(a, new) for a in (self.gaddr, self.ginit, self.mark))
        with deferred():  # built aside, swapped in as one step
            self.S, self.gaddr, self.ginit, self.mark = S, gaddr, ginit, mark
            self._describe()
            self.handles.extend([0] * (new - old))
            self.free.extend(range(new - 1, old - 1, -1))

    def push_scratch(self):
        """A backward pass inside another (a custom Function's backward calling backward)
        gets zeroed scratch of its own; returns the outer pass's, for `pop_scratch`."""
        outer = self.gaddr, self.ginit, self.mark
        n = self.S.shape[0]
        self.gaddr, self.ginit, self.mark = (np.zeros(n, a.dtype) for a in outer)
        return outer

    def pop_scratch(self, outer):
        n = self.S.shape[0]  # the table may have grown during the inner pass
        self.gaddr, self.ginit, self.mark = (_grown(a, n) for a in outer)

    # -- rows ----------------------------------------------------------------------
    def guard(self):
        """The lock, for a pass that is not per op: `with TAPE.guard():` (see `_mt.py`)."""
        register()
        return self.lock

    def reserve(self, nint, nfloat):
        """Make room for one row before recording it (collect garbage or grow)."""
        with self.guard():
            if self.n < self.R.shape[0] and self.ipos + nint <= self.I.size:
                if self.fpos + nfloat <= self.F.size and self.desc[D_BYTES] <= self.desc[D_BLIM]:
                    return
            self.desc[D_BYTES] = 0
            if not self.pinned:
                self.collect()
            rows, ni, nf = self.R.shape[0], self.I.size, self.F.size
            while self.n >= rows // 2:
                rows *= 2
            while self.ipos + nint > ni // 2:
                ni *= 2
            while self.fpos + nfloat > nf // 2:
                nf *= 2
            self._resize(rows, _grown(self.I, ni), _grown(self.F, nf))

    def _resize(self, rows, I, F):  # noqa: E741 - the tape's name
        """Swap in row arrays of `rows` rows (and the given I, F) as one step."""
        R, saved = self.R, self.saved
        if rows != R.shape[0]:
            R = R[:rows].copy() if rows < R.shape[0] else _grown(R, rows)
            saved = np.empty(rows, object)
            saved[: self.n] = self.saved[: self.n]
        with deferred():
            self.R, self.saved, self.I, self.F = R, saved, I, F
            self._describe()

    def pin(self):
        """Keep row numbers stable (no compaction) while Python walks a list of rows; the
        walk holds the lock, so other threads' rows cannot come in between, and Ctrl-C
        waits for its end (user code inside lifts that: `_atomic.interruptible`)."""
        return _Pinned(self)

    def unpin(self):
        """End a pinned stretch (callers hold the lock, Ctrl-C deferred)."""
        self.pinned -= 1
        if not self.pinned and self.R.shape[0] > self.base_rows:
            self.collect()  # the tape grew while pinned: give the room back
            self._shrink()

    def _shrink(self):
        rows = self.R.shape[0]
        while rows > self.base_rows and self.n < rows // 4:
            rows //= 2
        if rows < self.R.shape[0]:
            self._resize(rows, self.I, self.F)

    def collect(self):
        """Drop rows no live tensor can reach and recycle their slots."""
        with self.guard(), deferred():
            live = (np.array(self.handles, dtype=np.int64) > 0).view(np.uint8)
            kept, self.ipos, self.fpos = _gc(self.R, self.I, self.F, self.S, self.n, live)
            m = kept.size
            self.saved[:m] = self.saved[kept]
            self.saved[m : self.n] = None
            self.n = m
            free = np.flatnonzero(live == 0)[::-1].tolist()
            self.free.clear()  # the same list (ops hold it), a buffer of the new length
            self.free.extend(free)
            for s in [s for s in list(self.watch) if not live[s]]:
                self.watch.pop(s, None)
            self.retained.intersection_update(self.watch)
            for s in [s for s in list(self.hooks) if not live[s]]:
                self.hooks.pop(s, None)

    def record_small(self, code, dt, s, out_arr, nin, in0, in1, nf, f0, saved):
        """The common row (see `_append_small`) for the new output slot `s`."""
        saves = SAVES_NONE if saved is None else SAVES_LIVE
        args = (code, dt, s, out_arr, nin, in0, in1, nf, f0, saves)
        if MT.on:
            with self.lock:
                return self._append_small(args, saved)
        return self._append_small(args, saved)

    def _append_small(self, args, saved):
        k = record_small_at_end(self.desc_addr, *args)
        if k < 0:
            self.reserve(3, 1)
            k = record_small_at_end(self.desc_addr, *args)
        self.saved[k] = saved
        return k

    def record(self, code, dt, outs, out_arr, ins, iattrs=(), fattrs=(), saved=None):
        """Append a row; `outs` are new slots, the first holding `out_arr` (the caller sets
        the others). `saved` (None: nothing) is kept alive until the graph is freed."""
        if out_arr.ndim > MAXD:
            too_many_dims(out_arr.ndim)
        nin = len(ins)
        if len(outs) == 1 and 0 < nin <= 2 and not iattrs and len(fattrs) <= 1:
            f0 = fattrs[0] if fattrs else 0.0
            return self.record_small(
                code, dt, outs[0], out_arr, nin, ins[0], ins[-1], len(fattrs), f0, saved
            )
        # one compiled call appends the row (no Python bookkeeping of the counters)
        payload = np.array((*outs, *ins, *iattrs), np.int64)
        fa = np.array(fattrs, np.float64) if len(fattrs) else _NO_FLOATS
        saves = SAVES_NONE if saved is None else SAVES_LIVE
        args = (code, dt, len(outs), nin, payload, fa, out_arr, saves)
        if MT.on:
            with self.lock:
                return self._append(args, payload.size, fa.size, saved)
        return self._append(args, payload.size, fa.size, saved)

    def _append(self, args, nint, nfloat, saved):
        k = record_at_end(self.desc_addr, *args)
        if k < 0:
            self.reserve(nint, nfloat)
            k = record_at_end(self.desc_addr, *args)
        self.saved[k] = saved
        return k


class _Pinned:
    """`Tape.pin()`'s block: the lock, Ctrl-C deferred, the tape pinned (as `with
    tape.guard(), deferred():` around it; a class, where a generator-based context manager
    cost ~3 us more per block)."""

    __slots__ = ("tape", "lock", "defer")

    def __init__(self, tape):
        self.tape = tape

    def __enter__(self):
        self.lock = lock = self.tape.guard()
        lock.acquire()
        try:
            self.defer = d = deferred()
            d.__enter__()
        except BaseException:
            lock.release()
            raise
        self.tape.pinned += 1  # (Ctrl-C waits from here on)

    def __exit__(self, *exc):
        try:
            try:
                self.tape.unpin()
            finally:
                self.defer.__exit__(*exc)
        finally:
            self.lock.release()
        return False


# the first thread runs these without the lock until a second one uses nbgrad (_mt.py)
CRITICAL.update(
    getattr(f, "__wrapped__", f).__code__ for f in vars(Tape).values() if hasattr(f, "__code__")
)
_NO_FLOATS = np.zeros(0, np.float64)


def _grown(a, n):
    """`a` with its first axis extended to `n` entries by zeros (or `a` if that long)."""
    if a.shape[0] >= n:
        return a
    b = np.zeros((n,) + a.shape[1:], a.dtype)
    b[: a.shape[0]] = a
    return b


TAPE = Tape()
