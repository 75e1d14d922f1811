"""PyTorch's default_collate and default_convert: samples -> batched Tensors."""

import collections.abc
import re

import numpy as np

_NP_STR = re.compile(r"[SaUO]")
_ERR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _tensor_type():
    from ...tensor import Tensor

    return Tensor


def _stack(tensors):
    from ... import stack

    return stack(tensors, 0)


def default_collate(batch):
    """Stack a list of samples into a batch: Tensors and NumPy arrays are stacked on a new
    first dimension, Python floats become a float64 Tensor and ints an int64 one; dicts,
    namedtuples, tuples and lists are collated field by field (tuples give lists, as in
    PyTorch); strings and bytes stay lists."""
    import nbgrad

    Tensor = _tensor_type()
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack(batch)
    if type(elem).__module__ == "numpy" and not isinstance(elem, (str, bytes)):
        if isinstance(elem, np.ndarray) or isinstance(elem, np.memmap):
            if _NP_STR.search(elem.dtype.str) is not None:
                raise TypeError(_ERR.format(elem.dtype))
            return nbgrad.from_numpy(np.stack(batch))
        if elem.shape == ():  # a NumPy scalar
            return nbgrad.as_tensor(np.array(batch))
    if isinstance(elem, float):
        return nbgrad.tensor(batch, dtype=nbgrad.float64)
    if isinstance(elem, int):
        return nbgrad.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        out = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(out) if type(elem) is not dict else out
        except TypeError:  # a mapping type that cannot be built from a dict
            return out
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        size = len(next(it))
        if not all(len(e) == size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(s) for s in transposed]
        try:
            return type(elem)([default_collate(s) for s in transposed])
        except TypeError:  # a sequence type that cannot be built from a list
            return [default_collate(s) for s in transposed]
    raise TypeError(_ERR.format(type(elem)))


def default_convert(data):
    """A sample as is, with NumPy arrays (and those inside containers) made Tensors: what a
    DataLoader with batch_size=None gives."""
    import nbgrad

    Tensor = _tensor_type()
    if isinstance(data, Tensor):
        return data
    if type(data).__module__ == "numpy" and not isinstance(data, (str, bytes)):
        if isinstance(data, np.ndarray) and _NP_STR.search(data.dtype.str) is not None:
            return data
        return nbgrad.as_tensor(np.asarray(data))  # arrays and NumPy scalars
    if isinstance(data, collections.abc.Mapping):
        out = {key: default_convert(data[key]) for key in data}
        return type(data)(out) if type(data) is not dict else out
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data
