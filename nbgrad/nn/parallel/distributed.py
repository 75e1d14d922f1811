"""DistributedDataParallel: each rank runs the module on its share of the batch; after
`loss.backward()` every parameter's `.grad` is the average over ranks.

At construction, parameters and buffers are broadcast from rank 0, so every rank starts
alike. Parameters are grouped in buckets of about `bucket_cap_mb` (in reverse order, as
PyTorch groups them), each with a flat buffer. nbgrad's
backward is one compiled sweep and the post-accumulate-grad hooks run after it, so there
is nothing for communication to overlap: each parameter's hook only notes that it received
a gradient (and the first queues a callback); the callback, at the end of the pass,
all-reduces each bucket's buffer (blocking, buckets in the same order on every rank, as
MPI needs) and divides the sums in place. New gradients are written by the pass into their
bucket (`_Bucket.storage`), so the buffer holds them without a copy and `.grad` holds the
average without one; a gradient that was not (one accumulated into, or replaced by a hook)
is copied in and the average copied back. Under `nbgrad.compile` the forward's part
(`_pre_forward`) and the hooks are Python actions replayed around the compiled program
(`_compile/trace.py`), so a compiled step all-reduces exactly as an eager one."""

import contextlib
import functools
import sys
import weakref

import numpy as np

from ... import distributed as dist
from ...autograd import hooks
from ...tape import D_SEQ, TAPE
from ..modules.module import Module

_MB = 1024 * 1024


class DistributedDataParallel(Module):
    def __init__(
        self,
        module,
        device_ids=None,
        output_device=None,
        dim=0,
        broadcast_buffers=True,
        process_group=None,
        bucket_cap_mb=None,
        find_unused_parameters=False,
        check_reduction=False,
        gradient_as_bucket_view=False,
        static_graph=False,
        delay_all_reduce_named_params=None,
        param_to_hook_all_reduce=None,
        mixed_precision=None,
        device_mesh=None,
    ):
        super().__init__()
        if not dist.is_initialized():
            raise ValueError(dist._NOT_INIT)
        self.module = module
        self.process_group = process_group
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * _MB)
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any "
                "parameter that requires a gradient."
            )
        if any(p.is_cuda for p in params):
            raise RuntimeError(
                "nbgrad's DistributedDataParallel averages CPU parameters; the collectives "
                "of nbgrad.distributed take CUDA tensors, DDP does not yet"
            )
        self._params = params
        # the buffers broadcast at each forward: those of the module as built (PyTorch's
        # DDP fixes them at construction too)
        self._buffer_list = list(module.buffers())
        self._sync_module_states()
        self._buckets = [_Bucket(params, idx) for idx in self._bucket_indices(params)]
        for i, p in enumerate(params):
            p.register_post_accumulate_grad_hook(self._hook(i))
        for b in self._buckets:  # new gradients are written into the buckets
            for j, p in enumerate(b.params):
                hooks.GRAD_STORAGE[id(p)] = functools.partial(_storage, weakref.ref(b), j)
                weakref.finalize(p, hooks.GRAD_STORAGE.pop, id(p), None)
        # what the hooks note in a pass (a plain object: Module's __setattr__ is slow)
        self._pass = _Pass()

    # -- set-up ------------------------------------------------------------------------------
    def _sync_module_states(self):
        """Rank 0's parameters and buffers on every rank."""
        from ... import no_grad

        with no_grad():
            for t in [*self.module.parameters(), *self.module.buffers()]:
                dist.broadcast(t, 0, group=self.process_group)

    def _bucket_indices(self, params):
        """Lists of parameter indices, in reverse order, each of one dtype and of at most
        bucket_bytes_cap bytes (a larger parameter alone)."""
        buckets, cur, size, dt = [], [], 0, None
        for i in reversed(range(len(params))):
            a = params[i]._data
            if cur and (a.dtype != dt or size + a.nbytes > self.bucket_bytes_cap):
                buckets.append(cur)
                cur, size = [], 0
            cur.append(i)
            size += a.nbytes
            dt = a.dtype
        if cur:
            buckets.append(cur)
        return buckets

    # -- forward ----------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        self._pre_forward()
        trace = sys.modules.get("nbgrad._compile.trace")  # a compiled step replays it
        if trace is not None:
            trace.on_replay(self._pre_forward, "DistributedDataParallel's forward")
        return self.module(*inputs, **kwargs)

    def _pre_forward(self):
        """Whether this forward's backward synchronises; rank 0's buffers everywhere."""
        from ... import is_grad_enabled, no_grad

        self._pass.sync = self.require_backward_grad_sync and is_grad_enabled()
        bufs = self._buffer_list
        if bufs and self.broadcast_buffers and self.require_forward_param_sync:
            if dist.get_world_size(self.process_group) > 1:
                with no_grad():
                    for b in bufs:
                        dist.broadcast(b, 0, group=self.process_group)

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes of forwards run inside only accumulate local gradients; the
        first synchronised backward after averages the accumulated sums."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # -- backward -----------------------------------------------------------------------------
    def _hook(self, i):
        def hook(_param):
            st = self._pass
            if st.sync:
                ready = st.ready
                if ready is None:
                    ready = st.ready = [False] * len(self._params)
                    hooks.queue_callback(self._finish)
                ready[i] = True

        return hook

    def _finish(self):
        st = self._pass
        ready, st.ready, st.sync = st.ready, None, False
        if not all(ready) and not self.find_unused_parameters:
            unused = [self._name_of(i) for i, r in enumerate(ready) if not r]
            raise RuntimeError(
                f"DistributedDataParallel: parameters {unused} received no gradient in this "
                "backward pass. Pass find_unused_parameters=True to DistributedDataParallel "
                "to average them as zeros on this rank (and in the same backward on every "
                "rank)."
            )
        group = self.process_group
        used = None
        if self.find_unused_parameters:  # which parameters any rank used
            used = _host_tensor(np.array(ready, np.int32))
            dist.all_reduce(used, dist.ReduceOp.MAX, group=group)
            used = used._data
        comm = dist._comm(group)
        n = comm.Get_size()
        in_place, op = dist._in_place(), dist._mpi_op(dist.ReduceOp.SUM)
        for b in self._buckets:
            b.fill()
            if n > 1:  # (MPI's own call: the buffer is no tensor, no version to count)
                comm.Allreduce(in_place, b.flat, op=op)
            b.average_into_grads(n, used, self.gradient_as_bucket_view)

    def _name_of(self, i):
        p = self._params[i]
        for name, q in self.module.named_parameters():
            if q is p:
                return name
        return str(i)


