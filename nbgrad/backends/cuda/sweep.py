"""The backward sweep of a graph that has CUDA rows.

Same tape, same plan (`backends/cpu/plan.py: plan` picks the rows and lays out the
non-leaf gradient buffers); `autograd/engine.py` hands the plan here when it contains a
CUDA row. Then:

* non-leaf gradients of CUDA slots live in one device arena laid out exactly like the
  planner's host arena (offset for offset), reused across passes; leaf gradients are
  device arrays that become (or accumulate into) the leaves' `.grad`;
* a tight Python loop walks the rows: a CUDA row launches its VJP kernels (the op's
  declared `cuda_vjp`)
  asynchronously, back to back, with no synchronisation and no host copy; a run of CPU
  rows (a mixed graph, e.g. `x.cuda()` of a CPU result) goes to the compiled CPU sweep;
  only the `.cpu()`/`.cuda()` rows move gradients between host and device.

The store-or-add bookkeeping (`ginit`) stays on the host: whether a buffer was written is
known when its kernel is launched, so no kernel needs zero-filled buffers.
"""

import numpy as np

from ..._optable import BY_NAME, OPS
from ...tape import R_IPOS, R_NIN, R_NOUT, S_NDIM, S_SHAPE, TAPE
from ..cpu import dispatch
from ..cpu.memory import address
from ..cpu.plan import ALIGN, finish
from ..cpu.rowio import BCAST, settle
from . import runtime as rt
from .launch import launch
from .record import CUDA_DT

TO_CUDA, TO_CPU = BY_NAME["to_cuda"], BY_NAME["to_cpu"]  # rows whose buffers cross devices

_ARENA = [None]  # the device arena, reused across passes
_CTX = np.zeros(dispatch.CTX_LEN, np.int64)


class State:
    """What a VJP launcher sees: its row on the tape and the gradient buffers."""

    def __init__(self, T, dev_slots):
        self.T = T
        self.R, self.I, self.F, self.S = T.R, T.I, T.F, T.S
        self.dev = dev_slots
        self.buf = {}  # slot -> flat gradient buffer (device array, or host for CPU slots)

    def out(self, k, j):
        return int(self.I[self.R[k, R_IPOS] + j])

    def inp(self, k, j):
        R = self.R
        return int(self.I[R[k, R_IPOS] + R[k, R_NOUT] + j])

    def iattrs(self, k):
        R = self.R
        p = R[k, R_IPOS] + R[k, R_NOUT] + R[k, R_NIN]
        return tuple(self.I[p : R[k, R_IPOS] + R[k, 5]].tolist())

    def fattr(self, k, j):
        return float(self.F[self.R[k, 6] + j])

    def shape(self, s):
        return tuple(self.S[s, S_SHAPE : S_SHAPE + self.S[s, S_NDIM]].tolist())

    def saved(self, k):
        sv = self.T.saved[k]
        return () if sv is None else tuple(a.flat for a in sv)

    def wants(self, s):
        return self.T.gaddr[s] != 0

    def cot(self, s):
        self.settle(s)
        return self.buf[s]

    def settle(self, s):
        """A host cotangent a CPU `sum` left as one value (rowio.BCAST), filled out."""
        T = self.T
        if T.ginit[s] == BCAST:
            settle(T.gaddr, T.ginit, T.S, s)

    def take(self, s):
        """Slot s's gradient buffer and whether to add to it (else store)."""
        self.settle(s)
        acc = bool(self.T.ginit[s])
        self.T.ginit[s] = 1
        return self.buf[s], acc

    def scratch(self, n, dtype):
        return rt.cuda().device_array(max(n, 1), dtype)[:n]


def _dev_slots(T, rows):
    """CUDA slots of the graph: both ends of CUDA rows, except the host side of a
    transfer row."""
    R, I = T.R, T.I
    dev = set()
    for k in rows.tolist():
        if R[k, 1] < CUDA_DT:
            continue
        p, no, ni = R[k, R_IPOS], R[k, R_NOUT], R[k, R_NIN]
        c = R[k, 0]
        if c != TO_CPU.code:
            dev.update(I[p : p + no].tolist())
        if c != TO_CUDA.code:
            dev.update(I[p + no : p + no + ni].tolist())
    return dev


