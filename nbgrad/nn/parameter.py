"""`nn.Parameter`: a leaf Tensor that a Module registers as one of its parameters.

A Parameter *is* a Tensor (a subclass with no extra state), so every op accepts it; the
fast paths of the hot ops test `type(x) is Tensor` and send Parameters through the
general path, which gives the same results. Results of ops on Parameters are plain
Tensors, as in PyTorch.
"""

import numpy as np

from nbgrad._array import contig

from .. import _lowp
from .. import serialization as _serialization
from ..tape import MAXD, too_many_dims
from ..tensor import TENSOR_TYPES, Tensor


def _array_of(data):
    if data is None:
        return np.empty(0, np.float32)
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, np.ndarray):
        if data.ndim > MAXD:
            too_many_dims(data.ndim)
        return contig(data)
    raise TypeError(
        f"Parameter(): argument 'data' must be Tensor or None, not {type(data).__name__}"
    )


class Parameter(Tensor):
    """A Tensor that is a module parameter: `requires_grad=True` by default, listed by
    `Module.parameters()` when assigned as a module attribute. Shares memory with `data`."""

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        arr = _array_of(data)
        if requires_grad and arr.dtype.kind != "f":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        if type(data) in _lowp.BASE and cls in _lowp.CLASS:  # a half tensor: a half Parameter
            cls = _lowp.CLASS[cls][data._dt]
        if type(arr) is not np.ndarray:  # a CUDA tensor's data: the CUDA twin of cls
            from ..ops.cuda.tensor import _cuda_class

            cls = _cuda_class(cls)
        p = object.__new__(cls)
        p._data = arr
        p._slot = -1
        p._rg = bool(requires_grad)
        p._aux = None
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        p = type(self)(Tensor._make(self._data.copy(), -1, False), self._rg)  # half stays half
        memo[id(self)] = p
        if self._grad is not None:
            p._grad = type(self._grad)._make(self._grad._data.copy(), -1, False)  # same device
        return p


def _copy_tensor(t, memo):
    """A deep copy of a Tensor that owns its own (unrecorded) storage and no tape slot."""
    if isinstance(t, Parameter):
        return t.__deepcopy__(memo)
    c = type(t)._make(t._data.copy(), -1, False)  # a CudaTensor stays one
    c._rg = t._rg if t._leaf else False
    memo[id(t)] = c
    return c


_lowp.register(Parameter)  # HalfParameter, BFloat16Parameter (nbgrad/_lowp.py)
TENSOR_TYPES.add(Parameter)  # Parameters take the elementwise fast paths too
_serialization.PARAMETER.append(Parameter)  # saved and loaded as parameters
