"""The Tensor handle: storage, dtype, requires_grad, grad, and where it lives on the tape.

A Tensor holds no graph logic. Its storage is a C-contiguous NumPy array (so every kernel
and every tape address can assume a flat layout); `_slot` is its value's id on the tape
(-1 until an op records it). Operators delegate to `nbgrad.ops`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar, TypeAlias

import numpy as np

from . import _dtype
from . import _versions as _ver
from ._size import Size
from .autograd.grad_mode import STATE
from .tape import MAXD, R_SEQ, S_ADDR, S_PROD, TAPE, too_many_dims

_DT_BY_CHAR = {d.np.char: d for d in _dtype._ALL}
_DT_BY_CHAR["l"] = _dtype.int64  # 'q' and 'l' are both int64 on Linux
_DT_BY_CHAR["q"] = _dtype.int64
_HANDLES = TAPE.handles  # live tensors per slot (the tape extends it in place, never replaces it)


# Annotation names: Tensor has methods called int, float and bool, which shadow the builtins
# in annotations inside its body
_int: TypeAlias = int
_float: TypeAlias = float
_bool: TypeAlias = bool
Number: TypeAlias = int | float | bool

# C type names PyTorch's messages use for dtypes
# autograd.engine.backward, which sits above this module and puts itself here at import
# (an import statement per call costs ~0.6 us, a tenth of a small graph's backward)
_ENGINE: list[Any] = [None]

_C_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "bool": "bool"}  # fmt: skip


def _host(d):
    """A tensor's buffer as a NumPy array: itself, or a device buffer's host copy."""
    return d if type(d) is np.ndarray else d.host()


def _copyto(dst, src):
    """Write buffer `src` into `dst` of the same shape and device (dtypes checked)."""
    if type(dst) is np.ndarray:
        np.copyto(dst, src, casting="same_kind")
    else:
        dst.store(src)


class Tensor:
    # _aux: None, or [grad, retains_grad, views, view] once any of those is set (keeps the
    # hot constructor to four stores); views: weak references to the views taken of this
    # tensor (ops/viewbase.py), view: what this tensor is a view of
    # _post_hooks: post-accumulate-grad hooks (autograd/hooks.py), unset on most tensors
    __slots__ = ("_data", "_slot", "_rg", "_aux", "__weakref__", "_post_hooks")
    _data: np.ndarray
    _slot: _int
    _rg: _bool
    _aux: list | None
    __array_priority__ = 1000  # numpy scalars defer to Tensor's reflected operators
    # set below the class: the elementwise fast paths (ops/pointwise.py) are these operators
    __add__: ClassVar[Callable[[Tensor, Tensor | Number], Tensor]]
    __sub__: ClassVar[Callable[[Tensor, Tensor | Number], Tensor]]
    __mul__: ClassVar[Callable[[Tensor, Tensor | Number], Tensor]]
    __truediv__: ClassVar[Callable[[Tensor, Tensor | Number], Tensor]]
    __pow__: ClassVar[Callable[[Tensor, Tensor | Number], Tensor]]
    __neg__: ClassVar[Callable[[Tensor], Tensor]]

    @staticmethod
    def _make(data, slot, rg):
        if data.ndim > MAXD:
            too_many_dims(data.ndim)
        t = object.__new__(Tensor)
        t._data = data
        t._slot = slot
        t._rg = rg
        t._aux = None
        return t

    def _aux_list(self):
        a = self._aux
        if a is None:
            a = self._aux = [None, False, 0, None]
        return a

    # gradient, retain_grad flag and version counter live in _aux
    @property
    def _grad(self):
        a = self._aux
        return None if a is None else a[0]

    @_grad.setter
    def _grad(self, value):
        self._aux_list()[0] = value

    @property
    def _retain(self):
        a = self._aux
        return False if a is None else a[1]

    @_retain.setter
    def _retain(self, value):
        self._aux_list()[1] = value

    @property
    def _version(self):
        """The version counter of this tensor's storage (shared by its views and
        `detach()`): the count of in-place writes to it (`_versions.py`)."""
        return _ver.version(self._data)

    @_version.setter
    def _version(self, value):  # `t._version += 1`: one in-place write
        self._bump()

    def _bump(self):
        """Count one in-place write (what `t._version += 1` does, without reading it)."""
        _ver.bump(self._data)
        a = self._aux
        if a is not None and a[2]:  # views of this tensor that are copies see it
            _vb.changed(self)

    @property
    def _leaf(self):
        """Not produced by a recorded op (derived from the tape, never stored)."""
        s = self._slot
        return s < 0 or TAPE.S[s, S_PROD] < 0

    def __new__(cls, *args, device=None):
        # the legacy constructor: Tensor([1, 2]) copies data, Tensor(2, 3) gives a shape
        if cls is not Tensor:
            raise TypeError("create tensors with nbgrad.tensor(...), nbgrad.zeros(...), etc.")
        from .creation import legacy_new

        return legacy_new(_dtype.get_default_dtype(), args, device, any_dtype=True)

    def __init__(self, *args, **kwargs):
        pass

    def __del__(self):
        try:
            s = self._slot
        except AttributeError:  # Ctrl-C came before the op that made it set its fields
            return
        if s >= 0:
            try:
                _HANDLES[s] -= 1
            except TypeError:  # interpreter shutdown
                pass

    # -- metadata ------------------------------------------------------------------
    @property
    def dtype(self) -> _dtype.dtype:
        return _DT_BY_CHAR[self._data.dtype.char]

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: _int | None = None) -> Size | _int:
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self) -> _int:
        return self._data.ndim

    ndim = property(dim)

    def numel(self) -> _int:
        return self._data.size

    nelement = numel

    @property
    def device(self) -> Any:
        from .device import CPU

        return CPU

    is_cuda = False  # a class attribute (CudaTensor overrides it): cheaper than a property

    def is_floating_point(self) -> _bool:
        return self._data.dtype.kind == "f"

    def element_size(self) -> _int:
        return self._data.itemsize

    def is_contiguous(self) -> _bool:
        return True

    def __len__(self) -> _int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    # -- autograd state ----------------------------------------------------------------
    @property
    def requires_grad(self) -> _bool:
        return self._rg

    @requires_grad.setter
    def requires_grad(self, flag: _bool) -> None:
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: _bool = True) -> Tensor:
        flag = bool(requires_grad)
        if not self._leaf:
            if flag:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if flag and self._data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if flag != self._rg and self._slot >= 0:
            # rows already recorded saw the old flag; the new one starts a fresh slot
            TAPE.release(self._slot)
            self._slot = -1
        self._rg = flag
        return self

    @property
    def is_leaf(self) -> _bool:
        return bool(self._leaf)

    @property
    def grad(self) -> Tensor | None:
        if not self._leaf and not self._retain and self._rg:
            import warnings

            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more informations.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of "
                    f"{type(value).__name__}"
                )
            if value.dtype is not self.dtype:
                from ._dtype import scalar_name

                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_C_NAMES[value.dtype.name]}' "
                    f"to a tensor with grad_dtype '{scalar_name(self.dtype)}'. The gradient must "
                    "match the tensor's grad_dtype (defaults to the tensor's dtype). You can set "
                    "the tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match."
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size"
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def grad_fn(self) -> Any:
        if self._leaf or self._slot < 0:
            return None
        from .autograd.node import Node

        return Node.of_slot(self._slot)

    def retain_grad(self) -> None:
        if not self._rg:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._leaf:
            return
        self._retain = True
        import weakref

        TAPE.watch[self._slot] = weakref.ref(self)
        TAPE.retained.add(self._slot)

    @property
    def retains_grad(self) -> _bool:
        return self._retain

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: _bool | None = None,
        create_graph: _bool = False,
        inputs: Sequence[Tensor] | Tensor | None = None,
    ) -> None:
        _ENGINE[0](self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> Any:
        """`hook(grad)` is called with this tensor's gradient each time it is computed; a
        result other than None is used in its place. Returns a handle with `remove()`."""
        from .autograd.hooks import register_hook

        return register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> Any:
        """`hook(self)` after each backward pass that accumulated into this leaf's .grad
        (autograd/hooks.py). Returns a handle whose `remove()` unregisters it."""
        from .autograd.hooks import register_post_accumulate_grad_hook

        return register_post_accumulate_grad_hook(self, hook)

    # -- data access -------------------------------------------------------------------
    def numpy(self, *, force: _bool = False) -> np.ndarray:
        d = self._data
        if type(d) is not np.ndarray:  # a device buffer: only an explicit copy
            if not force:
                raise TypeError(
                    f"can't convert {self.device} device type tensor to numpy. Use "
                    "Tensor.cpu() to copy the tensor to host memory first."
                )
            return _host(d)
        if self._rg and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return d

    def __array__(self, dtype=None, copy=None):
        d = self.numpy()
        return d if dtype is None else d.astype(dtype)

    def item(self) -> Number:
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return _host(self._data).reshape(-1)[0].item()

    def tolist(self) -> Any:
        return _host(self._data).tolist()

    def __float__(self) -> _float:
        return float(self.item())

    def __int__(self) -> _int:
        return int(self.item())

    def __bool__(self) -> _bool:
        if self._data.size != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
                if self._data.size
                else "Boolean value of Tensor with no values is ambiguous"
            )
        return bool(_host(self._data).reshape(-1)[0])

    def __index__(self) -> _int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(_host(self._data).reshape(-1)[0])

    __hash__ = object.__hash__

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    @property
    def data(self) -> Tensor:
        # the same memory under a version counter of its own, as in PyTorch: writes through
        # `.data` are not seen by the version check; a view of this tensor for its writes
        return _vb.alias(self, type(self)._make(_ver.data_alias(self._data), -1, False))

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError("data must be a Tensor")
        old, new = self._data, value._data
        if self._slot >= 0:
            # rows recorded so far keep the old buffer (they hold it); later ops must see the
            # new one, so this tensor enters the tape afresh
            TAPE.release(self._slot)
            self._slot = -1
            if (
                type(old) is np.ndarray
                and type(new) is np.ndarray
                and old.shape == new.shape
                and old.dtype == new.dtype
                and not np.array_equal(old, new)
            ):  # PyTorch's saved leaf would read the new values: refuse rather than differ
                _ver.replaced(old)
        self._data = new
        a = self._aux
        if a is not None:  # on new storage: its views keep the old one, as in PyTorch, and
            a[2], a[3] = 0, None  # its own writes no longer reach the base it was a view of

    def __reduce_ex__(self, proto):
        # as PyTorch: the value and requires_grad, as a leaf (never a tape slot, which
        # means nothing in another process) and without .grad
        d = self._data
        cuda = type(d) is not np.ndarray
        return (_rebuild, (type(self), d.host() if cuda else d, self._rg, cuda))

    def __deepcopy__(self, memo):
        if not self._leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a module, "
                "this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        import copy

        t = object.__new__(type(self))
        t._data = self._data.copy()
        t._slot = -1
        t._rg = self._rg
        t._aux = None
        if self._grad is not None:
            t._grad = copy.deepcopy(self._grad, memo)
        memo[id(self)] = t
        return t

    def detach(self) -> Tensor:
        # (type(self)._make: the device's class, never a Parameter or other subclass)
        return _vb.alias(self, type(self)._make(self._data, -1, False))

    def detach_(self) -> Tensor:
        if self._slot >= 0:
            TAPE.release(self._slot)
            self._slot = -1
        self._rg = False
        return self

    def __repr__(self):
        from ._format import format_tensor

        suffixes = []
        if not self._leaf and self._rg:
            suffixes.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self._rg:
            suffixes.append("requires_grad=True")
        d = self._data
        return format_tensor(
            _host(d),
            dtype_name=self.dtype.name,
            default_dtype_name=_dtype.get_default_dtype().name,
            suffixes=suffixes,
            device=None if type(d) is np.ndarray else str(self.device),
        )

    __str__ = __repr__

    def __format__(self, spec):
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # -- in-place --------------------------------------------------------------------
    def _check_inplace(self, fill=False):
        if self._leaf and self._rg and STATE.enabled:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )
        a = self._aux
        if a is not None and a[3] is not None:  # a view: its base will be written too
            _vb.check(self, fill)
        _ver.begin_write(self)

    def _assign(self, result, index=None, since=None, writer=None):
        """Make this tensor hold `result`: in place when nothing records, else rebind.
        (`index`: only self[index] changed, for a view's base; `since`: the stamp of the
        op's first row, by default the one `_check_inplace` took; `writer`: the view of
        this tensor the write came through.)"""
        if since is None:
            since = _ver.take_since(self)
        before = self._data
        if self._rg and STATE.enabled and not result._rg:  # a constant over a graph's value
            result = self._over(result)
        if result._rg:
            # the graph saw the old value; this object now names the new one. The old value
            # stays on the tape intact, but to PyTorch it was written in place, so rows
            # recorded before the op that saved it raise at backward, as PyTorch's do
            old = self._slot
            if since is not None and since > self._seq_of(result):
                since = None  # checked after the op was computed: its own rows unknown
            if since is not None:
                _ver.bump(self._data, since)
            _ver.set_version(result._data, _ver.version(self._data) + (since is None))
            self._data, self._slot, self._rg = result._data, result._slot, True
            result._slot = -1
            if old >= 0:
                TAPE.release(old)
        else:
            if result._data.shape != self._data.shape:
                raise RuntimeError(
                    f"output with shape {list(self._data.shape)} doesn't match the broadcast "
                    f"shape {list(result._data.shape)}"
                )
            if not np.can_cast(result._data.dtype, self._data.dtype, "same_kind"):
                raise RuntimeError(
                    f"result type {_dtype.scalar_name(result.dtype)} can't be cast to the "
                    f"desired output type {_dtype.scalar_name(self.dtype)}"
                )
            _copyto(self._data, result._data)
            _ver.bump(self._data)
        a = self._aux
        if a is not None:
            if a[3] is not None:  # a view: its base sees the write
                _vb.write_back(self, result._rg, index, since)
            elif a[2]:  # views of this tensor that are copies see it
                _vb.changed(self, writer, before, since)
        return self

    @staticmethod
    def _seq_of(t):
        """The recording stamp of the row that produced t (or -1)."""
        s = t._slot
        k = int(TAPE.S[s, S_PROD]) if s >= 0 else -1
        return int(TAPE.R[k, R_SEQ]) if k >= 0 else -1

    def _overwritten(self):
        """Before overwriting all of a tensor that is in a graph with a constant: record
        that the new value passes no gradient to the old one (PyTorch's FillBackward), and
        return the row's output to hand to `_rebase` once the buffer is written."""
        if not (self._rg and STATE.enabled and not self._leaf):
            return None
        from .ops.select import where

        return where(Tensor._make(np.zeros(self._data.shape, np.bool_), -1, False), self, 0.0)

    def _rebase(self, r):
        """Make this tensor (its buffer written in place) the output `r` of `_overwritten`'s
        row: later rows read this buffer, and no gradient reaches the old history."""
        s = r._slot
        TAPE.S[s, S_ADDR] = self._data.__array_interface__["data"][0]  # same shape and dtype
        TAPE.release(self._slot)
        self._slot, r._slot = s, -1

    def _wrote(self, r):
        """After writing this tensor's buffer with a constant: count the write, cut the
        old history (`r` from `_overwritten`), then let its copied views see the values."""
        _ver.bump(self._data)
        if r is not None:
            self._rebase(r)
        a = self._aux
        if a is not None and a[2]:
            _vb.changed(self)

    def zero_(self) -> Tensor:
        return self.fill_(0)

    def fill_(self, value: Tensor | Number) -> Tensor:
        self._check_inplace(fill=True)
        v = value.item() if isinstance(value, Tensor) else value
        a = self._aux
        if a is not None and a[3] is not None:
            return _vb.store(self, np.full(self._data.shape, v, self._data.dtype))
        r = self._overwritten()
        self._data.fill(v)
        self._wrote(r)
        return self

    def copy_(self, src: Tensor) -> Tensor:
        self._check_inplace()
        src_t = src if isinstance(src, Tensor) else _pw.as_tensor_like(src, self)
        if src_t._rg and STATE.enabled:
            v = _views.expand(src_t.to(self.dtype), self._data.shape)
            return self._assign(self._over(v) if self._rg else v.clone())
        values = np.broadcast_to(src_t._data, self._data.shape)
        a = self._aux
        if a is not None and a[3] is not None:
            return _vb.store(self, values)
        r = self._overwritten()
        np.copyto(self._data, values, casting="unsafe")
        self._wrote(r)
        return self

    def _over(self, value):
        """`value` written over all of this tensor, which is in a graph: recorded as
        where(True, value, self), so the old history gets a zero gradient (PyTorch's
        FillBackward, CopyBackwards) rather than none at all or the gradient of a value no
        longer there."""
        from .ops.select import where

        ones = Tensor._make(np.ones(self._data.shape, np.bool_), -1, False)
        return where(_pw.to(ones, self.device), value, self)

    def _inplace(self, name, other):
        self._check_inplace()
        return self._assign(_pw.binary(name, self, other))

    def add_(self, other: Tensor | Number, *, alpha: Number = 1) -> Tensor:
        return self._inplace("add", other if alpha == 1 else other * alpha)

    def sub_(self, other: Tensor | Number, *, alpha: Number = 1) -> Tensor:
        return self._inplace("sub", other if alpha == 1 else other * alpha)

    def mul_(self, other: Tensor | Number) -> Tensor:
        return self._inplace("mul", other)

    def div_(self, other, *, rounding_mode=None):
        if rounding_mode is None:
            return self._inplace("div", other)
        self._check_inplace()
        return self._assign(_fn.div(self, other, rounding_mode=rounding_mode))

    def pow_(self, other: Tensor | Number) -> Tensor:
        return self._inplace("pow", other)

    __iadd__ = add_
    __isub__ = sub_
    __imul__ = mul_
    __itruediv__ = div_
    __ipow__ = pow_

    # -- arithmetic (the forward operators are bound to the fast paths below the class) --
    def __radd__(self, other: Tensor | Number) -> Tensor:
        return _FAST["add"](other, self)

    def __rsub__(self, other: Tensor | Number) -> Tensor:
        return _FAST["sub"](other, self)

    def __rmul__(self, other: Tensor | Number) -> Tensor:
        return _FAST["mul"](other, self)

    def __rtruediv__(self, other: Tensor | Number) -> Tensor:
        return _FAST["div"](other, self)

    def __rpow__(self, other: Tensor | Number) -> Tensor:
        return _FAST["pow"](other, self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return _pw.unary("abs", self)

    def __matmul__(self, other: Tensor) -> Tensor:
        return _linalg.matmul(self, other)

    def __rmatmul__(self, other: Tensor) -> Tensor:
        return _linalg.matmul(other, self)

    def add(self, other: Tensor | Number, *, alpha: Number = 1) -> Tensor:
        return _pw.binary("add", self, other if alpha == 1 else other * alpha)

    def sub(self, other: Tensor | Number, *, alpha: Number = 1) -> Tensor:
        return _pw.binary("sub", self, other if alpha == 1 else other * alpha)

    def mul(self, other: Tensor | Number) -> Tensor:
        return _FAST["mul"](self, other)

    def div(self, other, *, rounding_mode=None):
        if rounding_mode is None:
            return _FAST["div"](self, other)
        return _fn.div(self, other, rounding_mode=rounding_mode)

    def pow(self, exponent: Tensor | Number) -> Tensor:
        return _FAST["pow"](self, exponent)

    multiply, divide, subtract, true_divide = mul, div, sub, div

    def neg(self) -> Tensor:
        return _pw.unary("neg", self)

    negative = neg

    def exp(self) -> Tensor:
        return _FAST["exp"](self)

    def log(self) -> Tensor:
        return _FAST["log"](self)

    def sin(self) -> Tensor:
        return _FAST["sin"](self)

    def cos(self) -> Tensor:
        return _FAST["cos"](self)

    def tanh(self) -> Tensor:
        return _FAST["tanh"](self)

    def sigmoid(self) -> Tensor:
        return _FAST["sigmoid"](self)

    def relu(self) -> Tensor:
        return _FAST["relu"](self)

    def sqrt(self) -> Tensor:
        return _FAST["sqrt"](self)

    def abs(self) -> Tensor:
        return _FAST["abs"](self)

    # comparisons: no gradient, bool results
    def __eq__(self, other: object) -> Tensor:  # type: ignore[override]
        return _pw.compare("eq", self, other)

    def __ne__(self, other: object) -> Tensor:  # type: ignore[override]
        return _pw.compare("ne", self, other)

    def __lt__(self, other: Tensor | Number) -> Tensor:
        return _pw.compare("lt", self, other)

    def __le__(self, other: Tensor | Number) -> Tensor:
        return _pw.compare("le", self, other)

    def __gt__(self, other: Tensor | Number) -> Tensor:
        return _pw.compare("gt", self, other)

    def __ge__(self, other: Tensor | Number) -> Tensor:
        return _pw.compare("ge", self, other)

    eq, ne, lt, le, gt, ge = __eq__, __ne__, __lt__, __le__, __gt__, __ge__

    def __invert__(self) -> Tensor:
        return _pw.invert(self)

    def __and__(self, other: Tensor | Number) -> Tensor:
        return _pw.logical("and", self, other)

    def __or__(self, other: Tensor | Number) -> Tensor:
        return _pw.logical("or", self, other)

    def __xor__(self, other: Tensor | Number) -> Tensor:
        return _pw.logical("xor", self, other)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__  # (the three commute)

    # -- reductions ----------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False, *, dtype=None, keepdims=None):
        return _reduce.sum(self, dim, keepdim if keepdims is None else keepdims, dtype=dtype)

    def mean(self, dim=None, keepdim=False, *, dtype=None, keepdims=None):
        return _reduce.mean(self, dim, keepdim if keepdims is None else keepdims, dtype=dtype)

    def norm(
        self,
        p: _float | str = "fro",
        dim: _int | Sequence[_int] | None = None,
        keepdim: _bool = False,
    ) -> Tensor:
        return _reduce.norm(self, p, dim, keepdim)

    # -- shape -----------------------------------------------------------------------------
    def reshape(self, *shape: Any) -> Tensor:
        return _views.reshape(self, shape)

    def view(self, *shape: Any) -> Tensor:
        return _views.reshape(self, shape, node="ViewBackward0")

    def view_as(self, other: Tensor) -> Tensor:
        return _views.reshape(self, other.shape, node="ViewBackward0")

    def reshape_as(self, other: Tensor) -> Tensor:
        return _views.reshape(self, other.shape)

    def flatten(self, start_dim: _int = 0, end_dim: _int = -1) -> Tensor:
        return _views.flatten(self, start_dim, end_dim)

    def unsqueeze(self, dim: _int) -> Tensor:
        return _views.unsqueeze(self, dim)

    def squeeze(self, dim: _int | Sequence[_int] | None = None) -> Tensor:
        return _views.squeeze(self, dim)

    def transpose(self, dim0: _int, dim1: _int) -> Tensor:
        return _views.transpose(self, dim0, dim1)

    def t(self) -> Tensor:
        if self._data.ndim > 2:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D"
            )
        return _views.t(self)

    @property
    def T(self) -> Tensor:
        return _views.permute(self, tuple(range(self._data.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:
        return _views.transpose(self, -2, -1)

    def permute(self, *dims: Any) -> Tensor:
        return _views.permute(self, _views.as_shape(dims))

    def expand(self, *sizes: Any) -> Tensor:
        return _views.expand(self, _views.as_shape(sizes))

    def expand_as(self, other: Tensor) -> Tensor:
        return _views.expand(self, other.shape)

    def contiguous(self, memory_format: Any = None) -> Tensor:
        return _views.contiguous(self)

    def clone(self, *, memory_format: Any = None) -> Tensor:
        return _views.clone(self)

    def __getitem__(self, index: Any) -> Tensor:
        return _views.getitem(self, index)

    def __setitem__(self, index: Any, value: Tensor | Number) -> None:
        _views.setitem(self, index, value)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        return _pw.to(self, *args, **kwargs)

    def type(self, dtype: _dtype.dtype | str | None = None) -> Any:
        if dtype is None:
            return f"nbgrad.{self.dtype.name.capitalize()}Tensor"
        return _pw.to(self, dtype)

    def float(self) -> Tensor:
        return _pw.to(self, _dtype.float32)

    def double(self) -> Tensor:
        return _pw.to(self, _dtype.float64)

    def long(self) -> Tensor:
        return _pw.to(self, _dtype.int64)

    def int(self) -> Tensor:
        return _pw.to(self, _dtype.int32)

    def bool(self) -> Tensor:
        return _pw.to(self, _dtype.bool_)

    def half(self) -> Tensor:
        return _pw.to(self, _dtype.float16)

    def bfloat16(self) -> Tensor:
        return _pw.to(self, _dtype.bfloat16)

    def cpu(self) -> Tensor:
        return _pw.to(self, "cpu")

    def cuda(self, device: Any = None, non_blocking: _bool = False) -> Tensor:
        return _pw.to(self, "cuda" if device is None else device)

    # -- linear algebra ----------------------------------------------------------------
    def matmul(self, other: Tensor) -> Tensor:
        return _linalg.matmul(self, other)

    def mm(self, other: Tensor) -> Tensor:
        return _linalg.mm(self, other)

    def dot(self, other: Tensor) -> Tensor:
        return _linalg.dot(self, other)

    def outer(self, other: Tensor) -> Tensor:
        return _linalg.outer(self, other)

    # -- op coverage: elementwise, softmax, reductions, joins, indexing ----------------
    def square(self) -> Tensor:
        return _fn.square(self)

    def exp2(self) -> Tensor:
        return _fn.exp2(self)

    def log2(self) -> Tensor:
        return _fn.log2(self)

    def log10(self) -> Tensor:
        return _fn.log10(self)

    def log1p(self) -> Tensor:
        return _fn.log1p(self)

    def expm1(self) -> Tensor:
        return _fn.expm1(self)

    def reciprocal(self) -> Tensor:
        return _fn.reciprocal(self)

    def rsqrt(self) -> Tensor:
        return _fn.rsqrt(self)

    def sinh(self) -> Tensor:
        return _fn.sinh(self)

    def cosh(self) -> Tensor:
        return _fn.cosh(self)

    def tan(self) -> Tensor:
        return _fn.tan(self)

    def asin(self) -> Tensor:
        return _fn.asin(self)

    def acos(self) -> Tensor:
        return _fn.acos(self)

    def atan(self) -> Tensor:
        return _fn.atan(self)

    arcsin, arccos, arctan = asin, acos, atan

    def atan2(self, other: Tensor) -> Tensor:
        return _fn.atan2(self, other)

    arctan2 = atan2

    def erf(self) -> Tensor:
        return _fn.erf(self)

    def lgamma(self) -> Tensor:
        return _fn.lgamma(self)

    def digamma(self) -> Tensor:
        return _fn.digamma(self)

    def sign(self) -> Tensor:
        return _fn.sign(self)

    def floor(self) -> Tensor:
        return _fn.floor(self)

    def ceil(self) -> Tensor:
        return _fn.ceil(self)

    def round(self, *, decimals: _int = 0) -> Tensor:
        return _fn.round(self, decimals=decimals)

    def softmax(self, dim: _int, dtype: _dtype.dtype | None = None) -> Tensor:
        return _fn.softmax(self, dim, dtype)

    def log_softmax(self, dim: _int, dtype: _dtype.dtype | None = None) -> Tensor:
        return _fn.log_softmax(self, dim, dtype)

    def clamp(
        self, min: Tensor | Number | None = None, max: Tensor | Number | None = None
    ) -> Tensor:  # noqa: A002
        return _fn.clamp(self, min, max)

    clip = clamp

    def clamp_min(self, min: Tensor | Number) -> Tensor:  # noqa: A002
        return _fn.clamp(self, min, None)

    def clamp_max(self, max: Tensor | Number) -> Tensor:  # noqa: A002
        return _fn.clamp(self, None, max)

    def clamp_(
        self, min: Tensor | Number | None = None, max: Tensor | Number | None = None
    ) -> Tensor:  # noqa: A002
        self._check_inplace()
        return self._assign(_fn.clamp(self, min, max))

    clip_ = clamp_

    def maximum(self, other: Tensor) -> Tensor:
        return _fn.maximum(self, other)

    def minimum(self, other: Tensor) -> Tensor:
        return _fn.minimum(self, other)

    def max(self, dim=None, keepdim=False, *, keepdims=None):
        return _fn.max(self, dim, keepdim if keepdims is None else keepdims)

    def min(self, dim=None, keepdim=False, *, keepdims=None):
        return _fn.min(self, dim, keepdim if keepdims is None else keepdims)

    def amax(self, dim=(), keepdim=False, *, keepdims=None):
        return _fn.amax(self, dim, keepdim if keepdims is None else keepdims)

    def amin(self, dim=(), keepdim=False, *, keepdims=None):
        return _fn.amin(self, dim, keepdim if keepdims is None else keepdims)

    def argmax(self, dim=None, keepdim=False, *, keepdims=None):
        return _fn.argmax(self, dim, keepdim if keepdims is None else keepdims)

    def argmin(self, dim=None, keepdim=False, *, keepdims=None):
        return _fn.argmin(self, dim, keepdim if keepdims is None else keepdims)

    def prod(self, dim=None, keepdim=False, *, dtype=None, keepdims=None):
        return _fn.prod(self, dim, keepdim if keepdims is None else keepdims, dtype=dtype)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None, keepdims=None):
        keepdim = keepdim if keepdims is None else keepdims
        return _fn.var(self, dim, unbiased, keepdim, correction=correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None, keepdims=None):
        keepdim = keepdim if keepdims is None else keepdims
        return _fn.std(self, dim, unbiased, keepdim, correction=correction)

    def logsumexp(self, dim, keepdim=False, *, keepdims=None):
        return _fn.logsumexp(self, dim, keepdim if keepdims is None else keepdims)

    def cumsum(self, dim: _int, *, dtype: _dtype.dtype | None = None) -> Tensor:
        return _fn.cumsum(self, dim, dtype=dtype)

    def where(self, condition: Tensor, other: Tensor | Number) -> Tensor:
        return _fn.where(condition, self, other)

    def split(self, split_size: _int | Sequence[_int], dim: _int = 0) -> tuple[Tensor, ...]:
        return _fn.split(self, split_size, dim)

    def chunk(self, chunks: _int, dim: _int = 0) -> tuple[Tensor, ...]:
        return _fn.chunk(self, chunks, dim)

    def unbind(self, dim: _int = 0) -> tuple[Tensor, ...]:
        return _fn.unbind(self, dim)

    def narrow(self, dim: _int, start: _int, length: _int) -> Tensor:
        return _fn.narrow(self, dim, start, length)

    def flip(self, *dims: Any) -> Tensor:
        return _fn.flip(self, _views.as_shape(dims))

    def fliplr(self) -> Tensor:
        return _fn.fliplr(self)

    def flipud(self) -> Tensor:
        return _fn.flipud(self)

    def repeat(self, *sizes: Any) -> Tensor:
        from .ops.joins import repeat

        return repeat(self, _views.as_shape(sizes))

    def tile(self, *dims: Any) -> Tensor:
        return _fn.tile(self, _views.as_shape(dims))

    def movedim(self, source: _int | Sequence[_int], destination: _int | Sequence[_int]) -> Tensor:
        return _fn.movedim(self, source, destination)

    moveaxis = movedim

    def gather(self, dim: _int, index: Tensor) -> Tensor:
        return _fn.gather(self, dim, index)

    def take_along_dim(self, indices: Tensor, dim: _int | None = None) -> Tensor:
        return _fn.take_along_dim(self, indices, dim)

    def scatter_add(self, dim: _int, index: Tensor, src: Tensor) -> Tensor:
        return _fn.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim: _int, index: Tensor, src: Tensor) -> Tensor:
        self._check_inplace()
        return self._assign(_fn.scatter_add(self, dim, index, src))

    def index_select(self, dim: _int, index: Tensor) -> Tensor:
        return _fn.index_select(self, dim, index)

    def index_add(self, dim: _int, index: Tensor, source: Tensor, *, alpha: Number = 1) -> Tensor:
        return _fn.index_add(self, dim, index, source, alpha=alpha)

    def index_add_(self, dim: _int, index: Tensor, source: Tensor, *, alpha: Number = 1) -> Tensor:
        self._check_inplace()
        return self._assign(_fn.index_add(self, dim, index, source, alpha=alpha))

    def index_put(
        self, indices: tuple[Tensor, ...], values: Tensor, accumulate: _bool = False
    ) -> Tensor:
        from .ops.indexing import index_put

        return index_put(self, tuple(indices), values, accumulate)

    def index_put_(
        self, indices: tuple[Tensor, ...], values: Tensor, accumulate: _bool = False
    ) -> Tensor:
        from .ops.indexing import index_put

        self._check_inplace()
        return self._assign(index_put(self, tuple(indices), values, accumulate))

    def masked_fill(self, mask, value):
        if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
            got = _C_NAMES[mask.dtype.name] if isinstance(mask, Tensor) else type(mask).__name__
            raise RuntimeError(
                f"masked_fill_ only supports boolean masks, but got mask with dtype {got}"
            )
        if isinstance(value, Tensor) and value._data.ndim:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value._data.ndim} dimension(s)."
            )
        if not isinstance(value, Tensor) and self._data.dtype.kind != "f":
            value = self._data.dtype.type(value).item()  # the fill takes this tensor's dtype
        return _fn.where(mask, value, self)

    def masked_select(self, mask: Tensor) -> Tensor:
        from .ops.indexing import masked_select

        return masked_select(self, mask)

    # -- triangles, sorting, running products, products, linalg (nbgrad/ops/, linalg.py) --
    def tril(self, diagonal=0):
        return _fn_ops().tril(self, diagonal)

    def triu(self, diagonal=0):
        return _fn_ops().triu(self, diagonal)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        return _fn_ops().diagonal(self, offset, dim1, dim2)

    def diag(self, diagonal=0):
        return _fn_ops().diag(self, diagonal)

    def diag_embed(self, offset=0, dim1=-2, dim2=-1):
        return _fn_ops().diag_embed(self, offset, dim1, dim2)

    def trace(self):
        return _fn_ops().trace(self)

    def sort(self, dim=-1, descending=False, *, stable=False):
        return _fn_ops().sort(self, dim, descending, stable)

    def argsort(self, dim=-1, descending=False, *, stable=False):
        return _fn_ops().argsort(self, dim, descending, stable=stable)

    def msort(self):
        return _fn_ops().msort(self)

    def topk(self, k, dim=-1, largest=True, sorted=True):  # noqa: A002
        return _fn_ops().topk(self, k, dim, largest, sorted)

    def kthvalue(self, k, dim=-1, keepdim=False):
        return _fn_ops().kthvalue(self, k, dim, keepdim)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
        return _fn_ops().unique(self, sorted, return_inverse, return_counts, dim)

    def histc(self, bins=100, min=0, max=0):  # noqa: A002
        return _fn_ops().histc(self, bins, min, max)

    def cumprod(self, dim, *, dtype=None):
        return _fn_ops().cumprod(self, dim, dtype=dtype)

    def cummax(self, dim):
        return _fn_ops().cummax(self, dim)

    def cummin(self, dim):
        return _fn_ops().cummin(self, dim)

    def logcumsumexp(self, dim):
        return _fn_ops().logcumsumexp(self, dim)

    def roll(self, shifts, dims=None):
        return _fn_ops().roll(self, shifts, dims)

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        return _fn_ops().repeat_interleave(self, repeats, dim, output_size=output_size)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return _fn_ops().addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return _fn_ops().baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def bmm(self, mat2):
        return _fn_ops().bmm(self, mat2)

    def kron(self, other):
        return _fn_ops().kron(self, other)

    def det(self):
        return _fn_ops().det(self)

    def logdet(self):
        return _fn_ops().logdet(self)

    def slogdet(self):
        return _fn_ops().slogdet(self)

    def inverse(self):
        return _fn_ops().inverse(self)

    # -- PyTorch glue: rounding division, special values, new_*, in-place forms ----------
    def floor_divide(self, other):
        return _fn.floor_divide(self, other)

    def remainder(self, other):
        return _fn.remainder(self, other)

    def fmod(self, other):
        return _fn.fmod(self, other)

    __floordiv__, __mod__ = floor_divide, remainder

    def __rfloordiv__(self, other):
        return _fn.floor_divide(other, self)

    def __rmod__(self, other):
        return _fn.remainder(other, self)

    def floor_divide_(self, other):
        self._check_inplace()
        return self._assign(_fn.floor_divide(self, other))

    def remainder_(self, other):
        self._check_inplace()
        return self._assign(_fn.remainder(self, other))

    def fmod_(self, other):
        self._check_inplace()
        return self._assign(_fn.fmod(self, other))

    __ifloordiv__, __imod__ = floor_divide_, remainder_

    def any(self, dim=None, keepdim=False, *, keepdims=None):
        return _fn.any(self, dim, keepdim if keepdims is None else keepdims)

    def all(self, dim=None, keepdim=False, *, keepdims=None):
        return _fn.all(self, dim, keepdim if keepdims is None else keepdims)

    def isnan(self):
        return _fn.isnan(self)

    def isinf(self):
        return _fn.isinf(self)

    def isposinf(self):
        return _fn.isposinf(self)

    def isneginf(self):
        return _fn.isneginf(self)

    def isfinite(self):
        return _fn.isfinite(self)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return _fn.nan_to_num(self, nan, posinf, neginf)

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
        self._check_inplace()
        return self._assign(_fn.nan_to_num(self, nan, posinf, neginf))

    def lerp(self, end, weight):
        return _fn.lerp(self, end, weight)

    def lerp_(self, end, weight):
        self._check_inplace()
        return self._assign(_fn.lerp(self, end, weight))

    def addcmul(self, tensor1, tensor2, *, value=1):
        return _fn.addcmul(self, tensor1, tensor2, value=value)

    def addcmul_(self, tensor1, tensor2, *, value=1):
        self._check_inplace()
        return self._assign(_fn.addcmul(self, tensor1, tensor2, value=value))

    def addcdiv(self, tensor1, tensor2, *, value=1):
        return _fn.addcdiv(self, tensor1, tensor2, value=value)

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        self._check_inplace()
        return self._assign(_fn.addcdiv(self, tensor1, tensor2, value=value))

    def masked_fill_(self, mask, value):
        self._check_inplace()
        if isinstance(mask, Tensor) and mask._data.shape != self._data.shape:
            shape = _pw.broadcast_shapes(self._data.shape, mask._data.shape)
            if shape != self._data.shape:
                raise RuntimeError(
                    f"output with shape {list(self._data.shape)} doesn't match the broadcast "
                    f"shape {list(shape)}"
                )
        return self._assign(self.masked_fill(mask, value))

    def index_fill(self, dim, index, value):
        return _fill_at(self, dim, index, value)

    def index_fill_(self, dim, index, value):
        self._check_inplace()
        return self._assign(_fill_at(self, dim, index, value, "index_fill_"))

    def type_as(self, other):
        return self.to(other.dtype)

    # new tensors with this one's dtype and device unless given
    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, **_):
        from .creation import zeros

        return zeros(*size, **self._new_kw(dtype, device, requires_grad))

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False, **_):
        from .creation import ones

        return ones(*size, **self._new_kw(dtype, device, requires_grad))

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False, **_):
        from .creation import empty

        return empty(*size, **self._new_kw(dtype, device, requires_grad))

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, **_):
        from .creation import full

        if not isinstance(size, (tuple, list)):
            raise TypeError(
                "new_full(): argument 'size' (position 1) must be tuple of ints, not "
                f"{type(size).__name__}"
            )
        return full(size, fill_value, **self._new_kw(dtype, device, requires_grad))

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, **_):
        from .creation import tensor

        if isinstance(data, Tensor):
            import warnings

            warnings.warn(
                "To copy construct from a tensor, it is recommended to use "
                "sourceTensor.detach().clone() or "
                "sourceTensor.detach().clone().requires_grad_(True), rather than "
                "tensor.new_tensor(sourceTensor).",
                UserWarning,
                stacklevel=2,
            )
            data = data.detach().clone()
        return tensor(data, **self._new_kw(dtype, device, requires_grad))

    def _new_kw(self, dtype, device, requires_grad):
        return {
            "dtype": self.dtype if dtype is None else dtype,
            "device": self.device if device is None else device,
            "requires_grad": requires_grad,
        }

    # in-place random fills from nbgrad's generator (the numbers differ from PyTorch's)
    def uniform_(self, from_=0.0, to=1.0, *, generator=None):
        _random_float_only(self, "check_uniform_bounds")
        if from_ > to:
            raise RuntimeError(
                f"uniform_ expects to return a [from, to) range, but found from={from_:g} > "
                f"to={to:g}"
            )
        return self.copy_(_draw(self, generator, "uniform", from_, to))

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        _random_float_only(self, "normal_kernel_cpu")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        return self.copy_(_draw(self, generator, "normal", mean, std))

    def exponential_(self, lambd=1.0, *, generator=None):
        if self._data.dtype.kind != "f":
            raise RuntimeError(
                "Exponential distribution is a continuous probability distribution. dtype must "
                f"be a floating point but you specified {_dtype.scalar_name(self.dtype)}"
            )
        if not lambd > 0:
            raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
        return self.copy_(_draw(self, generator, "exponential", 1.0 / lambd))

    def bernoulli_(self, p=0.5, *, generator=None):
        if isinstance(p, Tensor):
            p = np.broadcast_to(p._data, self._data.shape)
        elif not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
        return self.copy_(_draw(self, generator, "random") < p)

    def random_(self, from_=None, to=None, *, generator=None):
        if from_ is not None and to is None:
            from_, to = 0, from_  # random_(to)
        lo = 0 if from_ is None else from_
        if to is None:  # up to the largest integer the dtype holds exactly
            d = self._data.dtype
            if d.kind == "f":
                to = 2 ** (np.finfo(d).nmant + 1) + 1
            else:
                to = 2 if d.kind == "b" else int(np.iinfo(d).max)
        if lo >= to:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={to}"
            )
        return self.copy_(_draw(self, generator, "integers", lo, to))


