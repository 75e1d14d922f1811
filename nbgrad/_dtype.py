"""Dtype objects (`nbgrad.float32`, ...) and PyTorch's type-promotion rules."""

import numpy as np


class dtype:
    """A tensor element type; compares equal only to itself, as torch.dtype does."""

    __slots__ = ("name", "np", "itemsize", "is_floating_point", "code", "is_signed")

    def __init__(self, name, np_type, code, itemsize=None):
        self.name = name
        self.np = np.dtype(np_type)  # the storage's NumPy type
        self.itemsize = itemsize or self.np.itemsize
        self.is_floating_point = self.np.kind == "f"
        self.is_signed = self.np.kind in "fi"
        self.code = code  # float dtypes: the code the tape and kernels use

    def __repr__(self):
        return f"nbgrad.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


float32 = dtype("float32", np.float32, 0)
float64 = dtype("float64", np.float64, 1)
int64 = dtype("int64", np.int64, -1)
int32 = dtype("int32", np.int32, -1)
bool_ = dtype("bool", np.bool_, -1)
# storage types (nbgrad/_lowp.py): float32 arrays holding values of the smaller type, so
# the tape and every kernel see float32 (code 0)
float16 = dtype("float16", np.float32, 0, itemsize=2)
bfloat16 = dtype("bfloat16", np.float32, 0, itemsize=2)
half = float16
float_ = float32  # torch.float
double = float64
long = int64
int_ = int32  # torch.int

_ALL = (float32, float64, int64, int32, bool_)
_FROM_NP = {d.np: d for d in _ALL}
_BY_CODE = (float32, float64)
_default = [float32]


LOWP = (float16, bfloat16)


def _by_name(name):
    return {d.name: d for d in (*_ALL, *LOWP)}[name]


def from_numpy_dtype(npdt):
    """The nbgrad dtype of a NumPy dtype, or TypeError as torch.from_numpy gives."""
    npdt = np.dtype(npdt)
    if npdt == np.float16:
        return float16
    try:
        return _FROM_NP[npdt]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{npdt.name}. The only supported "
            "types are: float64, float32, float16, int64, int32, and bool."
        ) from None


def as_dtype(d):
    """Accept an nbgrad dtype, a NumPy dtype or a Python type, like torch's factories."""
    if d is None or isinstance(d, dtype):
        return d
    if d is builtins_float:
        return float64
    if d is builtins_int:
        return int64
    if d is builtins_bool:
        return bool_
    return from_numpy_dtype(d)


builtins_float, builtins_int, builtins_bool = float, int, bool


def get_default_dtype():
    return _default[0]


def set_default_dtype(d):
    if d not in (float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


_RANK = {bool_: 0, int32: 1, int64: 2, float16: 3, bfloat16: 3, float32: 4, float64: 5}


def promote_types(a, b):
    """torch.promote_types for the dtypes nbgrad has (float16 with bfloat16 gives float32)."""
    if a is not b and _RANK[a] == _RANK[b] == 3:
        return float32
    return a if _RANK[a] >= _RANK[b] else b


def _category(d):
    return 2 if d.is_floating_point else (0 if d is bool_ else 1)


def result_type(tensor1, tensor2):
    """torch.result_type: the dtype of an arithmetic op on `tensor1` and `tensor2` (tensors or
    Python numbers). Within a category (bool < integer < floating), a tensor with dimensions
    outranks a zero-dim tensor, which outranks a number; a higher category always wins.

    Args:
        tensor1 (Tensor or Number): an operand.
        tensor2 (Tensor or Number): the other operand.

    Example::

        >>> torch.result_type(torch.tensor([1, 2], dtype=torch.int32), 1.0)
        nbgrad.float32
        >>> torch.result_type(torch.ones(2, dtype=torch.float16), torch.tensor(1.0))
        nbgrad.float16
    """
    return _result_dtype((tensor1, tensor2))


def _result_dtype(operands):
    """PyTorch's promotion over tensors and numbers (see `result_type`)."""
    best = [None, None, None]  # per priority: dimensioned tensors, zero-dim tensors, numbers
    for x in operands:
        if isinstance(x, builtins_bool):
            d, k = bool_, 2
        elif isinstance(x, builtins_int):
            d, k = int64, 2
        elif isinstance(x, builtins_float):
            d, k = get_default_dtype(), 2
        elif hasattr(x, "dtype") and isinstance(x.dtype, dtype):
            d, k = x.dtype, 0 if x.dim() else 1
        else:
            raise TypeError(
                f"result_type() received an invalid combination of arguments - got "
                f"({type(x).__name__})"
            )
        best[k] = d if best[k] is None else promote_types(best[k], d)
    out = None
    for d in best:  # a lower priority counts only where its category is higher
        if d is not None and (out is None or _category(d) > _category(out)):
            out = d
    return out


def result_type_scalar(t, scalar):
    """Dtype of `tensor op python_scalar` (PyTorch: the tensor's dtype wins within a category)."""
    if isinstance(scalar, builtins_bool):
        return t
    if isinstance(scalar, builtins_float):
        return t if t.is_floating_point else get_default_dtype()
    return t if t is not bool_ else int64


_SCALAR_NAMES = {
    "float32": "Float",
    "float64": "Double",
    "int64": "Long",
    "int32": "Int",
    "bool": "Bool",
    "float16": "Half",
    "bfloat16": "BFloat16",
}


def scalar_name(d):
    """PyTorch's scalar-type name of a dtype, as in its error messages ("Float", "Long")."""
    return _SCALAR_NAMES.get(d.name, d.name.capitalize())


_FINFO = {  # bits, eps, max, tiny (smallest normal), resolution
    "float16": (16, 2.0**-10, 65504.0, 2.0**-14, 0.001),
    "bfloat16": (16, 2.0**-7, 3.3895313892515355e38, 1.1754943508222875e-38, 0.01),
}


class finfo:
    """The numerical properties of a floating dtype, as torch.finfo.

    Args:
        type (nbgrad.dtype, optional): a floating dtype. Default: the default dtype.

    Example::

        >>> torch.finfo(torch.float16).max
        65504.0
        >>> torch.finfo(torch.bfloat16).eps
        0.0078125
    """

    def __init__(self, type=None):  # noqa: A002
        d = get_default_dtype() if type is None else as_dtype(type)
        if not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")  # fmt: skip
        if d.name in _FINFO:
            self.bits, self.eps, self.max, self.tiny, self.resolution = _FINFO[d.name]
        else:
            f = np.finfo(d.np)
            self.bits, self.eps, self.max = f.bits, float(f.eps), float(f.max)
            self.tiny, self.resolution = float(f.tiny), float(f.resolution)
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.dtype = d.name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")  # fmt: skip


class iinfo:
    """The numerical properties of an integer dtype, as torch.iinfo.

    Args:
        type (nbgrad.dtype): an integer or bool dtype.

    Example::

        >>> torch.iinfo(torch.int32).max
        2147483647
    """

    def __init__(self, type):  # noqa: A002
        d = as_dtype(type)
        if d.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")  # fmt: skip
        if d is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        i = np.iinfo(d.np)
        self.bits, self.min, self.max = i.bits, int(i.min), int(i.max)
        self.dtype = d.name

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
