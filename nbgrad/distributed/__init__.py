"""nbgrad.distributed: PyTorch's torch.distributed collectives, on MPI through mpi4py.

    mpiexec -n 4 python train.py       # in train.py: dist.init_process_group("mpi")

Rank and world size come from the MPI launcher. A process started without one is a world
of one (without mpi4py too). CPU tensors travel zero-copy: MPI reads and writes their
NumPy storage. CUDA tensors travel through host copies (copied back to the device after a
collective writes them), or as device memory where MPI is CUDA-aware (`_cuda_aware_mpi`).
A collective that writes a tensor counts an in-place write on it (its version), as an
in-place op does. See docs/distributed.md.
"""

import ctypes
import enum
import functools
import os

import numpy as np

from . import _self

_STATE = {"comm": None, "mpi": None, "backend": None}
_NOT_INIT = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)
# variables an MPI launcher sets: a process that has one is part of a larger world
_LAUNCHER_SIZE = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS")


class ReduceOp(enum.Enum):
    SUM = "SUM"
    AVG = "AVG"
    PRODUCT = "PRODUCT"
    MIN = "MIN"
    MAX = "MAX"
    BAND = "BAND"
    BOR = "BOR"
    BXOR = "BXOR"


class Backend:
    MPI = "mpi"


def is_available():
    """True: collectives work in a world of one even without mpi4py."""
    return True


def is_mpi_available():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def is_initialized():
    return _STATE["comm"] is not None


def _launched_world():
    for k in _LAUNCHER_SIZE:
        v = os.environ.get(k)
        if v and v.isdigit() and int(v) > 1:
            return int(v)
    return 1


def init_process_group(
    backend=None,
    init_method=None,
    timeout=None,
    world_size=-1,
    rank=-1,
    store=None,
    group_name="",
    pg_options=None,
    device_id=None,
):
    """Join the world the MPI launcher started (MPI.COMM_WORLD). `backend`: "mpi" (or None).
    Without mpi4py, a process no launcher started is a world of one."""
    if is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    if backend is not None and str(backend).lower() != "mpi":
        raise ValueError(
            f"nbgrad.distributed supports the 'mpi' backend only (got backend={backend!r}); "
            "launch the processes with mpiexec or srun"
        )
    try:
        from mpi4py import MPI
    except ImportError:
        n = _launched_world()
        if n > 1:
            raise RuntimeError(
                f"this process is one of {n} started by an MPI launcher, but mpi4py is not "
                'installed: pip install "nbgrad[mpi]"'
            ) from None
        comm, mpi = _self.SelfComm(), None
    else:
        comm, mpi = MPI.COMM_WORLD, MPI
    for name, given, actual in (("world_size", world_size, comm.Get_size()),
                                ("rank", rank, comm.Get_rank())):  # fmt: skip
        if given not in (-1, None) and given != actual:
            raise ValueError(f"{name}={given} given, but the MPI launcher set {actual}")
    _STATE.update(comm=comm, mpi=mpi, backend="mpi")


def destroy_process_group(group=None):
    """Leave the process group (MPI itself is finalized when the process exits)."""
    if not is_initialized():
        raise ValueError(_NOT_INIT)
    _STATE.update(comm=None, mpi=None, backend=None)


def _comm(group=None):
    c = _STATE["comm"]
    if c is None:
        raise ValueError(_NOT_INIT)
    return c


def get_rank(group=None):
    return _comm(group).Get_rank()


def get_world_size(group=None):
    return _comm(group).Get_size()


def get_backend(group=None):
    _comm(group)
    return _STATE["backend"]


def barrier(group=None, async_op=False, device_ids=None):
    c = _comm(group)
    if async_op:
        return Work([c.Ibarrier()])
    c.Barrier()
    return None


class Work:
    """The handle of an asynchronous collective: `wait()` blocks until it is done (and
    its result is in the tensors); `is_completed()` polls."""

    def __init__(self, requests, finish=None, keep=None):
        self._requests, self._finish, self._done = requests, finish, False
        self._keep = keep  # a buffer MPI reads until the request completes (a host copy)

    def wait(self, timeout=None):
        if not self._done:
            for r in self._requests:
                r.Wait()
            self._done = True
            if self._finish is not None:
                self._finish()
        return True

    def is_completed(self):
        if not self._done and all(r.Test() for r in self._requests):
            self.wait()
        return self._done

    def is_success(self):
        return self.is_completed()