# methods of the block above: device-agnostic composites (they check devices themselves);
# their docstrings are PyTorch's (nbgrad/_docstrings.py)
COMPOSITE_METHODS = frozenset(
    (
        "tril",
        "triu",
        "diagonal",
        "diag",
        "diag_embed",
        "trace",
        "sort",
        "argsort",
        "msort",
        "topk",
        "kthvalue",
        "unique",
        "histc",
        "cumprod",
        "cummax",
        "cummin",
        "logcumsumexp",
        "roll",
        "repeat_interleave",
        "lerp",
        "addmm",
        "baddbmm",
        "bmm",
        "kron",
        "det",
        "logdet",
        "slogdet",
        "inverse",
    )
)


def _fn_ops():
    """The package namespace, where the ops above live (imported after this module)."""
    import nbgrad

    return nbgrad


def _rebuild(cls, data, requires_grad, cuda=False):
    """Unpickle a tensor (see `Tensor.__reduce_ex__`): a leaf, on the device it left."""
    if cuda:
        from .ops.cuda.tensor import CudaTensor, from_host

        t = from_host(data)
    else:
        t, CudaTensor = Tensor._make(data, -1, False), Tensor
    if cls is Tensor or cls is CudaTensor:
        return t.requires_grad_(requires_grad)
    return cls(t, requires_grad)  # nn.Parameter (or a subclass): (data, requires_grad)


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