class _Pass:
    """`sync`: the forward under way asked for a synchronised backward; `ready`: per
    parameter, during a synchronised pass, whether it received a gradient."""

    __slots__ = ("sync", "ready")

    def __init__(self):
        self.sync, self.ready = False, None


class _Bucket:
    """Parameters reduced together, and their flat buffer; `views[j]` is parameter j's
    part of it, in its shape.

    A backward writes a parameter's new `.grad` (one whose `.grad` was None) straight into
    its view (`storage`, through `hooks.GRAD_STORAGE`), so the all-reduce needs no copy in
    and the average none out: the gradients are parts of the buffer. A view is handed out
    once while anything else holds a view of the buffer; asked again (the next step's
    gradient) while the last one is still held, the bucket takes a new buffer: an earlier
    gradient is never written again."""

    def __init__(self, params, idx):
        self.params = [params[i] for i in idx]
        self.idx = idx
        self.dtype = self.params[0]._data.dtype
        self.offsets = np.cumsum([0, *(p._data.size for p in self.params)]).tolist()
        self._renew()

    def _renew(self):
        flat = np.empty(self.offsets[-1], self.dtype)
        o, mem = self.offsets, memoryview(flat)
        # each view over a memoryview of its part, not over `flat`: a view is then a storage
        # of its own, with its own version counter (_versions.py), as a gradient is
        self.views = [
            np.frombuffer(mem[o[j] : o[j + 1]], self.dtype).reshape(p._data.shape)
            for j, p in enumerate(self.params)
        ]
        self.flat = flat
        self.handed = [False] * len(self.params)
        self.born = TAPE.desc.item(D_SEQ)  # rows recorded before the buffer existed
        self.own_refs = _refs(self.views)  # the views' references while only we hold them

    def storage(self, j):
        """Parameter j's view, for its new gradient. One handed out before is handed out
        again only when nothing but the bucket holds any view of the buffer (the last
        step's gradients were dropped, as `zero_grad()` does); else the bucket takes a
        new buffer."""
        if self.handed[j]:
            if _refs(self.views) == self.own_refs:
                self.handed = [False] * len(self.params)
                self.born = TAPE.desc.item(D_SEQ)
            else:
                self._renew()
        self.handed[j] = True
        return self.views[j]

    def fill(self):
        """This rank's gradients into the buffer (zeros for a parameter without one); a
        gradient written into its view already is there."""
        for p, v in zip(self.params, self.views):
            g = p._grad
            if g is None:
                v.fill(0)
            elif g._data is not v:
                np.copyto(v, g._data)

    def average_into_grads(self, n, used, as_view):
        """The buffer's sums divided by n, into each `.grad` (in place where it is not the
        buffer's view already); a parameter without `.grad` (unused on this rank) gets its
        part as `.grad` (a copy unless gradient_as_bucket_view)."""
        if n != 1:
            np.divide(self.flat, n, out=self.flat)
        # a write to a gradient in the buffer counts (for the version checks of backward)
        # only if a row recorded since the buffer was made may have saved it
        count = n != 1 and TAPE.desc.item(D_SEQ) != self.born
        for j, (i, p, v) in enumerate(zip(self.idx, self.params, self.views)):
            if used is not None and not used[i]:
                continue
            g = p._grad
            if g is None:
                if as_view:
                    self.handed[j] = True
                p.grad = _host_tensor(v if as_view else v.copy())
                continue
            if g._data is not v:
                if as_view:
                    np.copyto(v, g._data)  # (the gradient's own storage keeps its values)
                    p.grad = _host_tensor(v)
                    self.handed[j] = True
                    continue
                np.copyto(g._data, v)
                g._bump()  # an in-place write
            elif count or (g._aux is not None and g._aux[2]):  # (or views of it to refresh)
                g._bump()


def _refs(views):
    """The reference count of each view: another holder (a `.grad`, a NumPy view of one,
    an array derived from one) adds to it."""
    return [sys.getrefcount(v) for v in views]


def _storage(bucket_ref, j, _param):
    """A new gradient's storage: its view of the bucket, while the DDP module lives."""
    b = bucket_ref()
    d = _param._data
    if b is None or b.views[j].shape != d.shape or b.dtype != d.dtype:
        return None  # (gone, or the parameter's `.data` was replaced: an ordinary buffer)
    return b.storage(j)


def _host_tensor(a):
    from ...tensor import Tensor

    return Tensor._make(a, -1, False)