def _run(comm, name, args, kwargs, finish, async_op):
    """MPI's non-blocking collective `I<name>` behind a work handle (async_op), else the
    blocking one: Open MPI's non-blocking collectives take another, slower path (a 1M
    float32 all-reduce on 2 ranks measured 28 ms against 1 ms blocking)."""
    if async_op:
        nb = "I" + name[0].lower() + name[1:]  # Allreduce -> Iallreduce
        return Work([getattr(comm, nb)(*args, **kwargs)], finish)
    getattr(comm, name)(*args, **kwargs)
    if finish is not None:
        finish()
    return None


# -- tensors as MPI buffers ------------------------------------------------------------------
def _tensor(t, name):
    from ..tensor import Tensor

    if not isinstance(t, Tensor):
        raise TypeError(f"{name} must be a Tensor, got {type(t).__name__}")
    return t


def _array(t, name="tensor"):
    """What MPI reads of a tensor it only reads: a CPU tensor's storage, a CUDA tensor's
    host copy."""
    return _buffer(t, name, host=True)[0]


def _buffer(t, name="tensor", host=False):
    """(buffer, back) for a tensor a collective writes. A CPU tensor: its NumPy storage,
    back None. A CUDA tensor: its device memory where MPI is CUDA-aware and the collective
    does no NumPy work on it (`host` False), back None; else a host copy, and `back()`
    copies that to the device once MPI wrote it."""
    d = _tensor(t, name)._data
    if type(d) is np.ndarray:
        return d, None
    from ..backends.cuda import runtime

    if not host and _cuda_aware_mpi():
        runtime.cuda().synchronize()  # the kernels writing it are done before MPI reads
        return d.flat, None
    h = d.host()  # (a synchronous copy: after the kernels writing it)
    return h, functools.partial(_store, t, h)


def _flat(a):
    """A buffer as 1-d (a CUDA-aware buffer is a flat device array already)."""
    return a if a.ndim == 1 else a.reshape(-1)


def _store(t, value):
    """`value` into tensor t's storage (its device memory for a CUDA tensor)."""
    d = t._data
    if type(d) is np.ndarray:
        d[...] = value
    elif d.size:
        d.flat.copy_to_device(np.ascontiguousarray(value, d.dtype).reshape(-1))


@functools.cache
def _cuda_aware_mpi():
    """Whether MPI reads and writes CUDA device memory itself (then CUDA tensors travel
    without host copies). `NBGRAD_CUDA_AWARE_MPI=1` / `0` says so; otherwise Open MPI is
    asked (`MPIX_Query_cuda_support`); any other MPI is taken as not CUDA-aware."""
    env = os.environ.get("NBGRAD_CUDA_AWARE_MPI")
    if env in ("0", "1"):
        return env == "1"
    if _STATE["mpi"] is None:
        return False
    from ..backends.cuda import runtime

    if runtime.simulated():  # the simulator's "device" memory is a host array
        return False
    try:
        lib = ctypes.CDLL("libmpi.so.40")  # Open MPI's, loaded by mpi4py already
        return bool(lib.MPIX_Query_cuda_support())
    except (OSError, AttributeError):
        return False


def _wrote(*tensors):
    """Count the collective's write into each tensor as one in-place write (the tensor's
    own way to count one: whatever else an in-place write must reach is reached too)."""
    for t in tensors:
        t._bump()


_MPI_NAMES = {ReduceOp.SUM: "SUM", ReduceOp.AVG: "SUM", ReduceOp.PRODUCT: "PROD",
              ReduceOp.MIN: "MIN", ReduceOp.MAX: "MAX", ReduceOp.BAND: "BAND",
              ReduceOp.BOR: "BOR", ReduceOp.BXOR: "BXOR"}  # fmt: skip


def _mpi_op(op):
    mpi = _STATE["mpi"]
    if type(op) is not ReduceOp:
        op = ReduceOp(op.value if isinstance(op, ReduceOp) else op)
    return None if mpi is None else getattr(mpi, _MPI_NAMES[op])


