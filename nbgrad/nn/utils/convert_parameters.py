"""parameters_to_vector / vector_to_parameters."""

import numpy as np

from ...tensor import Tensor


def parameters_to_vector(parameters):
    """One flat tensor of all parameters (a copy, not recorded)."""
    arrays = [p._data.reshape(-1) for p in parameters]
    return Tensor._make(np.concatenate(arrays) if arrays else np.zeros(0, np.float32), -1, False)


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of `vec` into the parameters, in place."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    v = vec._data.reshape(-1)
    pos = 0
    for p in parameters:
        n = p._data.size
        p._data[...] = v[pos : pos + n].reshape(p._data.shape)
        p._version += 1
        pos += n
