"""Top-level functional forms (`nbgrad.exp(x)`, `nbgrad.sum(x, 0)`, ...)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from nbgrad._array import contig

from . import _dtype
from .ops import activations as _act
from .ops import linalg, pointwise, reduce, views
from .ops import softmax as _softmax
from .ops.products import check_lerp as _check_lerp
from .tensor import Number, Tensor


def _unary(name: str) -> Callable[[Tensor], Tensor]:
    f = pointwise.FAST[name]
    f.__doc__ = f"Elementwise {name}; the derivative rule is in nbgrad/ops/elementwise.py."
    return f


neg = negative = _unary("neg")
exp = _unary("exp")
log = _unary("log")
sin = _unary("sin")
cos = _unary("cos")
tanh = _unary("tanh")
sigmoid = _unary("sigmoid")
relu = _unary("relu")
sqrt = _unary("sqrt")
abs = _unary("abs")  # noqa: A001


def add(input: Tensor, other: Tensor | Number, *, alpha: Number = 1) -> Tensor:  # noqa: A002
    return pointwise.binary("add", input, other if alpha == 1 else other * alpha)


def sub(input: Tensor, other: Tensor | Number, *, alpha: Number = 1) -> Tensor:  # noqa: A002
    return pointwise.binary("sub", input, other if alpha == 1 else other * alpha)


def mul(input: Tensor | Number, other: Tensor | Number) -> Tensor:  # noqa: A002
    return pointwise.FAST["mul"](input, other)


def div(input, other, *, rounding_mode=None):  # noqa: A002
    """Divides `input` by `other`, rounding the quotient as `rounding_mode` says.

    Args:
        input (Tensor or Number): the dividend.
        other (Tensor or Number): the divisor.
        rounding_mode (str, optional): None (true division), "trunc" (towards zero) or
            "floor" (towards -inf, as Python's `//`). Rounded quotients have zero gradient.

    Example::

        >>> torch.div(torch.tensor([-7., 7.]), 2, rounding_mode="floor")
        tensor([-4.,  3.])
    """
    if rounding_mode is None:
        return pointwise.FAST["div"](input, other)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    va, vb, dt = _operands("div", input, other)
    q = _rounded(rounding_mode, va, vb)
    if not _wants_grad(input, other):
        return _const(q)
    return _exact(floor(input / other), q)  # floor's gradient is zero, as PyTorch's here


def pow(input: Tensor | Number, exponent: Tensor | Number) -> Tensor:  # noqa: A001, A002
    return pointwise.binary("pow", input, exponent)


subtract, multiply, divide, true_divide = sub, mul, div, div


def sum(  # noqa: A001, A002
    input: Tensor,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: _dtype.dtype | None = None,
) -> Tensor:
    return reduce.sum(input, dim, keepdim, dtype=dtype)


def mean(  # noqa: A002
    input: Tensor,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: _dtype.dtype | None = None,
) -> Tensor:
    return reduce.mean(input, dim, keepdim, dtype=dtype)


def norm(  # noqa: A002
    input: Tensor,
    p: float | str = "fro",
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
) -> Tensor:
    return reduce.norm(input, p, dim, keepdim)


matmul = linalg.matmul
mm = linalg.mm
bmm = linalg.bmm
dot = linalg.dot
outer = ger = linalg.outer


def _cuda(x):
    """A CUDA tensor: the view functions call its own methods (the CPU views below record
    on the host tape)."""
    return getattr(x, "is_cuda", False)


def reshape(input: Tensor, shape: Sequence[int]) -> Tensor:  # noqa: A002
    return input.reshape(shape) if _cuda(input) else views.reshape(input, shape)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:  # noqa: A002
    if _cuda(input):
        return input.flatten(start_dim, end_dim)
    return views.flatten(input, start_dim, end_dim)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:  # noqa: A002
    return input.transpose(dim0, dim1) if _cuda(input) else views.transpose(input, dim0, dim1)


def t(input: Tensor) -> Tensor:  # noqa: A002
    return input.t()


def permute(input: Tensor, dims: Sequence[int]) -> Tensor:  # noqa: A002
    return input.permute(tuple(dims)) if _cuda(input) else views.permute(input, tuple(dims))


def unsqueeze(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    return input.unsqueeze(dim) if _cuda(input) else views.unsqueeze(input, dim)


def squeeze(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:  # noqa: A002
    if _cuda(input):
        return input.squeeze() if dim is None else input.squeeze(dim)
    return views.squeeze(input, dim)


def clone(input: Tensor) -> Tensor:  # noqa: A002
    return input.clone() if _cuda(input) else views.clone(input)


def eq(a: Tensor, b: Tensor | Number) -> Tensor:
    return a == b


def ne(a: Tensor, b: Tensor | Number) -> Tensor:
    return a != b


def lt(a: Tensor, b: Tensor | Number) -> Tensor:
    return a < b


def le(a: Tensor, b: Tensor | Number) -> Tensor:
    return a <= b


def gt(a: Tensor, b: Tensor | Number) -> Tensor:
    return a > b


def ge(a: Tensor, b: Tensor | Number) -> Tensor:
    return a >= b


def numel(input: Tensor) -> int:  # noqa: A002
    return input.numel()


def allclose(
    a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    import numpy as np

    return bool(np.allclose(a._data, b._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(a: Tensor, b: Tensor) -> bool:
    return a._data.shape == b._data.shape and bool((a._data == b._data).all())


# -- op coverage ------------------------------------------------------------------------
def _unary_int_ok(name: str, np_fn: Callable) -> Callable[[Tensor], Tensor]:
    """Elementwise op that keeps integer dtypes (torch: floor/ceil/round/sign/square)."""
    f = pointwise.FAST[name]

    def g(input):  # noqa: A002
        if isinstance(input, Tensor) and input._data.dtype.kind in "iub":
            return Tensor._make(contig(np_fn(input._data)), -1, False)
        return f(input)

    g.__name__ = name
    return g


square = _unary_int_ok("square", np.square)
sign = _unary_int_ok("sign", np.sign)
floor = _unary_int_ok("floor", lambda a: a.copy())
ceil = _unary_int_ok("ceil", lambda a: a.copy())


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001, A002
    if decimals:
        s = 10.0**decimals
        return _round(input * s) / s
    return _round(input)


_round = _unary_int_ok("round", lambda a: a.copy())
exp2 = _unary("exp2")
log2 = _unary("log2")
log10 = _unary("log10")
log1p = _unary("log1p")
expm1 = _unary("expm1")
reciprocal = _unary("reciprocal")
rsqrt = _unary("rsqrt")
sinh = _unary("sinh")
cosh = _unary("cosh")
tan = _unary("tan")
asin = arcsin = _unary("asin")
acos = arccos = _unary("acos")
atan = arctan = _unary("atan")
erf = _unary("erf")
lgamma = _unary("lgamma")
digamma = _unary("digamma")
silu = _unary("silu")


def atan2(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return pointwise.binary("atan2", input, other)


arctan2 = atan2


def _binary_tensors(name: str) -> Callable[[Tensor, Tensor], Tensor]:
    def f(input, other):  # noqa: A002
        for t in (input, other):
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"{name}(): argument 'other' (position 2) must be Tensor, not "
                    f"{type(t).__name__}"
                )
        if input._data.dtype.kind != "f" and other._data.dtype.kind != "f":
            from .ops.pointwise import broadcast_shapes

            broadcast_shapes(input._data.shape, other._data.shape)
            npf = np.maximum if name == "maximum" else np.minimum
            r = npf(input._data, other._data)
            return Tensor._make(contig(r), -1, False)
        return pointwise.binary(name, input, other)

    f.__name__ = name
    return f


maximum = _binary_tensors("maximum")
minimum = _binary_tensors("minimum")
fmax_ = maximum


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    if approximate == "none":
        return pointwise.FAST["gelu"](input)
    if approximate == "tanh":
        return pointwise.FAST["gelu_tanh"](input)
    raise RuntimeError("approximate argument must be either none or tanh.")


def softmax(input: Tensor, dim: int | None = None, dtype: _dtype.dtype | None = None) -> Tensor:  # noqa: A002
    return _softmax.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, dtype: _dtype.dtype | None = None) -> Tensor:  # noqa: A002
    return _softmax.log_softmax(input, dim, dtype)


def clamp(
    input: Tensor, min: Tensor | Number | None = None, max: Tensor | Number | None = None
) -> Tensor:  # noqa: A001, A002
    return _act.clamp(input, min, max)


clip = clamp


def clamp_min(input: Tensor, min: Tensor | Number) -> Tensor:  # noqa: A001, A002
    return _act.clamp(input, min, None)


def clamp_max(input: Tensor, max: Tensor | Number) -> Tensor:  # noqa: A001, A002
    return _act.clamp(input, None, max)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:  # noqa: A002
    return _act.hardtanh(input, min_val, max_val)


# -- reductions, selection, joins, indexing, einsum -----------------------------------
from .ops import einsum as _einsum_mod  # noqa: E402
from .ops import indexing as _indexing  # noqa: E402
from .ops import joins as _joins  # noqa: E402
from .ops import select as _select  # noqa: E402

max = _select.max  # noqa: A001
min = _select.min  # noqa: A001
amax = _select.amax
amin = _select.amin
argmax = _select.argmax
argmin = _select.argmin
where = _select.where
prod = reduce.prod
var = reduce.var
std = reduce.std
logsumexp = reduce.logsumexp
cumsum = reduce.cumsum
cat = concat = concatenate = _joins.cat
stack = _joins.stack
hstack = _joins.hstack
vstack = _joins.vstack
split = _joins.split
chunk = _joins.chunk
unbind = _joins.unbind
narrow = _joins.narrow
flip = _joins.flip
fliplr = _joins.fliplr
flipud = _joins.flipud
tile = _joins.tile
movedim = moveaxis = _joins.movedim
gather = _indexing.gather
take_along_dim = _indexing.take_along_dim
scatter_add = _indexing.scatter_add
index_select = _indexing.index_select
index_add = _indexing.index_add
einsum = _einsum_mod.einsum


def var_mean(  # noqa: A002
    input: Tensor,
    dim: int | Sequence[int] | None = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: int | None = None,
) -> tuple[Tensor, Tensor]:
    return var(input, dim, unbiased, keepdim, correction=correction), mean(
        input, dim if not isinstance(dim, bool) else None, keepdim
    )


def std_mean(  # noqa: A002
    input: Tensor,
    dim: int | Sequence[int] | None = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: int | None = None,
) -> tuple[Tensor, Tensor]:
    return std(input, dim, unbiased, keepdim, correction=correction), mean(
        input, dim if not isinstance(dim, bool) else None, keepdim
    )


# -- PyTorch glue: rounding division, special values, composites ------------------------
import builtins as _b  # noqa: E402
import math as _math  # noqa: E402

from .autograd.function import Function as _Function  # noqa: E402

pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan


def _cpu_only(name, *args):
    if _b.any(getattr(a, "is_cuda", False) for a in args):
        raise NotImplementedError(  # the message of the CUDA tensors' own refusals
            f"nbgrad: '{name}' has no CUDA kernel yet and CUDA tensors are never computed on "
            "the host silently; move the tensors to the CPU with .cpu() (device: cuda:0)"
        )


def _operands(name, a, b):
    """NumPy values of `a` and `b` in their result dtype (PyTorch's promotion), and it."""
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    if ta and tb:
        pointwise.broadcast_shapes(a._data.shape, b._data.shape)
        dt = pointwise._result_dtype(a, b)
    elif ta and pointwise.is_scalar(b):
        dt = _dtype.result_type_scalar(a.dtype, b)
    elif tb and pointwise.is_scalar(a):
        dt = _dtype.result_type_scalar(b.dtype, a)
    else:
        bad, pos = (b, 2) if ta else (a, 1)
        arg = "other" if pos == 2 else "input"
        raise TypeError(
            f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(bad).__name__}"
        )
    _cpu_only(name, a, b)
    va, vb = (x._data if isinstance(x, Tensor) else x for x in (a, b))
    va, vb = np.asarray(va, dt.np), np.asarray(vb, dt.np)
    if not dt.is_floating_point and np.any(vb == 0):
        raise RuntimeError("ZeroDivisionError")
    return va, vb, dt


def _rounded(mode, va, vb):
    """The quotient rounded towards -inf ("floor") or zero ("trunc"), in va's dtype."""
    with np.errstate(all="ignore"):
        if mode == "floor":
            return np.floor_divide(va, vb)
        if va.dtype.kind == "f":
            return np.trunc(va / vb)
        q = np.floor_divide(va, vb)
        return q + ((np.remainder(va, vb) != 0) & ((va < 0) != (vb < 0)))


def _const(values):
    return Tensor._make(contig(np.asarray(values)), -1, False)


def _exact(composite, values):
    """`composite` (its gradient) with exactly `values` as its value: the two differ by
    rounding only, so `c + (v - c)` gives back `v` (Sterbenz)."""
    if not composite._rg:
        return _const(values.astype(composite._data.dtype))
    with np.errstate(all="ignore"):
        fix = values - composite._data
    fix[~np.isfinite(fix)] = 0  # where the composite is not finite, it is already right
    return composite + _const(fix.astype(composite._data.dtype))


class _NoDerivative(_Function):
    """An op PyTorch does not differentiate: its result requires grad, backward raises."""

    @staticmethod
    def forward(ctx, op, values, *tensors):
        ctx.op = op
        return _const(values)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(f"derivative for aten::{ctx.op} is not implemented")


def _wants_grad(*xs):
    from .autograd.grad_mode import STATE

    return STATE.enabled and _b.any(isinstance(x, Tensor) and x._rg for x in xs)


def floor_divide(input, other):  # noqa: A002
    """Divides `input` by `other` and rounds the quotient down (Python's `//`).

    Args:
        input (Tensor or Number): the dividend.
        other (Tensor or Number): the divisor.

    Example::

        >>> torch.floor_divide(torch.tensor([-7, 7]), 2)
        tensor([-4,  3])
    """
    va, vb, dt = _operands("floor_divide", input, other)
    q = _rounded("floor", va, vb)
    if _wants_grad(input, other):  # PyTorch has no derivative for it
        return _NoDerivative.apply("floor_divide", q, input, other)
    return _const(q)


def _mod(name, np_fn, mode, input, other):  # noqa: A002
    va, vb, dt = _operands(name, input, other)
    with np.errstate(all="ignore"):
        r = np_fn(va, vb)
    if not _wants_grad(input, other):
        return _const(r)
    if not isinstance(input, Tensor):
        return _NoDerivative.apply(name, r, other)
    # d/da = 1, d/db = -(the rounded quotient), as PyTorch's RemainderBackward/FmodBackward
    q = _const(_rounded(mode, va, vb))
    return _exact(input - q * other, r)


def remainder(input, other):  # noqa: A002
    """Python's modulus (`%`): `input - floor(input / other) * other`, with the sign of
    `other`.

    Args:
        input (Tensor or Number): the dividend.
        other (Tensor or Number): the divisor.

    Example::

        >>> torch.remainder(torch.tensor([-3., 3.]), 2)
        tensor([1., 1.])
    """
    return _mod("remainder", np.remainder, "floor", input, other)


def fmod(input, other):  # noqa: A002
    """C's modulus: `input - trunc(input / other) * other`, with the sign of `input`.

    Args:
        input (Tensor): the dividend.
        other (Tensor or Number): the divisor.

    Example::

        >>> torch.fmod(torch.tensor([-3., 3.]), 2)
        tensor([-1.,  1.])
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"fmod(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    return _mod("fmod", np.fmod, "trunc", input, other)


def _bool_of(name, np_fn, input):  # noqa: A002
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    _cpu_only(name, input)
    d = input._data
    if d.dtype.kind != "f":
        return _const(
            np.zeros(d.shape, np.bool_) if name != "isfinite" else np.ones(d.shape, np.bool_)
        )
    return _const(np_fn(d))


def isnan(input):  # noqa: A002
    """Returns a bool tensor that is True where `input` is NaN.

    Example::

        >>> torch.isnan(torch.tensor([1., float("nan")]))
        tensor([False,  True])
    """
    return _bool_of("isnan", np.isnan, input)


def isinf(input):  # noqa: A002
    """Returns a bool tensor that is True where `input` is +inf or -inf.

    Example::

        >>> torch.isinf(torch.tensor([1., float("inf"), -float("inf")]))
        tensor([False,  True,  True])
    """
    return _bool_of("isinf", np.isinf, input)


def isposinf(input):  # noqa: A002
    """Returns a bool tensor that is True where `input` is +inf.

    Example::

        >>> torch.isposinf(torch.tensor([1., float("inf"), -float("inf")]))
        tensor([False,  True, False])
    """
    return _bool_of("isposinf", np.isposinf, input)


def isneginf(input):  # noqa: A002
    """Returns a bool tensor that is True where `input` is -inf.

    Example::

        >>> torch.isneginf(torch.tensor([1., float("inf"), -float("inf")]))
        tensor([False, False,  True])
    """
    return _bool_of("isneginf", np.isneginf, input)


def isfinite(input):  # noqa: A002
    """Returns a bool tensor that is True where `input` is neither infinite nor NaN.

    Example::

        >>> torch.isfinite(torch.tensor([1., float("inf"), float("nan")]))
        tensor([ True, False, False])
    """
    return _bool_of("isfinite", np.isfinite, input)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    """Replaces NaN, +inf and -inf in `input` (by default with 0 and the dtype's largest
    and lowest finite values). The gradient passes where `input` is finite.

    Args:
        input (Tensor): the input.
        nan (float): the value for NaN. Default: 0.
        posinf (float, optional): the value for +inf. Default: the largest finite value.
        neginf (float, optional): the value for -inf. Default: the lowest finite value.

    Example::

        >>> torch.nan_to_num(torch.tensor([float("nan"), 2., -float("inf")]), neginf=-9.)
        tensor([ 0.,  2., -9.])
    """
    _cpu_only("nan_to_num", input)
    d = input._data
    if d.dtype.kind != "f":
        return views.clone(input)
    values = np.nan_to_num(d, nan=nan, posinf=posinf, neginf=neginf)
    finite = _const(np.isfinite(d))
    return where(finite, input, _const(values))


def _reduce_bool(name, np_fn, input, dim, keepdim):  # noqa: A002
    _cpu_only(name, input)
    d = input._data
    dims = reduce._dims(dim, d.ndim)
    return _const(np_fn(d, axis=dims, keepdims=keepdim))


def any(input, dim=None, keepdim=False):  # noqa: A001, A002
    """Tests whether any element of `input` (over all of it, or along `dim`) is nonzero.

    Args:
        input (Tensor): the input.
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: all.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.

    Example::

        >>> torch.any(torch.tensor([[0, 1], [0, 0]]), dim=1)
        tensor([ True, False])
    """
    return _reduce_bool("any", np.any, input, dim, keepdim)


def all(input, dim=None, keepdim=False):  # noqa: A001, A002
    """Tests whether every element of `input` (over all of it, or along `dim`) is nonzero.

    Args:
        input (Tensor): the input.
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: all.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.

    Example::

        >>> torch.all(torch.tensor([[1, 1], [0, 1]]), dim=1)
        tensor([ True, False])
    """
    return _reduce_bool("all", np.all, input, dim, keepdim)


def _float_only(name, *ts):
    for t in ts:
        if isinstance(t, Tensor) and t._data.dtype.kind != "f":
            raise NotImplementedError(
                f"\"{name}\" not implemented for '{_dtype.scalar_name(t.dtype)}'"
            )


def lerp(input, end, weight):  # noqa: A002
    """Linear interpolation `input + weight * (end - input)`, computed as PyTorch does
    (from `end` when `|weight| >= 0.5`).

    Args:
        input (Tensor): the start points.
        end (Tensor): the end points.
        weight (float or Tensor): the weight(s).

    Example::

        >>> torch.lerp(torch.tensor([1., 2.]), torch.tensor([3., 6.]), 0.5)
        tensor([2., 4.])
    """
    _check_lerp(input, end, weight)
    d = end - input
    if pointwise.is_scalar(weight):
        return input + weight * d if _b.abs(weight) < 0.5 else end - d * (1 - weight)
    near = _const(np.abs(weight._data) < 0.5)
    return where(near, input + weight * d, end - d * (1 - weight))


def addcmul(input, tensor1, tensor2, *, value=1):  # noqa: A002
    """`input + value * tensor1 * tensor2`, elementwise with broadcasting.

    Example::

        >>> torch.addcmul(torch.ones(2), torch.tensor([1., 2.]), torch.tensor([3., 4.]), value=2)
        tensor([ 7., 17.])
    """
    return input + value * tensor1 * tensor2 if value != 1 else input + tensor1 * tensor2


def addcdiv(input, tensor1, tensor2, *, value=1):  # noqa: A002
    """`input + value * tensor1 / tensor2`, elementwise with broadcasting.

    Example::

        >>> torch.addcdiv(torch.ones(2), torch.tensor([1., 2.]), torch.tensor([4., 4.]), value=2)
        tensor([1.5000, 2.0000])
    """
    if _b.all(isinstance(t, Tensor) and t._data.dtype.kind in "iub" for t in (tensor1, tensor2)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / "
            "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes."
        )
    return input + value * tensor1 / tensor2 if value != 1 else input + tensor1 / tensor2


# keepdims= (NumPy's spelling) and out= where PyTorch takes them
from . import _out  # noqa: E402


def _keepdims(fn):
    def f(*args, keepdims=None, **kwargs):
        if keepdims is not None:
            kwargs["keepdim"] = keepdims
        return fn(*args, **kwargs)

    f.__name__, f.__doc__, f.__wrapped__ = fn.__name__, fn.__doc__, fn
    return f


_MM = "Expected out tensor to have dtype {rc}, but got {oc} instead"
_OUT = {
    _out.CAST: (
        "add sub subtract mul multiply div divide true_divide pow atan2 arctan2 maximum "
        "minimum floor_divide remainder fmod lerp addcmul addcdiv nan_to_num neg negative exp "
        "exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan arcsin arccos arctan sinh "
        "cosh tanh sigmoid sqrt rsqrt abs square sign floor ceil round reciprocal erf lgamma "
        "digamma cat concat concatenate stack hstack vstack"
    ),
    _out.ANY: "sum mean prod cumsum logsumexp amax amin var std norm",
    _out.same(_MM): "matmul mm bmm dot outer ger",
    _out.same("Found dtype {o} but expected {r}"): "clamp clip clamp_min clamp_max",
    _out.same("Expected out type to be {r} but got {o}"): "where",
    ("bool",): "any all",
}
for _n in "sum mean prod var std logsumexp max min amax amin argmax argmin any all".split():
    globals()[_n] = _keepdims(globals()[_n])
for _rule, _names in _OUT.items():
    for _n in _names.split():
        globals()[_n] = _out.with_out(globals()[_n], _rule, _n)


# the torch-named functions only: not the op modules or helpers imported above
__all__ = [
    n
    for n, v in dict(globals()).items()
    if not n.startswith("_")
    and not isinstance(v, type(np))
    # (and not the names annotations use)
    and n not in ("Tensor", "fmax_", "contig", "annotations", "Callable", "Number", "Sequence")
]
