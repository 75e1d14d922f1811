"""float16 and bfloat16 tensors: float32 storage holding values of the smaller type.

A half tensor is a Tensor whose class says its dtype (`HalfTensor`, `BFloat16Tensor`) and
whose array is float32, every element exactly a float16 (bfloat16) value. The tape, the
kernels and the gradient buffers therefore only ever see float32: a half tensor takes part
in autograd as a float32 value, and no op can read its memory as another type.

Each Tensor method of these classes runs Tensor's own method (in float32, as PyTorch
computes half ops) and rounds a floating result to the dtype PyTorch's promotion gives
(`_dtype._result_dtype`), in place in the result's fresh buffer, which is also the value
the tape saved: PyTorch's backward reads its rounded half output too. The gradient a half
leaf accumulates is rounded when read (`.grad`). Module-level functions (`nbgrad.add`,
`nn.functional`, so the layers too) are wrapped the same way (`keep_lowp_in`); the
elementwise fast functions are not (a wrapper would cost every float32 call a Python
frame): a half input takes their generic path (`ops/pointwise.unary`/`binary`), wrapped
instead.
"""

import functools
import types

import numpy as np

from . import _dtype
from .tensor import Tensor

_NOT_WRAPPED = {
    # metadata, storage access and conversions, written out below or dtype-independent
    "dtype", "shape", "size", "dim", "ndim", "numel", "nelement", "device", "is_cuda",
    "is_floating_point", "element_size", "is_contiguous", "requires_grad", "is_leaf",
    "grad", "grad_fn", "retain_grad", "retains_grad", "backward", "register_hook",
    "register_post_accumulate_grad_hook", "numpy", "item", "tolist", "data", "type",
    "float", "double", "half", "bfloat16", "long", "int", "bool", "to", "cpu", "cuda",
    "requires_grad_", "detach_", "data_ptr", "__init__", "__new__", "__del__",
    "__repr__", "__str__", "__format__", "__reduce_ex__", "__deepcopy__", "__len__",
    "__iter__", "__bool__", "__float__", "__int__", "__index__", "__hash__", "__array__",
    "__getattribute__", "__setattr__", "__init_subclass__", "__class_getitem__",
}  # fmt: skip


def round_to(arr, dt):
    """Round float32 `arr` in place to the nearest `dt` values (ties to even)."""
    if dt is _dtype.float16:
        with np.errstate(over="ignore"):  # beyond float16's range: inf, as in PyTorch
            np.copyto(arr, arr.astype(np.float16), casting="unsafe")
    else:
        arr[...] = from_bf16_bits(bf16_bits(arr))
    return arr


def round_stepped(params):
    """After an optimizer's step (computed in float32): each float16/bfloat16 parameter
    rounded to its dtype, as PyTorch's in-place update of a half parameter stores it."""
    for p in params:
        if type(p) in BASE:
            round_to(p._data, p._dt)


def bf16_bits(arr):
    """The bfloat16 bit patterns (uint16) of float32 `arr`, rounded to nearest even."""
    u = np.ascontiguousarray(arr, np.float32).view(np.uint32)
    r = (u + (np.uint32(0x7FFF) + ((u >> 16) & 1))) >> 16
    return np.where(np.isnan(arr), np.uint32(0x7FC0), r).astype(np.uint16)


def from_bf16_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


_SEEN = False  # a half tensor was made: the function wrappers look at their inputs


def tag(t, dt):
    """Make float32 tensor `t` (fresh, or already holding `dt` values) a `dt` tensor."""
    global _SEEN
    _SEEN = True
    round_to(t._data, dt)
    t.__class__ = CLASS[type(t)][dt]
    return t


def untag(t):
    """The class `t` would have as float32."""
    return BASE.get(type(t), type(t))


def _wrap(name, fn):
    def method(self, *args, **kwargs):
        out = fn(self, *args, **kwargs)
        if out is None:  # `x[i] = v` and other writes that return nothing: round what changed
            round_to(self._data, self._dt)
            return out
        dt = kwargs.get("dtype")
        dt = _dtype.as_dtype(dt) if dt is not None else _result(self, args)
        return _retag_all(out, dt) if dt in _dtype.LOWP else out

    method.__name__ = name
    method.__qualname__ = f"LowpTensor.{name}"
    method.__doc__ = fn.__doc__
    return method


def _retag_all(out, dt):
    """A result with its floating float32 tensors made `dt` tensors."""
    if isinstance(out, Tensor):
        return _retag(out, dt)
    if isinstance(out, tuple):  # (values, indices) and splits
        if hasattr(out, "_fields"):
            return type(out)(*(_retag(o, dt) for o in out))
        return tuple(_retag(o, dt) for o in out)
    if isinstance(out, list):
        return [_retag(o, dt) for o in out]
    return out


def _retag(o, dt):
    if type(o) not in CLASS or o._data.dtype != np.float32:
        return o  # indices, masks, float64 results of an explicit dtype
    return tag(o, dt)  # a fresh result, or this tensor written in place: rounded