# Exact types the elementwise fast paths accept (subclasses register here, e.g. Parameter);
# a set lookup costs what an `is` check does and keeps isinstance() off the hot path.
TENSOR_TYPES = {Tensor}


def is_tensor(obj):
    return isinstance(obj, Tensor)


# the op modules import Tensor from here, so they come last
def replace_data(t, arr):
    """Point tensor `t` at a new array, giving up its tape slot (whose address is stale)."""
    if t._slot >= 0:
        TAPE.release(t._slot)
        t._slot = -1
    t._data = arr


from .ops import linalg as _linalg  # noqa: E402
from .ops import pointwise as _pw  # noqa: E402
from .ops import reduce as _reduce  # noqa: E402
from .ops import viewbase as _vb  # noqa: E402
from .ops import views as _views  # noqa: E402

_FAST: dict[str, Any] = _pw.FAST
# the operators are the elementwise fast paths themselves: one Python call less per op
Tensor.__add__ = _FAST["add"]
Tensor.__sub__ = _FAST["sub"]
Tensor.__mul__ = _FAST["mul"]
Tensor.__truediv__ = _FAST["div"]
Tensor.__pow__ = _FAST["pow"]
Tensor.__neg__ = _FAST["neg"]
from . import functions as _fn  # noqa: E402


