"""The CUDA backend (numba.cuda): see docs/cuda.md. Nothing here imports numba.cuda at
import time; `runtime.cuda()` does on first use."""

import numpy as _np

if not hasattr(_np, "row_stack"):
    # numba-cuda (<= 0.30.4) overloads np.row_stack when its typing registries load, at the
    # first kernel compile; NumPy 2.5 removed that alias of vstack, so every CUDA compile
    # failed with AttributeError. Restore the alias before any kernel here compiles.
    _np.row_stack = _np.vstack
