"""Tensor factories: tensor, from_numpy, zeros, ones, full, eye, arange, rand, randn, ..."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np

from nbgrad._array import contig

from . import _dtype
from ._generator import numpy_rng
from .device import device as _device
from .tensor import Number, Tensor

Device: TypeAlias = "str | _device | None"

_rng = [np.random.default_rng()]


def manual_seed(seed: int) -> None:
    """Seeds nbgrad's random number generator (used by `rand`, `randn`, `randint`,
    `randperm`, dropout and `nn.init`, on both devices).

    The distributions are PyTorch's; the numbers drawn differ from PyTorch's for the same
    seed (nbgrad draws with NumPy's generator).

    Args:
        seed (int): the seed.

    Example::

        >>> torch.manual_seed(0)
        >>> a = torch.randn(3)
        >>> torch.manual_seed(0)
        >>> torch.equal(a, torch.randn(3))
        True
    """
    _rng[0] = np.random.default_rng(int(seed))


def seed():
    s = int(np.random.SeedSequence().entropy % (2**63))
    manual_seed(s)
    return s


def _check_device(device):
    """True for a CUDA device (validated), False for the CPU or None."""
    if device is None:
        return False
    from .device import device as Device

    d = Device(device) if not isinstance(device, Device) else device
    if d.type == "cuda":
        from .ops.cuda.tensor import check_device

        check_device(d)
        return True
    return False


def _finish(arr, requires_grad, device=None, dtype=None):
    if dtype in _dtype.LOWP:  # float32 storage holding dtype's values (nbgrad/_lowp.py)
        if _check_device(device):
            raise TypeError(f"nbgrad's {dtype.name} tensors live on the CPU")
        from ._lowp import tag

        t = tag(Tensor._make(contig(arr), -1, False), dtype)
        return t.requires_grad_(True) if requires_grad else t
    if _check_device(device):  # built on the host, then copied (one transfer)
        from .ops.cuda.tensor import from_host

        return from_host(contig(arr), requires_grad)
    arr = contig(arr)
    t = Tensor._make(arr, -1, False)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _infer_dtype(data):
    """PyTorch's inference: Python floats -> default dtype, ints -> int64, bools -> bool."""
    flat = data
    while isinstance(flat, (list, tuple)) and flat:
        flat = flat[0]
    kinds = set()

    def walk(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        elif isinstance(x, Tensor):
            kinds.add(x._data.dtype.kind)
        elif isinstance(x, np.floating):
            kinds.add(x.dtype.char)  # NumPy scalars keep their precision, as in PyTorch
        elif isinstance(x, bool | np.bool_):
            kinds.add("b")
        elif isinstance(x, numbers.Integral):
            kinds.add("i")
        elif isinstance(x, numbers.Real):
            kinds.add("f")
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")

    walk(data)
    if "d" in kinds:
        return _dtype.float64
    if "f" in kinds:
        return _dtype.get_default_dtype()
    if "i" in kinds:
        return _dtype.int64
    if "b" in kinds:
        return _dtype.bool_
    return _dtype.get_default_dtype()


def tensor(
    data: Any,
    dtype: _dtype.dtype | None = None,
    device: Device = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Constructs a tensor with no autograd history by copying `data`.

    Args:
        data (array_like): a number, a (nested) list or tuple, a NumPy array or a tensor.
        dtype (nbgrad.dtype, optional): the dtype; inferred from `data` if None (Python
            floats give the default dtype, float32; ints give int64; bools give bool).
        device (str or nbgrad.device, optional): `"cpu"` (default) or `"cuda"`.
        requires_grad (bool): whether autograd records operations on it. Default: False.

    Example::

        >>> torch.tensor([1, 2])
        tensor([1, 2])
        >>> torch.tensor([[1., 2.]], requires_grad=True)
        tensor([[1., 2.]], requires_grad=True)
        >>> torch.tensor(3.5, dtype=torch.float64)
        tensor(3.5000, dtype=nbgrad.float64)
    """
    dtype = _dtype.as_dtype(dtype)
    if isinstance(data, Tensor) and data.is_cuda:  # a copy, on its device unless told
        t = data.detach().to(device=device or data.device, dtype=dtype, copy=True)
        if requires_grad:
            t.requires_grad_(True)
        return t
    if isinstance(data, Tensor):
        arr = data._data.copy()
        dtype = dtype or data.dtype
    elif isinstance(data, np.ndarray):
        arr = np.array(data, copy=True)
        if dtype is None:
            dtype = _dtype.from_numpy_dtype(arr.dtype)
    elif isinstance(data, np.generic):
        arr = np.array(data)
        if dtype is None:
            dtype = _dtype.from_numpy_dtype(arr.dtype)
    else:
        if dtype is None:
            dtype = _infer_dtype(data)

        def unwrap(x):
            if isinstance(x, Tensor):
                return x._data.tolist()
            if isinstance(x, (list, tuple)):
                return [unwrap(y) for y in x]
            return x

        try:
            arr = np.array(unwrap(data), dtype=dtype.np)
        except ValueError as e:
            raise ValueError(f"expected sequence of equal-length lists: {e}") from None
    if dtype is not None and arr.dtype != dtype.np:
        arr = arr.astype(dtype.np)
    if requires_grad and arr.dtype.kind != "f":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return _finish(arr, requires_grad, device, _dtype.as_dtype(dtype))


def as_tensor(data: Any, dtype: _dtype.dtype | None = None, device: Device = None) -> Tensor:
    if isinstance(data, Tensor) and (dtype is None or data.dtype is _dtype.as_dtype(dtype)):
        return data
    if isinstance(data, np.ndarray) and dtype is None:
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(arr: np.ndarray) -> Tensor:
    """Share memory with a C-contiguous array (others are copied: nbgrad needs contiguity)."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    if _dtype.from_numpy_dtype(arr.dtype) is _dtype.float16:
        from ._lowp import from_array

        return from_array(arr)  # a copy: nbgrad keeps half values in float32
    return Tensor._make(contig(arr), -1, False)


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)):
            raise TypeError(
                f"zeros(): argument 'size' must be tuple of ints, but found element of type "
                f"{type(s).__name__}"
            )
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    return tuple(int(s) for s in size)


def _dt(dtype):
    return (_dtype.as_dtype(dtype) or _dtype.get_default_dtype()).np


def zeros(
    *size: Any,
    dtype: _dtype.dtype | None = None,
    device: Device = None,
    requires_grad: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    """Returns a tensor filled with 0 of shape `size`.

    Args:
        *size (ints or a tuple of ints): the shape.
        dtype (nbgrad.dtype, optional): default: the default dtype (float32).
        device (str or nbgrad.device, optional): `"cpu"` (default) or `"cuda"`.
        requires_grad (bool): whether autograd records operations on it. Default: False.

    Example::

        >>> torch.zeros(2, 3)
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
        >>> torch.zeros(2, dtype=torch.int64)
        tensor([0, 0])
    """
    return _finish(
        np.zeros(_shape(size), _dt(dtype)), requires_grad, device, _dtype.as_dtype(dtype)
    )


def ones(
    *size: Any,
    dtype: _dtype.dtype | None = None,
    device: Device = None,
    requires_grad: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    return _finish(np.ones(_shape(size), _dt(dtype)), requires_grad, device, _dtype.as_dtype(dtype))


def empty(
    *size: Any,
    dtype: _dtype.dtype | None = None,
    device: Device = None,
    requires_grad: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    return _finish(
        np.empty(_shape(size), _dt(dtype)), requires_grad, device, _dtype.as_dtype(dtype)
    )


def full(
    size: Sequence[int],
    fill_value: Number,
    dtype: _dtype.dtype | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = _dtype.bool_
        elif isinstance(fill_value, numbers.Integral):
            dtype = _dtype.int64
    return _finish(
        np.full(_shape((size,)), fill_value, _dt(dtype)),
        requires_grad,
        device,
        _dtype.as_dtype(dtype),
    )


def _like_device(t, device):
    return t.device if device is None else device


def _like(t, dtype):
    return (_dtype.as_dtype(dtype) or t.dtype).np


def zeros_like(
    t: Tensor, dtype: _dtype.dtype | None = None, device: Device = None, requires_grad: bool = False
) -> Tensor:
    return _finish(
        np.zeros(t._data.shape, _like(t, dtype)),
        requires_grad,
        _like_device(t, device),
        _dtype.as_dtype(dtype) or t.dtype,
    )


def ones_like(
    t: Tensor, dtype: _dtype.dtype | None = None, device: Device = None, requires_grad: bool = False
) -> Tensor:
    return _finish(
        np.ones(t._data.shape, _like(t, dtype)),
        requires_grad,
        _like_device(t, device),
        _dtype.as_dtype(dtype) or t.dtype,
    )


def empty_like(
    t: Tensor, dtype: _dtype.dtype | None = None, device: Device = None, requires_grad: bool = False
) -> Tensor:
    return _finish(
        np.empty(t._data.shape, _like(t, dtype)),
        requires_grad,
        _like_device(t, device),
        _dtype.as_dtype(dtype) or t.dtype,
    )


def full_like(
    t: Tensor,
    fill_value: Number,
    dtype: _dtype.dtype | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    return _finish(
        np.full(t._data.shape, fill_value, _like(t, dtype)),
        requires_grad,
        _like_device(t, device),
        _dtype.as_dtype(dtype) or t.dtype,
    )


def rand_like(
    t: Tensor, dtype: _dtype.dtype | None = None, device: Device = None, requires_grad: bool = False
) -> Tensor:
    return rand(
        *t._data.shape,
        dtype=dtype or t.dtype,
        device=_like_device(t, device),
        requires_grad=requires_grad,
    )


def randn_like(
    t: Tensor, dtype: _dtype.dtype | None = None, device: Device = None, requires_grad: bool = False
) -> Tensor:
    return randn(
        *t._data.shape,
        dtype=dtype or t.dtype,
        device=_like_device(t, device),
        requires_grad=requires_grad,
    )


def eye(
    n: int,
    m: int | None = None,
    dtype: _dtype.dtype | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    return _finish(
        np.eye(n, n if m is None else m, dtype=_dt(dtype)),
        requires_grad,
        device,
        _dtype.as_dtype(dtype),
    )


def arange(
    start: Number,
    end: Number | None = None,
    step: Number = 1,
    dtype: _dtype.dtype | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        ints = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = _dtype.int64 if ints else _dtype.get_default_dtype()
    return _finish(
        np.arange(start, end, step).astype(_dt(dtype)),
        requires_grad,
        device,
        _dtype.as_dtype(dtype),
    )


def linspace(
    start: Number,
    end: Number,
    steps: int,
    dtype: _dtype.dtype | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    return _finish(
        np.linspace(start, end, steps).astype(_dt(dtype)),
        requires_grad,
        device,
        _dtype.as_dtype(dtype),
    )


def rand(
    *size: Any,
    dtype: _dtype.dtype | None = None,
    device: Device = None,
    requires_grad: bool = False,
    generator: Any = None,
) -> Tensor:
    a = numpy_rng(generator).random(_shape(size), dtype=np.float64).astype(_dt(dtype))
    return _finish(a, requires_grad, device, _dtype.as_dtype(dtype))


def randn(
    *size: Any,
    dtype: _dtype.dtype | None = None,
    device: Device = None,
    requires_grad: bool = False,
    generator: Any = None,
) -> Tensor:
    """Returns a tensor of shape `size` drawn from the standard normal distribution N(0, 1).

    Draws from nbgrad's generator (seed it with `nbgrad.manual_seed`): the same
    distribution as PyTorch, different numbers.

    Args:
        *size (ints or a tuple of ints): the shape.
        dtype (nbgrad.dtype, optional): a floating dtype; default: the default dtype.
        device (str or nbgrad.device, optional): `"cpu"` (default) or `"cuda"`.
        requires_grad (bool): whether autograd records operations on it. Default: False.

    Example::

        >>> torch.manual_seed(0)
        >>> w = torch.randn(2, 3, requires_grad=True)
        >>> w.shape, w.dtype, w.requires_grad
        (nbgrad.Size([2, 3]), nbgrad.float32, True)
    """
    a = numpy_rng(generator).standard_normal(_shape(size)).astype(_dt(dtype))
    return _finish(a, requires_grad, device, _dtype.as_dtype(dtype))


def randint(
    low: int,
    high: int | Sequence[int] | None = None,
    size: Sequence[int] = (),
    dtype: _dtype.dtype | None = None,
    device: Device = None,
    requires_grad: bool = False,
    generator: Any = None,
) -> Tensor:
    if high is None:
        low, high = 0, low
    a = numpy_rng(generator).integers(low, high, size=_shape((size,)))
    return _finish(a.astype(_dt(dtype or _dtype.int64)), requires_grad, device)


def randperm(
    n: int,
    dtype: _dtype.dtype | None = None,
    device: Device = None,
    generator: Any = None,
) -> Tensor:
    return _finish(
        numpy_rng(generator).permutation(n).astype(_dt(dtype or _dtype.int64)), False, device
    )


def normal_(t: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    t._data[...] = _rng[0].normal(mean, std, t._data.shape)
    return t


def uniform_(t: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    t._data[...] = _rng[0].uniform(a, b, t._data.shape)
    return t


def legacy_new(dtype, args, device=None, any_dtype=False):
    """The legacy constructors (`nbgrad.Tensor`, `FloatTensor`, ...): a sequence or array is
    copied as data, ints or a Size give a tensor of that shape (uninitialised in PyTorch,
    zeros here), a tensor is returned as an alias of its storage."""
    from ._size import Size

    if not args:
        return _finish(np.zeros((0,), dtype.np), False, device)
    a = args[0]
    if len(args) == 1 and (isinstance(a, bool) or not isinstance(a, (Size, numbers.Integral))):
        if isinstance(a, Tensor):
            if not (any_dtype or a.dtype is dtype):
                opts = (
                    "device=cpu, layout=Strided, requires_grad=false (default), "
                    "pinned_memory=false (default), memory_format=(nullopt))"
                )
                raise TypeError(
                    f"expected TensorOptions(dtype={_C_NAME[dtype.name]}, {opts} (got "
                    f"TensorOptions(dtype={_C_NAME[a.dtype.name]}, {opts})"
                )
            return a.view_as(a) if a.requires_grad else a.detach()
        if isinstance(a, (list, tuple, np.ndarray)):
            return tensor(a, dtype=dtype, device=device)
        if isinstance(a, numbers.Number):
            raise TypeError(f"new(): data must be a sequence (got {type(a).__name__})")
        raise TypeError(f"new(): invalid data type '{type(a).__name__}'")
    size = args[0] if len(args) == 1 and isinstance(args[0], Size) else args
    for i, n in enumerate(size):
        if isinstance(n, bool) or not isinstance(n, numbers.Integral):
            raise TypeError(
                f"new(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                f'"type must be tuple of ints,but got {type(n).__name__}"'
            )
    return _finish(np.zeros(_shape(tuple(size)), dtype.np), False, device)


_C_NAME = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
           "bool": "bool"}  # fmt: skip


def _legacy(dtype, name):
    def ctor(*args, device=None):
        """Legacy constructor: FloatTensor([[1, 2]]) copies data, FloatTensor(2, 3) sizes."""
        return legacy_new(dtype, args, device)

    ctor.__name__ = name
    return ctor


FloatTensor = _legacy(_dtype.float32, "FloatTensor")
DoubleTensor = _legacy(_dtype.float64, "DoubleTensor")
LongTensor = _legacy(_dtype.int64, "LongTensor")
BoolTensor = _legacy(_dtype.bool_, "BoolTensor")
