"""Docstrings of `nbgrad.nn.parallel` (keys are the names)."""

DOCS = {
    "DistributedDataParallel": """Data-parallel training: wraps a module so that, in every process,
    `backward()` leaves the gradients averaged over the processes (all-reduced in buckets at the
    end of the backward pass; also in a step compiled with `nbgrad.compile`).

    Args:
        module (Module): the model (the same in every process; its parameters and buffers
            are broadcast from rank 0 at construction).
        device_ids, output_device, dim: accepted (CPU tensors only).
        broadcast_buffers (bool): copy rank 0's buffers before each forward. Default: True.
        process_group: accepted; the world is the only group.
        bucket_cap_mb (float, optional): the size of gradient buckets. Default: 25.
        find_unused_parameters (bool): allow parameters that get no gradient. Default: False.
        gradient_as_bucket_view (bool): make each `.grad` a view of its bucket's buffer
            after the all-reduce. Default: False.
        static_graph: accepted.

    Example::

        >>> dist = torch.distributed
        >>> dist.init_process_group()  # no MPI launcher: a world of one
        >>> model = nn.parallel.DistributedDataParallel(nn.Linear(2, 1))
        >>> model(torch.ones(4, 2)).sum().backward()
        >>> model.module.weight.grad
        tensor([[4., 4.]])
        >>> dist.destroy_process_group()
    """,
}
