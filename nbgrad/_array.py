"""Array helpers shared by the op modules."""

import numpy as np


def contig(a, dtype=None):
    """`a` as a C-contiguous array, without copying when it already is one.

    Unlike np.ascontiguousarray this keeps 0-d arrays 0-d (tensor(3.) has shape [])."""
    a = np.asarray(a, dtype=dtype)
    return a if a.flags.c_contiguous else np.array(a, order="C")


def check_writable(a):
    """Refuse a write into read-only memory (a tensor over `np.frombuffer(bytes)` or a
    read-only mmap) with the error every NumPy write raises, for writers that NumPy does
    not see: compiled kernels writing through an address."""
    if not a.flags.writeable:
        raise ValueError("assignment destination is read-only")
