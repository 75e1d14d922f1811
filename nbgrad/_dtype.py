"""Dtype objects (`nbgrad.float32`, ...) and PyTorch's type-promotion rules."""

import numpy as np


class dtype:
    """A tensor element type; compares equal only to itself, as torch.dtype does."""

    __slots__ = ("name", "np", "itemsize", "is_floating_point", "code")

    def __init__(self, name, np_type, code):
        self.name = name
        self.np = np.dtype(np_type)
        self.itemsize = self.np.itemsize
        self.is_floating_point = self.np.kind == "f"
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
float_ = float32  # torch.float
double = float64
long = int64
int_ = int32  # torch.int

_ALL = (float32, float64, int64, int32, bool_)
_FROM_NP = {d.np: d for d in _ALL}
_BY_CODE = (float32, float64)
_default = [float32]


def _by_name(name):
    return {d.name: d for d in _ALL}[name]


def from_numpy_dtype(npdt):
    """The nbgrad dtype of a NumPy dtype, or TypeError as torch.from_numpy gives."""
    try:
        return _FROM_NP[np.dtype(npdt)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(npdt).name}. The only supported "
            "types are: float64, float32, int64, int32, and bool."
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


_RANK = {bool_: 0, int32: 1, int64: 2, float32: 3, float64: 4}


def promote_types(a, b):
    """torch.promote_types for the dtypes nbgrad has."""
    return a if _RANK[a] >= _RANK[b] else b


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
}


def scalar_name(d):
    """PyTorch's scalar-type name of a dtype, as in its error messages ("Float", "Long")."""
    return _SCALAR_NAMES.get(d.name, d.name.capitalize())