def _device_arena(T, arena, used, dev, G):
    """Give the CUDA non-leaf slots device buffers at the planner's offsets."""
    cu = [s for s in used.tolist() if s in dev]
    if not cu:
        return
    base = (arena.ctypes.data + ALIGN - 1) // ALIGN * ALIGN
    S = T.S
    spans = []
    for s in cu:
        off = int(T.gaddr[s]) - base
        dt = np.dtype(np.float32 if S[s, 3] == 0 else np.float64)
        spans.append((s, off, int(S[s, 1]), dt))
    total = max(off + n * dt.itemsize for _, off, n, dt in spans) + ALIGN
    a = _ARENA[0]
    if a is None or a.size < total:
        a = _ARENA[0] = rt.cuda().device_array(total, np.uint8)
    dbase = rt.ptr(a)
    for s, off, n, dt in spans:
        G.buf[s] = a[off : off + n * dt.itemsize].view(dt)
        T.gaddr[s] = dbase + off  # a device pointer: only CUDA rows use it


def run(outputs, roots, seeds, retain_graph, wanted_tensors, rows, arena, used, leaves, E):
    """The GPU counterpart of `autograd.engine._run` (same arguments and result). `E` holds
    what the sweep needs from the engine (`engine.CudaSweepNeeds`): it is handed in, as
    backends import nothing from autograd."""
    T = TAPE
    restrict = wanted_tensors is not None
    dev = _dev_slots(T, rows)
    dev.update(s for s, o in zip(roots.tolist(), outputs) if o.is_cuda)
    G = State(T, dev)
    G.E = E
    result = {}
    try:
        _device_arena(T, arena, used, dev, G)
        for s in used.tolist():
            if s not in dev:
                dt = np.float32 if T.S[s, 3] == 0 else np.float64
                G.buf[s] = _host_view(int(T.gaddr[s]), int(T.S[s, 1]), dt)
        for s in leaves.tolist():
            if restrict:
                t = wanted_tensors.get(s)
            else:
                ref = T.watch.get(s)
                t = ref() if ref is not None else None
                t = t if t is not None and t._rg else None
            if t is None:
                T.gaddr[s] = 0
                continue
            g = None if restrict else t._grad
            if t.is_cuda:
                if g is not None and g.is_cuda and g._data.shape == t._data.shape:
                    buf, result[s], init = g._data.flat, None, 1
                else:
                    arr = rt.empty(t._data.shape, t._data.dtype)
                    buf, result[s], init = arr.flat, arr, 0
                G.buf[s] = buf
                T.gaddr[s] = rt.ptr(buf) if buf.size else 1
            else:
                if g is not None and g._data.flags.writeable and g._data.base is None:
                    buf, result[s], init = g._data, None, 1
                else:
                    buf = np.empty(t._data.shape, t._data.dtype)
                    result[s], init = buf, 0
                G.buf[s] = buf.reshape(-1)
                T.gaddr[s] = address(buf)
            T.ginit[s] = init
        for s, g in zip(roots.tolist(), seeds):
            if T.gaddr[s]:
                _seed(G, s, g)
        T.pinned += 1  # a custom Function's backward may record: rows must not move
        try:
            _sweep(T, G, rows, dev)
        finally:
            T.pinned -= 1
        if restrict:
            for s in wanted_tensors:
                if s not in result and T.gaddr[s] and T.ginit[s]:
                    result[s] = _copy(G, s)
        else:
            for s in list(T.retained):  # non-leaf tensors that retain their grad
                if s in T.watch and T.S[s, 5] >= 0 and T.gaddr[s] and T.ginit[s]:
                    result[s] = _copy(G, s)
        for s in list(result):
            if not T.ginit[s]:
                del result[s]
    finally:
        freed_rows = finish(T.R, T.gaddr, T.ginit, used, leaves, rows, not retain_graph)
        if freed_rows.size:
            E.free(freed_rows)
        T.arena = arena
    return result


def _host_view(addr, n, dt):
    from ..cpu.memory import v32, v64

    return v32(addr, n) if dt == np.float32 else v64(addr, n)


