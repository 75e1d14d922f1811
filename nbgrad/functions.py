"""Top-level functional forms (`nbgrad.exp(x)`, `nbgrad.sum(x, 0)`, ...)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from nbgrad._array import contig

from . import _dtype
from .ops import activations as _act
from .ops import linalg, pointwise, reduce, views
from .ops import softmax as _softmax
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


def div(input: Tensor | Number, other: Tensor | Number) -> Tensor:  # noqa: A002
    return pointwise.FAST["div"](input, other)


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


def reshape(input: Tensor, shape: Sequence[int]) -> Tensor:  # noqa: A002
    return views.reshape(input, shape)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:  # noqa: A002
    return views.flatten(input, start_dim, end_dim)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:  # noqa: A002
    return views.transpose(input, dim0, dim1)


def t(input: Tensor) -> Tensor:  # noqa: A002
    return input.t()


def permute(input: Tensor, dims: Sequence[int]) -> Tensor:  # noqa: A002
    return views.permute(input, tuple(dims))


def unsqueeze(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    return views.unsqueeze(input, dim)


def squeeze(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:  # noqa: A002
    return views.squeeze(input, dim)


def clone(input: Tensor) -> Tensor:  # noqa: A002
    return views.clone(input)


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


# the torch-named functions only: not the op modules or helpers imported above
__all__ = [
    n
    for n, v in dict(globals()).items()
    if not n.startswith("_")
    and not isinstance(v, type(np))
    # (and not the names annotations use)
    and n not in ("Tensor", "fmax_", "contig", "annotations", "Callable", "Number", "Sequence")
]
