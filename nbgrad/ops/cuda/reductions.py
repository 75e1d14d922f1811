"""Reductions and scans along dims on CUDA, all through the two line kernels: forwards.

A reduction over a run of adjacent dims sees its input as (outer, n, inner): line j starts
at (j // inner) * n * inner + j % inner with stride inner, and one thread reduces it
(`kernels.lines`); `kernels.lines_vjp` writes the line's gradient. A set of dims that is
not adjacent is moved to the end first (a recorded permute copy). prod, var/std, norm,
logsumexp, amax/amin (ties share the gradient evenly) and cumsum are kinds of this kernel;
max/min over a dim are argmax/argmin plus a gather. Rows record the attributes the ops
declare (`ops/reduce.py`, `ops/select.py`, where their VJP launchers are).
"""

import math

from ... import _dtype
from ..._optable import BY_NAME
from ...backends.cuda import kernels as K
from ...backends.cuda import runtime as rt
from ...backends.cuda.kernels import build as _kernels
from ...backends.cuda.launch import launch
from ...ops import indexing as _ix
from ...ops import reduce as _red
from ...ops import select as _sel
from ...tensor import Tensor, _wrap_dim
from .forwards import _float, _tensor_cls, arg_best, binary, cast, permute, wrap


def line_layout(shape, dims):
    """(outer, n, inner) of reducing a run of adjacent `dims` (sorted) of `shape`; no dims:
    every element a line of its own."""
    if not dims:
        return math.prod(shape), 1, 1
    outer = math.prod(shape[: dims[0]])
    inner = math.prod(shape[dims[-1] + 1 :])
    return outer, math.prod(shape[dims[0] : dims[-1] + 1]), inner


def _adjacent(x, dims):
    """x, or its copy with `dims` (sorted) moved to the end if they are not adjacent, and
    the dims of what is returned."""
    s = x._data.shape
    if dims and list(dims) != list(range(dims[0], dims[-1] + 1)):
        keep = [d for d in range(len(s)) if d not in dims]
        x = permute(x, tuple(keep) + tuple(dims))
        dims = tuple(range(len(keep), len(s)))
    return x, dims


def reduce_lines(x, dims, keepdim, kind, op, p=0.0):
    """A reduction over `dims` by the line kernel of `kind`; the row records the op's
    attributes: the reduced dims of its input, or (outer, n, inner) for prod, and the
    kernel's parameter where the op declares one (var/std's correction, pnorm's p)."""
    _float(x, op.name)
    s = x._data.shape
    out_shape = tuple(1 if i in dims else n for i, n in enumerate(s) if keepdim or i not in dims)
    x2, dims2 = _adjacent(x, dims)
    outer, n, inner = line_layout(x2._data.shape, dims2)
    nl = outer * inner
    y = rt.empty(out_shape, x._data.dtype)
    if nl:
        launch(_kernels().lines, nl, x2._data.flat, y.flat, nl, n, inner, kind, p)
    names, bits = type(op.a)._fields, sum(1 << d for d in dims2)
    if "outer" in names:
        ia = op.pack(outer=outer, n=n, inner=inner)
    elif "mean" in names:  # var/std: the kernels recompute the mean
        ia = op.pack(dims=bits, mean=0)
    else:
        ia = op.pack(dims=bits)
    fa = (p,) if op.f else ()
    return wrap(y, (x2,), op, iattrs=ia, fattrs=fa, saved=(x2._data, y))


def prod(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = cast(x, _dtype.as_dtype(dtype))
    if dim is None:
        return reduce_lines(x, tuple(range(x._data.ndim)), False, K.PROD, BY_NAME["prod"])
    if not isinstance(dim, int):
        raise TypeError("prod(): argument 'dim' must be int")
    d = (_wrap_dim(dim, x._data.ndim),) if x._data.ndim else ()
    return reduce_lines(x, d, keepdim, K.PROD, BY_NAME["prod_dim"])


def var(x, dim=None, unbiased=None, keepdim=False, correction=None, is_std=False):
    dim, corr, keepdim = _red._var_args(dim, unbiased, correction, keepdim)
    kind, op = (K.STD, BY_NAME["std"]) if is_std else (K.VAR, BY_NAME["var"])
    return reduce_lines(x, _red._dims(dim, x._data.ndim), keepdim, kind, op, corr)


def logsumexp(x, dim, keepdim=False):
    return reduce_lines(x, _red._dims(dim, x._data.ndim), keepdim, K.LSE, BY_NAME["logsumexp"])


def norm(x, p="fro", dim=None, keepdim=False, dtype=None):
    if p is None or p == "fro":
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"norm with p={p!r} is not supported (numbers and 'fro' are)")
    if dtype is not None:
        x = cast(x, _dtype.as_dtype(dtype))
    p = float(p)
    op = BY_NAME["norm" if p == 2 else "pnorm"]
    if x._data.size == 0 and (p < 0 or math.isinf(p)):
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {p} norm on an empty tensor because "
            "the operation does not have an identity"
        )
    return reduce_lines(x, _red._dims(dim, x._data.ndim), keepdim, K.PNORM, op, p)


def amax(x, dim=(), keepdim=False, is_max=True, node=None):
    dims = _red._dims(None if dim == () else dim, x._data.ndim)
    node = node or ("AmaxBackward0" if is_max else "AminBackward0")
    _sel._empty_check(x, node.split("Backward")[0].lower(), None if dim == () else dims)
    return reduce_lines(x, dims, keepdim, K.AMAX if is_max else K.AMIN, _sel.AMAX[node])


def max_min(is_max, x, dim=None, keepdim=False):
    name = "max" if is_max else "min"
    if isinstance(dim, Tensor):
        return binary("maximum" if is_max else "minimum", x, dim)
    if dim is None:
        if x._data.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return amax(x, (), False, is_max, "MaxBackward1" if is_max else "MinBackward1")
    s = x._data.shape if x._data.ndim else (1,)
    d = _wrap_dim(dim, x._data.ndim)
    if s[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    idx = arg_best(x.detach(), dim, keepdim, is_max)
    pos = rt.empty(idx._data.shape, idx._data.dtype)
    launch(_kernels().line_pos, pos.size, idx._data.flat, pos.flat, s[d], math.prod(s[d + 1 :]))
    values = _ix.take(x, pos, idx._data.shape, "MaxBackward0" if is_max else "MinBackward0")
    return (_sel.return_types_max if is_max else _sel.return_types_min)(values, idx)


def cumsum(x, dim, dtype=None):
    if dtype is not None:
        x = cast(x, _dtype.as_dtype(dtype))
    _float(x, "cumsum")
    s = x._data.shape if x._data.ndim else (1,)
    d = _wrap_dim(dim, x._data.ndim)
    outer, n, inner = math.prod(s[:d]), s[d], math.prod(s[d + 1 :])
    nl = outer * inner if n else 0
    y = rt.empty(x._data.shape, x._data.dtype)
    if nl:
        launch(_kernels().lines, nl, x._data.flat, y.flat, nl, n, inner, K.CUMSUM, 0.0)
    op = BY_NAME["cumsum"]
    return wrap(y, (x,), op, iattrs=op.pack(outer=outer, n=n, inner=inner))


_ = _tensor_cls