def _seed(G, s, g):
    buf, acc = G.take(s)
    if s in G.dev:
        from .kernels import build

        src = g.flat if isinstance(g, rt.CudaArray) else rt.cuda().to_device(np.asarray(g))
        launch(build().store, buf.size, buf, src, acc)
    else:
        g = g.host() if isinstance(g, rt.CudaArray) else g
        if acc:
            buf += g.reshape(-1)
        else:
            buf[:] = g.reshape(-1)


def _copy(G, s):
    """A fresh array holding slot s's gradient (non-leaf results: retain_grad, grad())."""
    shape = G.shape(s)
    G.settle(s)
    if s in G.dev:
        out = rt.empty(shape, G.buf[s].dtype)
        from .kernels import build

        launch(build().store, out.size, out.flat, G.buf[s], False)
        return out
    return np.array(G.buf[s]).reshape(shape)


def _sweep(T, G, rows, dev):
    E = G.E
    R = T.R
    custom = E.custom_code
    n = rows.size
    i = 0
    while i < n:
        k = int(rows[i])
        c = int(R[k, 0])
        if c == custom:  # Python runs the Function's backward, then the loop resumes
            if R[k, 1] >= CUDA_DT:
                run_custom(G, k)
            else:
                E.run_custom(k)
            # Python ran (it may have recorded): the tape arrays may have been reallocated
            R = T.R
            G.R, G.I, G.F, G.S = T.R, T.I, T.F, T.S
            i += 1
        elif R[k, 1] >= CUDA_DT:
            if T.ginit[G.out(k, 0)]:  # else nothing flowed into this row
                launcher = OPS[c].cuda_vjp
                if launcher is None:
                    raise AssertionError(f"internal error: no CUDA VJP for op code {c}")
                launcher(G, k)
            i += 1
        else:  # a run of CPU rows: the compiled CPU sweep
            j = i
            while j < n and R[rows[j], 1] < CUDA_DT and R[rows[j], 0] != custom:
                j += 1
            sub = np.ascontiguousarray(rows[i:j])
            dispatch.pack(_CTX, T.R, T.I, T.F, T.S, T.gaddr, T.ginit, sub)
            dispatch.sweep(T.R, sub, dispatch.FN, address(_CTX), 0, custom)
            i = j


def run_custom(G, k):
    """A custom Function's CUDA row (`autograd.engine._run_custom` for the GPU): its
    backward gets the outputs' gradients as CUDA tensors (copies; zeros where none flowed,
    unless materialize_grads is off) and must return CUDA gradients, each of its input's
    shape or summed down to it on the device."""
    from ..._atomic import interruptible
    from ...autograd.grad_mode import no_grad
    from .kernels import build
    from .primitives import sum_to

    T, E = G.T, G.E
    ctx = T.saved[k]
    if ctx.freed:
        raise RuntimeError(E.second_backward)
    K = build()
    grads = []
    for j in range(int(G.R[k, R_NOUT])):
        s = G.out(k, j)
        if T.gaddr[s] and T.ginit[s]:
            grads.append(E.as_tensor(_copy(G, s)))
        elif ctx.materialize_grads:
            z = rt.empty(G.shape(s), np.float32 if T.S[s, 3] == 0 else np.float64)
            launch(K.fill, z.size, z.flat, 0)
            grads.append(E.as_tensor(z))
        else:
            grads.append(None)
    with no_grad(), interruptible():
        res = ctx.run_backward(grads)
    name = ctx.node_name
    for j, pos in enumerate(ctx.tensor_positions):
        s, g = G.inp(k, j), res[pos]
        if g is None or not T.gaddr[s]:
            continue
        if not g.is_cuda:
            raise RuntimeError(
                f"Function {name} returned an invalid gradient at index {pos} - expected "
                f"device cuda:0 but got {g.device}"
            )
        shape = G.shape(s)
        E.sum_axes(g._data.shape, shape, name, pos)  # PyTorch's error if it can't
        gx, acc = G.take(s)
        src = g._data.flat
        if src.dtype != gx.dtype:  # another float dtype (store casts)
            c = rt.cuda().device_array(src.size, gx.dtype)
            launch(K.store, c.size, c, src, False)
            src = c
        if g._data.shape == shape:
            launch(K.store, gx.size, gx, src, acc)
        else:
            sum_to(src, g._data.shape, shape, gx, acc)
