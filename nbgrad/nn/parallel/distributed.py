"""DistributedDataParallel: each rank runs the module on its share of the batch; after
`loss.backward()` every parameter's `.grad` is the average over ranks.

At construction, parameters and buffers are broadcast from rank 0, so every rank starts
alike. Parameters are grouped in buckets of about `bucket_cap_mb` (in reverse order, as
PyTorch groups them: the last layers' gradients are ready first). A post-accumulate-grad
hook on each parameter marks it ready; a bucket whose parameters are all ready (and whose
predecessors were reduced: every rank reduces buckets in the same order, as MPI needs)
is copied into one flat buffer and all-reduced. A callback queued for the end of the
backward pass reduces what is left and writes the averages back into each `.grad` in
place."""

import contextlib

import numpy as np

from ... import distributed as dist
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
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * _MB)
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any "
                "parameter that requires a gradient."
            )
        self._params = params
        self._sync_module_states()
        self._buckets = self._make_buckets(params)
        self._bucket_of = {}
        for b, bucket in enumerate(self._buckets):
            for i in bucket:
                self._bucket_of[i] = b
        self._handles = [
            p.register_post_accumulate_grad_hook(self._hook(i)) for i, p in enumerate(params)
        ]
        self._sync_next = False  # the forward under way asked for a synchronised backward
        self._pass = None

    # -- set-up ------------------------------------------------------------------------------
    def _sync_module_states(self):
        """Rank 0's parameters and buffers on every rank."""
        from ... import no_grad

        with no_grad():
            for t in [*self.module.parameters(), *self.module.buffers()]:
                dist.broadcast(t, 0, group=self.process_group)

    def _make_buckets(self, params):
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
        from ... import is_grad_enabled, no_grad

        self._sync_next = self.require_backward_grad_sync and is_grad_enabled()
        if self.broadcast_buffers and self.require_forward_param_sync:
            bufs = list(self.module.buffers())
            if bufs and dist.get_world_size(self.process_group) > 1:
                with no_grad():
                    for b in bufs:
                        dist.broadcast(b, 0, group=self.process_group)
        return self.module(*inputs, **kwargs)

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
            if not self._sync_next:
                return
            st = self._pass
            if st is None:
                from ...autograd.hooks import queue_callback

                st = self._pass = _Pass(len(self._params), len(self._buckets))
                queue_callback(self._finish)
            st.ready[i] = True
            self._launch_ready(st)

        return hook

    def _launch_ready(self, st, force=False):
        while st.next < len(self._buckets):
            bucket = self._buckets[st.next]
            if not force and not all(st.ready[i] for i in bucket):
                return
            flat = np.concatenate([self._grad_or_zeros(i).reshape(-1) for i in bucket])
            # blocking: the sweep is over (nothing left to overlap with), and Open MPI's
            # blocking all-reduce is much faster than its non-blocking one
            dist.all_reduce(flat_tensor(flat), group=self.process_group)
            st.flats.append(flat)
            st.next += 1

    def _grad_or_zeros(self, i):
        g = self._params[i].grad
        return np.zeros_like(self._params[i]._data) if g is None else g._data

    def _finish(self):
        st, self._pass = self._pass, None
        self._sync_next = False
        unused = [i for i, r in enumerate(st.ready) if not r]
        if unused and not self.find_unused_parameters:
            raise RuntimeError(
                "DistributedDataParallel: parameters "
                f"{[self._name_of(i) for i in unused]} received no gradient in this backward "
                "pass. Pass find_unused_parameters=True to DistributedDataParallel to average "
                "them as zeros on this rank (and in the same backward on every rank)."
            )
        self._launch_ready(st, force=True)
        used = None
        if self.find_unused_parameters:  # which parameters any rank used
            used = flat_tensor(np.array(st.ready, np.int32))
            dist.all_reduce(used, dist.ReduceOp.MAX, group=self.process_group)
        n = dist.get_world_size(self.process_group)
        for bucket, flat in zip(self._buckets, st.flats):
            flat /= n
            off = 0
            for i in bucket:
                p = self._params[i]
                k = p._data.size
                if used is None or used._data[i]:
                    avg = flat[off : off + k].reshape(p._data.shape)
                    if p.grad is None:
                        p.grad = flat_tensor(avg.copy())
                    else:
                        p.grad._data[...] = avg
                        p.grad._version += 1
                off += k

    def _name_of(self, i):
        p = self._params[i]
        for name, q in self.module.named_parameters():
            if q is p:
                return name
        return str(i)


class _Pass:
    """The state of one synchronised backward pass."""

    def __init__(self, nparams, nbuckets):
        self.ready = [False] * nparams
        self.next = 0
        self.flats = []


def flat_tensor(a):
    from ...tensor import Tensor

    return Tensor._make(a, -1, False)
