"""Docstrings of `nbgrad.distributed` (keys are the names).

The examples run in a world of one process (no MPI launcher), where every collective
returns its input; their outputs follow from that, not from PyTorch, which needs a
rendezvous address even for one process.
"""

DOCS = {
    "Backend": """The names of the backends: `Backend.MPI` is `"mpi"`.

    Example::

        >>> torch.distributed.Backend.MPI
        'mpi'
    """,
    "ReduceOp": """The reductions of `all_reduce`, `reduce` and `reduce_scatter_tensor`: `SUM`,
    `AVG`, `PRODUCT`, `MIN`, `MAX`.

    Example::

        >>> torch.distributed.ReduceOp.SUM
        <ReduceOp.SUM: 'SUM'>
    """,
    "Work": """The handle of an asynchronous operation (`async_op=True`, `isend`, `irecv`): `wait()`
    blocks until it is done (and its result is in the tensors); `is_completed()` polls.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> t = torch.tensor([1., 2.])
        >>> work = dist.all_reduce(t, async_op=True)
        >>> work.wait()
        True
        >>> t
        tensor([1., 2.])
        >>> dist.destroy_process_group()
    """,
    "all_gather": """Gathers every process's `tensor` into `tensor_list[rank]`, on every process.

    Args:
        tensor_list (list of Tensor): world-size tensors of tensor's shape, written.
        tensor (Tensor): this process's contribution.
        group (ProcessGroup, optional): accepted; the world is the only group.
        async_op (bool): return a `Work` handle instead of waiting. Default: False.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> out = [torch.zeros(2)]
        >>> dist.all_gather(out, torch.tensor([1., 2.]))
        >>> out
        [tensor([1., 2.])]
        >>> dist.destroy_process_group()
    """,
    "all_gather_into_tensor": """Gathers every process's `input_tensor` into `output_tensor`,
    concatenated (or stacked) by rank.

    Args:
        output_tensor (Tensor): world size times input's size along dimension 0 (or a
            new leading dimension of world size).
        input_tensor (Tensor): this process's contribution.
        group (ProcessGroup, optional): accepted; the world is the only group.
        async_op (bool): return a `Work` handle instead of waiting. Default: False.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> out = torch.zeros(2)
        >>> dist.all_gather_into_tensor(out, torch.tensor([1., 2.]))
        >>> out
        tensor([1., 2.])
        >>> dist.destroy_process_group()
    """,
    "all_gather_object": """Gathers every process's picklable `obj` into `object_list[rank]`, on
    every process.

    Args:
        object_list (list): world-size entries, written.
        obj: this process's object (picklable).
        group (ProcessGroup, optional): accepted; the world is the only group.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> out = [None]
        >>> dist.all_gather_object(out, {"rank": dist.get_rank()})
        >>> out
        [{'rank': 0}]
        >>> dist.destroy_process_group()
    """,
    "all_reduce": """Reduces `tensor` over all processes, in place on every process.

    Args:
        tensor (Tensor): the input and the result.
        op (ReduceOp): the reduction. Default: `ReduceOp.SUM`.
        group (ProcessGroup, optional): accepted; the world is the only group.
        async_op (bool): return a `Work` handle instead of waiting. Default: False.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> t = torch.tensor([1., 2.])
        >>> dist.all_reduce(t, op=dist.ReduceOp.SUM)
        >>> t
        tensor([1., 2.])
        >>> dist.destroy_process_group()
    """,
    "barrier": """Blocks until every process of the group has reached the barrier.

    Args:
        group (ProcessGroup, optional): accepted; the world is the only group.
        async_op (bool): return a `Work` handle instead of waiting. Default: False.
        device_ids: accepted.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> dist.barrier()
        >>> dist.destroy_process_group()
    """,
    "broadcast": """Copies rank `src`'s `tensor` into `tensor` on every process.

    Args:
        tensor (Tensor): the data on src, the destination elsewhere.
        src (int): the source rank.
        group (ProcessGroup, optional): accepted; the world is the only group.
        async_op (bool): return a `Work` handle instead of waiting. Default: False.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> t = torch.tensor([1., 2.])
        >>> dist.broadcast(t, src=0)
        >>> t
        tensor([1., 2.])
        >>> dist.destroy_process_group()
    """,
    "broadcast_object_list": """Copies rank `src`'s picklable objects into `object_list`, in place,
    on every process.

    Args:
        object_list (list): the objects on src, overwritten elsewhere.
        src (int): the source rank.
        group (ProcessGroup, optional): accepted; the world is the only group.
        device: accepted.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> objs = [{"lr": 0.1}]
        >>> dist.broadcast_object_list(objs, src=0)
        >>> objs
        [{'lr': 0.1}]
        >>> dist.destroy_process_group()
    """,
    "destroy_process_group": """Leaves the process group (MPI itself is finalized when the process
    exits).

    Args:
        group (ProcessGroup, optional): accepted; the world is the only group.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> dist.get_world_size()
        1
        >>> dist.destroy_process_group()
        >>> dist.is_initialized()
        False
    """,
    "gather": """Gathers every process's `tensor` into `gather_list` on rank `dst`.

    Args:
        tensor (Tensor): this process's contribution.
        gather_list (list of Tensor, optional): on dst, world-size tensors to write.
        dst (int): the destination rank.
        group (ProcessGroup, optional): accepted; the world is the only group.
        async_op (bool): return a `Work` handle instead of waiting. Default: False.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> out = [torch.zeros(1)]
        >>> dist.gather(torch.tensor([5.]), out, dst=0)
        >>> out
        [tensor([5.])]
        >>> dist.destroy_process_group()
    """,
    "gather_object": """Gathers every process's picklable `obj` into `object_gather_list` on rank
    `dst`.

    Args:
        obj: this process's object.
        object_gather_list (list, optional): on dst, world-size entries to write.
        dst (int): the destination rank.
        group (ProcessGroup, optional): accepted; the world is the only group.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> out = [None]
        >>> dist.gather_object("hello", out, dst=0)
        >>> out
        ['hello']
        >>> dist.destroy_process_group()
    """,
    "get_backend": """Returns the backend of the group: `"mpi"`.

    Args:
        group (ProcessGroup, optional): accepted; the world is the only group.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> dist.get_backend()
        'mpi'
        >>> dist.destroy_process_group()
    """,
    "get_rank": """Returns this process's rank in the group, from 0 to `get_world_size() - 1`.

    Args:
        group (ProcessGroup, optional): accepted; the world is the only group.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> dist.get_rank()
        0
        >>> dist.destroy_process_group()
    """,
    "get_world_size": """Returns the number of processes in the group.

    Args:
        group (ProcessGroup, optional): accepted; the world is the only group.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> dist.get_world_size()
        1
        >>> dist.destroy_process_group()
    """,
    "init_process_group": """Joins the world of processes started by the MPI launcher (`mpiexec -n
    N`); a process started without one is a world of one.

    Args:
        backend (str, optional): `"mpi"` (the default, and the only backend).
        init_method, timeout, world_size, rank, store, group_name, pg_options, device_id:
            accepted; rank and world size come from the launcher.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> dist.is_initialized()
        True
        >>> dist.destroy_process_group()
    """,
    "irecv": """Starts receiving into `tensor` from rank `src`; returns a `Work` handle to `wait()`
    on.

    Args:
        tensor (Tensor): the data (written).
        src (int, optional): the source rank.
        group (ProcessGroup, optional): accepted; the world is the only group.
        tag (int): matches sends with receives. Default: 0.

    Point-to-point messages need a second process (`mpiexec -n 2`)::

        if dist.get_rank() == 0:
            dist.send(torch.tensor([1., 2.]), dst=1)
        else:
            t = torch.zeros(2)
            dist.recv(t, src=0)  # t is tensor([1., 2.])
    """,
    "is_available": """Returns True: the collectives work (on MPI, or in a world of one without
    mpi4py).

    Example::

        >>> torch.distributed.is_available()
        True
    """,
    "is_initialized": """Returns True if `init_process_group` has been called (and not undone).

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> dist.is_initialized()
        True
        >>> dist.destroy_process_group()
    """,
    "is_mpi_available": """Returns True if mpi4py can be imported (so that a launcher can start a
    world of more than one process).

    Example::

        >>> isinstance(torch.distributed.is_mpi_available(), bool)
        True
    """,
    "isend": """Starts sending `tensor` to rank `dst`; returns a `Work` handle to `wait()` on.

    Args:
        tensor (Tensor): the data (sent).
        dst (int): the destination rank.
        group (ProcessGroup, optional): accepted; the world is the only group.
        tag (int): matches sends with receives. Default: 0.

    Point-to-point messages need a second process (`mpiexec -n 2`)::

        if dist.get_rank() == 0:
            dist.send(torch.tensor([1., 2.]), dst=1)
        else:
            t = torch.zeros(2)
            dist.recv(t, src=0)  # t is tensor([1., 2.])
    """,
    "recv": """Receives into `tensor` from rank `src` (any rank if None); returns the sender's rank.

    Args:
        tensor (Tensor): the data (written).
        src (int, optional): the source rank.
        group (ProcessGroup, optional): accepted; the world is the only group.
        tag (int): matches sends with receives. Default: 0.

    Point-to-point messages need a second process (`mpiexec -n 2`)::

        if dist.get_rank() == 0:
            dist.send(torch.tensor([1., 2.]), dst=1)
        else:
            t = torch.zeros(2)
            dist.recv(t, src=0)  # t is tensor([1., 2.])
    """,
    "reduce": """Reduces `tensor` over all processes into `tensor` on rank `dst` only.

    Args:
        tensor (Tensor): the input (and, on dst, the result).
        dst (int): the destination rank.
        op (ReduceOp): the reduction. Default: `ReduceOp.SUM`.
        group (ProcessGroup, optional): accepted; the world is the only group.
        async_op (bool): return a `Work` handle instead of waiting. Default: False.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> t = torch.tensor([3.])
        >>> dist.reduce(t, dst=0, op=dist.ReduceOp.MAX)
        >>> t
        tensor([3.])
        >>> dist.destroy_process_group()
    """,
    "reduce_scatter_tensor": """Reduces `input` over all processes and gives each rank its chunk
    (split along dimension 0 into world-size chunks) in `output`.

    Args:
        output (Tensor): this rank's chunk, written.
        input (Tensor): world size times output's size along dimension 0.
        op (ReduceOp): the reduction. Default: `ReduceOp.SUM`.
        group (ProcessGroup, optional): accepted; the world is the only group.
        async_op (bool): return a `Work` handle instead of waiting. Default: False.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> out = torch.zeros(2)
        >>> dist.reduce_scatter_tensor(out, torch.tensor([1., 2.]))
        >>> out
        tensor([1., 2.])
        >>> dist.destroy_process_group()
    """,
    "scatter": """Sends `scatter_list[rank]` of rank `src` into `tensor` on each process.

    Args:
        tensor (Tensor): the destination.
        scatter_list (list of Tensor, optional): on src, one tensor per rank.
        src (int): the source rank.
        group (ProcessGroup, optional): accepted; the world is the only group.
        async_op (bool): return a `Work` handle instead of waiting. Default: False.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> t = torch.zeros(2)
        >>> dist.scatter(t, [torch.tensor([7., 8.])], src=0)
        >>> t
        tensor([7., 8.])
        >>> dist.destroy_process_group()
    """,
    "scatter_object_list": """Sends `scatter_object_input_list[rank]` of rank `src` into
    `scatter_object_output_list[0]` on each process.

    Args:
        scatter_object_output_list (list): a list of one entry, written.
        scatter_object_input_list (list, optional): on src, one object per rank.
        src (int): the source rank.
        group (ProcessGroup, optional): accepted; the world is the only group.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> out = [None]
        >>> dist.scatter_object_list(out, ["shard-0"], src=0)
        >>> out
        ['shard-0']
        >>> dist.destroy_process_group()
    """,
    "send": """Sends `tensor` to rank `dst` (blocks until the buffer may be reused).

    Args:
        tensor (Tensor): the data (sent).
        dst (int): the destination rank.
        group (ProcessGroup, optional): accepted; the world is the only group.
        tag (int): matches sends with receives. Default: 0.

    Point-to-point messages need a second process (`mpiexec -n 2`)::

        if dist.get_rank() == 0:
            dist.send(torch.tensor([1., 2.]), dst=1)
        else:
            t = torch.zeros(2)
            dist.recv(t, src=0)  # t is tensor([1., 2.])
    """,
}