def _in_place():
    mpi = _STATE["mpi"]
    return _self._IN_PLACE if mpi is None else mpi.IN_PLACE


def _is_avg(op):
    return op is ReduceOp.AVG or op == "AVG"


def _averager(op, arrays, n):
    """For ReduceOp.AVG: the division by the world size that follows the sum."""
    if not _is_avg(op):
        return None
    for a in arrays:
        if not np.issubdtype(a.dtype, np.floating):
            raise ValueError("ReduceOp.AVG takes floating-point tensors")

    def divide():
        for a in arrays:
            a /= n

    return divide


def _then(*steps):
    def run():
        for s in steps:
            if s is not None:
                s()

    return run


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce `tensor` over all ranks, in place on every rank."""
    c = _comm(group)
    a, back = _buffer(tensor, host=_is_avg(op))
    avg = _averager(op, [a], c.Get_size())
    return _run(c, "Allreduce", (_in_place(), a), {"op": _mpi_op(op)},
                _then(avg, back, lambda: _wrote(tensor)), async_op)  # fmt: skip


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Rank `src`'s `tensor` into `tensor` on every rank."""
    c = _comm(group)
    src = _src(src, group_src)
    a, back = _buffer(tensor)
    mine = c.Get_rank() != src
    return _run(c, "Bcast", (a,), {"root": src},
                _then(back, lambda: _wrote(tensor)) if mine else None, async_op)  # fmt: skip


def _src(src, group_src):
    if src is None:
        src = group_src
    if src is None:
        raise ValueError("Either src or group_src must be set")
    return src


def _check_world(lst, n, name):
    if len(lst) != n:
        raise ValueError(f"{name} must have {n} tensors (the world size), got {len(lst)}")


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's `tensor` into `tensor_list[rank]`, on every rank."""
    c = _comm(group)
    n = c.Get_size()
    _check_world(tensor_list, n, "tensor_list")
    a = _array(tensor)
    out = np.empty((n, *a.shape), a.dtype)

    for t in tensor_list:
        _tensor(t, "tensor_list")

    def finish():
        for i, t in enumerate(tensor_list):
            _store(t, out[i])
        _wrote(*tensor_list)

    return _run(c, "Allgather", (a, out), {}, finish, async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's `input_tensor` concatenated (or stacked) into `output_tensor`."""
    c = _comm(group)
    o, back = _buffer(output_tensor, "output_tensor")
    a = _buffer(input_tensor, "input_tensor")[0]
    if o.size != a.size * c.Get_size():
        raise ValueError("output tensor size must be equal to world_size times input tensor size")
    return _run(c, "Allgather", (_flat(a), _flat(o)), {},
                _then(back, lambda: _wrote(output_tensor)), async_op)  # fmt: skip


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):  # noqa: A002
    """The reduction over ranks of `input`, split in world-size chunks: chunk `rank` into
    `output`."""
    c = _comm(group)
    o, back = _buffer(output, "output", host=_is_avg(op))
    a = _buffer(input, "input")[0]
    if a.size != o.size * c.Get_size():
        raise ValueError("input tensor must be the same size as output size times world size")
    avg = _averager(op, [o], c.Get_size())
    return _run(c, "Reduce_scatter_block", (_flat(a), _flat(o)),
                {"op": _mpi_op(op)}, _then(avg, back, lambda: _wrote(output)),
                async_op)  # fmt: skip


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """The reduction over ranks of `tensor`, into `tensor` on rank `dst` only."""
    c = _comm(group)
    dst = _dst(dst, group_dst)
    root = c.Get_rank() == dst
    a, back = _buffer(tensor, host=root and _is_avg(op))
    avg = _averager(op, [a], c.Get_size()) if root else None
    args = (_in_place(), a) if root else (a, None)
    return _run(c, "Reduce", args, {"op": _mpi_op(op), "root": dst},
                _then(avg, back, lambda: _wrote(tensor)) if root else None,
                async_op)  # fmt: skip


