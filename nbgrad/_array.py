"""Array helpers shared by the op modules."""

import numpy as np


def contig(a, dtype=None):
    """`a` as a C-contiguous array, without copying when it already is one.

    Unlike np.ascontiguousarray this keeps 0-d arrays 0-d (tensor(3.) has shape [])."""
    a = np.asarray(a, dtype=dtype)
    return a if a.flags.c_contiguous else np.array(a, order="C")