# -- helpers of the glue methods above, and the in-place forms of the unary methods -----
def _fill_at(t, dim, index, value, name="index_fill"):
    """`t` with `value` at positions `index` along `dim` (index_fill)."""
    if not isinstance(index, Tensor) or index._data.dtype != np.int64:
        raise IndexError(f"{name}(): Expected dtype int64 for index.")
    if index._data.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(
            f"{name} only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s)."
        )
    if index.is_cuda != t.is_cuda:
        from .ops.cuda.forwards import device_error

        raise device_error(t.device, index.device)
    d = _wrap_dim(dim, t._data.ndim)
    n = t._data.shape[d] if t._data.ndim else 1
    pos = _host(index._data).reshape(-1)  # (the mask is made on the host, then moved)
    bad = pos[(pos >= n) | (pos < -n)]
    if bad.size:
        raise IndexError(f"index {bad[0]} is out of bounds for dimension {d} with size {n}")
    mask = np.zeros(n, np.bool_)
    mask[pos] = True
    shape = [1] * t._data.ndim
    if shape:
        shape[d] = n
    return t.masked_fill(_pw.to(Tensor._make(mask.reshape(shape), -1, False), t.device), value)


def _random_float_only(t, kernel):
    if t._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_dtype.scalar_name(t.dtype)}'"
        )