def _result(self, args):
    ops = [self]
    for a in args:
        if isinstance(a, (list, tuple)):
            ops.extend(x for x in a if isinstance(x, Tensor))
        elif isinstance(a, Tensor) or (isinstance(a, (int, float)) and not isinstance(a, bool)):
            ops.append(a)
    return _dtype._result_dtype(ops)


class _Lowp:
    """Methods shared by the float16 and bfloat16 classes (mixed in before Tensor)."""

    __slots__ = ()
    _dt: _dtype.dtype

    @property
    def dtype(self):
        return self._dt

    def is_floating_point(self):
        return True

    def element_size(self):
        return 2

    def numpy(self, *, force=False):
        if self._dt is _dtype.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        return Tensor.numpy(self, force=force).astype(np.float16)

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    @property
    def grad(self):
        g = Tensor.grad.fget(self)
        if g is not None and type(g) in CLASS:  # accumulated in float32 by the engine
            tag(g, self._dt)
        return g

    @grad.setter
    def grad(self, value):
        Tensor.grad.fset(self, value)

    @property
    def data(self):
        return tag(Tensor.data.fget(self), self._dt)

    @data.setter
    def data(self, value):
        Tensor.data.fset(self, value)

    def __reduce_ex__(self, proto):
        return (_rebuild, (type(self), self._data, self._rg))

    def cuda(self, device=None, non_blocking=False):
        raise TypeError(
            f"nbgrad's {self._dt.name} tensors live on the CPU; call .float() before .cuda()"
        )


def from_array(arr, dt=None):
    """A tensor of a float16 array (or float32 `arr` rounded to `dt`), as a copy."""
    return tag(Tensor._make(np.array(arr, np.float32), -1, False), dt or _dtype.float16)


def _rebuild(cls, data, requires_grad):
    t = Tensor._make(data, -1, False)
    t.__class__ = cls
    return t.requires_grad_(requires_grad)


def _make_class(base, dt, name):
    ns = {"__slots__": (), "_dt": dt, "__hash__": Tensor.__hash__}  # (defining __eq__ unsets it)
    for k, v in vars(Tensor).items():
        private = k.startswith("_") and not k.endswith("__")
        if private or k in _NOT_WRAPPED or type(v).__name__ == "_Missing":
            continue
        if not callable(v) and not (isinstance(v, property) and v.fset is None):  # .T, .mT
            continue
        if isinstance(v, (staticmethod, classmethod, type)):
            continue
        ns[k] = property(_wrap(k, v.fget)) if isinstance(v, property) else _wrap(k, v)
    return type(name, (_Lowp, base), ns)


# CLASS[float32 class][dtype] -> that dtype's class; BASE: the way back
CLASS: dict = {}
BASE: dict = {}


def register(base):
    """Classes for `base` (Tensor, nn.Parameter) holding float16 and bfloat16 values."""
    CLASS[base] = {}
    kind = "Tensor" if base is Tensor else base.__name__
    for dt, name in ((_dtype.float16, "Half"), (_dtype.bfloat16, "BFloat16")):
        cls = _make_class(base, dt, name + kind)
        cls.__module__ = __name__  # found by pickle here
        globals()[cls.__name__] = cls
        CLASS[base][dt] = cls
        BASE[cls] = base
        CLASS[cls] = CLASS[base]


register(Tensor)
HalfTensor = CLASS[Tensor][_dtype.float16]
BFloat16Tensor = CLASS[Tensor][_dtype.bfloat16]


def _function_dtype(args, kwargs):
    """The half dtype a module-level function's result takes, or None: its floating tensor
    arguments (in lists too) promote to float16/bfloat16, as PyTorch's do."""
    ts, lowp = [], False
    for a in (*args, *kwargs.values()):
        for x in a if isinstance(a, (list, tuple)) else (a,):
            if isinstance(x, Tensor):
                ts.append(x)
                lowp = lowp or type(x) in BASE
    if not lowp:
        return None
    dt = kwargs.get("dtype")
    dt = _dtype.as_dtype(dt) if dt is not None else _dtype._result_dtype(ts)
    return dt if dt in _dtype.LOWP else None


def keeps_lowp(fn):
    """`fn`, returning float16/bfloat16 tensors where PyTorch's promotion of its inputs
    gives that dtype (the computation itself runs in float32, as the methods')."""

    @functools.wraps(fn)
    def f(*args, **kwargs):
        out = fn(*args, **kwargs)
        if not _SEEN:  # no half tensor exists: nothing to look at
            return out
        dt = _function_dtype(args, kwargs)
        return out if dt is None else _retag_all(out, dt)

    f.keeps_lowp = True
    return f


def keep_lowp_in(namespace, names, skip=frozenset()):
    """Wrap the functions `names` of a module's `namespace` with `keeps_lowp`."""
    for n in names:
        fn = namespace.get(n)
        if n in skip or not isinstance(fn, types.FunctionType) or hasattr(fn, "keeps_lowp"):
            continue
        namespace[n] = keeps_lowp(fn)
