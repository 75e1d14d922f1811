"""The window search behind max pooling (nbgrad/nn/_fn_conv.py): the position of each
window's maximum, found in one compiled pass (NumPy's argmax over a short last axis pays
a call per window). The pool reads the values with a recorded gather at these positions."""

import numpy as np
from numba import njit

from .._array import contig


@njit(cache=True, error_model="numpy")
def _window_argmax(w, arg, pos):
    n = w.shape[1]
    for r in range(w.shape[0]):
        best, a = w[r, 0], 0
        for j in range(1, n):
            c = w[r, j]
            if c > best or c != c:  # as PyTorch's pools: the first maximum, the last NaN
                best, a = c, j
        arg[r] = a
        pos[r] = r * n + a


def window_argmax(w):
    """For a 2-D float array of windows (one a row): the index of each row's first maximum
    (its last NaN if it has one, as PyTorch's max pools), and that element's flat position
    in w."""
    w = contig(w)
    arg = np.empty(w.shape[0], np.int64)
    pos = np.empty(w.shape[0], np.int64)
    _window_argmax(w, arg, pos)
    return arg, pos