def _dst(dst, group_dst):
    if dst is None:
        dst = group_dst
    if dst is None:
        raise ValueError("Either dst or group_dst must be set")
    return dst


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Every rank's `tensor` into `gather_list` on rank `dst` (None elsewhere)."""
    c = _comm(group)
    dst = 0 if dst is None and group_dst is None else _dst(dst, group_dst)
    a = _array(tensor)
    root = c.Get_rank() == dst
    if root:
        if gather_list is None:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_world(gather_list, c.Get_size(), "gather_list")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    out = np.empty((c.Get_size(), *a.shape), a.dtype) if root else None

    for t in gather_list or ():
        _tensor(t, "gather_list")

    def finish():
        for i, t in enumerate(gather_list):
            _store(t, out[i])
        _wrote(*gather_list)

    return _run(c, "Gather", (a, out), {"root": dst}, finish if root else None, async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """`scatter_list[rank]` of rank `src` into `tensor` on each rank."""
    c = _comm(group)
    src = 0 if src is None and group_src is None else _src(src, group_src)
    a, back = _buffer(tensor)
    root = c.Get_rank() == src
    if root:
        if scatter_list is None:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_world(scatter_list, c.Get_size(), "scatter_list")
        send = np.stack([_array(t) for t in scatter_list])
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        send = None
    return _run(c, "Scatter", (send, a), {"root": src}, _then(back, lambda: _wrote(tensor)),
                async_op)  # fmt: skip


def _peer(c, rank, which):
    if rank == c.Get_rank():
        raise ValueError(
            f"Invalid {which} rank: should not be the same as rank of the current process."
        )
    return rank


def _recv_src(c, src, group_src):
    if src is None and group_src is None:
        if _STATE["mpi"] is None:
            raise RuntimeError("recv needs another rank: this is a world of one process")
        return _STATE["mpi"].ANY_SOURCE
    return _peer(c, _src(src, group_src), "source")


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    c = _comm(group)
    a = _buffer(tensor)[0]
    return Work([c.Isend(a, dest=_peer(c, _dst(dst, group_dst), "destination"), tag=tag)],
                keep=a)  # fmt: skip


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    c = _comm(group)
    a, back = _buffer(tensor)
    req = c.Irecv(a, source=_recv_src(c, src, group_src), tag=tag)
    return Work([req], _then(back, lambda: _wrote(tensor)))


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send `tensor` to rank `dst` (blocks until the buffer may be reused)."""
    c = _comm(group)
    c.Send(_buffer(tensor)[0], dest=_peer(c, _dst(dst, group_dst), "destination"), tag=tag)


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into `tensor` from rank `src` (any rank if None); returns the sender's rank."""
    c = _comm(group)
    source = _recv_src(c, src, group_src)
    status = _STATE["mpi"].Status()
    a, back = _buffer(tensor)
    c.Recv(a, source=source, tag=tag, status=status)
    if back is not None:
        back()
    _wrote(tensor)
    return status.Get_source()


# -- picklable objects -----------------------------------------------------------------------
def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Rank `src`'s objects into `object_list` (in place) on every rank."""
    c = _comm(group)
    src = 0 if src is None and group_src is None else _src(src, group_src)
    objs = c.bcast(list(object_list) if c.Get_rank() == src else None, root=src)
    object_list[:] = objs


def all_gather_object(object_list, obj, group=None):
    """Every rank's `obj` into `object_list[rank]`, on every rank."""
    c = _comm(group)
    _check_world(object_list, c.Get_size(), "object_list")
    object_list[:] = c.allgather(obj)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    c = _comm(group)
    dst = 0 if dst is None and group_dst is None else _dst(dst, group_dst)
    out = c.gather(obj, root=dst)
    if c.Get_rank() == dst:
        object_gather_list[:] = out


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):  # fmt: skip
    c = _comm(group)
    src = 0 if src is None and group_src is None else _src(src, group_src)
    mine = c.scatter(scatter_object_input_list if c.Get_rank() == src else None, root=src)
    scatter_object_output_list[0] = mine


__all__ = [
    "Backend", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor", "all_gather_object",
    "all_reduce", "barrier", "broadcast", "broadcast_object_list", "destroy_process_group",
    "gather", "gather_object", "get_backend", "get_rank", "get_world_size",
    "init_process_group", "irecv", "is_available", "is_initialized", "is_mpi_available",
    "isend", "recv", "reduce", "reduce_scatter_tensor", "scatter", "scatter_object_list",
    "send",
]  # fmt: skip

from .. import _docs  # noqa: E402

_docs.attach(__name__, "distributed")