def _draw(t, generator, method, *args):
    """NumPy draws of t's shape from `generator` or nbgrad's (`copy_` casts them to t's
    dtype)."""
    from ._generator import numpy_rng

    return getattr(numpy_rng(generator), method)(*args, size=t._data.shape)


def _inplace_unary(name):
    method = getattr(Tensor, name)

    def f(self):
        self._check_inplace()
        return self._assign(method(self))

    f.__name__ = f.__qualname__ = name + "_"
    f.__doc__ = f"In-place `{name}`: writes `self.{name}()` into this tensor."
    return f


# every unary elementwise method gets its PyTorch in-place form (`x.exp_()`)
_UNARY_METHODS = (
    "neg negative exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan arcsin "
    "arccos arctan sinh cosh tanh sigmoid relu sqrt rsqrt abs square sign floor ceil "
    "reciprocal erf lgamma digamma"
).split()
for _name in _UNARY_METHODS:
    setattr(Tensor, _name + "_", _inplace_unary(_name))


def _round_(self, *, decimals=0):
    self._check_inplace()
    return self._assign(self.round(decimals=decimals))


def _atan2_(self, other):
    self._check_inplace()
    return self._assign(self.atan2(other))


def _clamp_min_(self, min):  # noqa: A002
    return self.clamp_(min, None)


def _clamp_max_(self, max):  # noqa: A002
    return self.clamp_(None, max)


for _name, _f in (
    ("round_", _round_),
    ("atan2_", _atan2_),
    ("arctan2_", _atan2_),
    ("clamp_min_", _clamp_min_),
    ("clamp_max_", _clamp_max_),
    ("multiply_", Tensor.mul_),
    ("divide_", Tensor.div_),
    ("true_divide_", Tensor.div_),
    ("subtract_", Tensor.sub_),
):
    setattr(Tensor, _name, _f)


class _Missing:
    """A PyTorch Tensor name nbgrad lacks: reading it (on a tensor or on the class) raises
    an AttributeError saying so, and `hasattr` is False. A descriptor rather than a
    `__getattr__`: a class with `__getattr__` makes every attribute read slower (~30 ns, a
    tenth of an op's cost), these cost nothing until read."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, cls=None):
        from ._torch_names import missing

        raise missing("torch.Tensor", self.name)


def _mark_missing():
    from ._torch_names import NAMES

    for name in NAMES["torch.Tensor"]:
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _Missing(name))


_mark_missing()
__all__ = ["Tensor", "is_tensor"]
