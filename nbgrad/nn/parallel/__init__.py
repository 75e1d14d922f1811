"""nbgrad.nn.parallel: DistributedDataParallel (data parallelism over nbgrad.distributed)."""

from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
