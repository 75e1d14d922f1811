"""Matrix products for forwards, through the same BLAS the compiled VJPs use.

NumPy and SciPy each bundle an OpenBLAS with its own thread pool; calling both (NumPy's
matmul in forwards, Numba's np.dot, which is SciPy's BLAS, in VJPs) leaves two pools
spinning against each other on a small machine. Every nbgrad product goes through here.
"""

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def mm_into(a, b, out):
    """out = a @ b for 2-D arrays (C or F layout, e.g. a transposed weight)."""
    np.dot(a, b, out)


@njit(cache=True, error_model="numpy")
def matmul_into(a, b, out, B, m, k, n, ab, bb):
    """out[i] = a[i or 0] @ b[i or 0] over a batch of B, for flat C-order arrays holding
    (B or 1, m, k), (B or 1, k, n) and (B, m, n). Callers pass flat views and int flags
    (as compiled programs do): one compiled signature per dtype, where N-D operands would
    compile one per combination of ranks."""
    a3 = a.reshape((B if ab else 1, m, k))
    b3 = b.reshape((B if bb else 1, k, n))
    o3 = out.reshape((B, m, n))
    for i in range(B):
        np.dot(a3[i if ab else 0], b3[i if bb else 0], o3[i])
