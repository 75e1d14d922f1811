"""`out=` on the functions that take it in PyTorch: the result is computed as usual, then
written into `out` (resized with PyTorch's warning when its shape differs, refused when its
dtype cannot hold the result), and `out` is returned."""

import inspect
import warnings

import numpy as np

from . import _dtype
from .autograd.grad_mode import STATE, no_grad
from .ops import pointwise as _pointwise
from .tensor import _C_NAMES, Tensor

# how each kind of op treats an `out` of another dtype than its result, as PyTorch does
#   cast: a dtype of a lower kind (float -> int, int -> bool) is refused
#   any: any dtype (reductions)
#   same: only the result's dtype; msg formatted with r/o (scalar names) or rc/oc (C names)
#   bool: only bool (any, all)
CAST, ANY = ("cast",), ("any",)


def same(msg):
    return ("same", msg)


def _tensors(args):
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (t for t in a if isinstance(t, Tensor))


def _check_dtype(name, rule, result, out):
    r, o = result.dtype, out.dtype
    kind = rule[0]
    if kind == "cast" and not np.can_cast(r.np, o.np, "same_kind"):
        if name in ("cat", "concat", "concatenate", "stack", "hstack", "vstack"):
            raise TypeError(
                f"torch.{name}(): input types can't be cast to the desired output type "
                f"{_dtype.scalar_name(o)}"
            )
        raise RuntimeError(
            f"result type {_dtype.scalar_name(r)} can't be cast to the desired output type "
            f"{_dtype.scalar_name(o)}"
        )
    if kind == "same" and r is not o:
        names = {"r": _dtype.scalar_name(r), "o": _dtype.scalar_name(o)}
        names.update(rc=_C_NAMES[r.name], oc=_C_NAMES[o.name])
        raise RuntimeError(rule[1].format(**names))
    if kind == "bool" and o is not _dtype.bool_:
        raise RuntimeError(
            f"{name} only supports bool tensor for result, got: {_dtype.scalar_name(o)}"
        )


def write(name, rule, fn, args, kwargs, out):
    """`fn(*args, **kwargs)` written into `out`, checked as PyTorch checks it."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if STATE.enabled and (out._rg or any(t._rg for t in _tensors((*args, *kwargs.values())))):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    with no_grad():
        result = fn(*args, **kwargs)
        _check_dtype(name, rule, result, out)
        shape = result._data.shape
        if out._data.shape != shape:
            if out._data.size:
                warnings.warn(
                    f"An output with one or more elements was resized since it had shape "
                    f"{list(out._data.shape)}, which does not match the required output shape "
                    f"{list(shape)}. This behavior is deprecated, and in a future PyTorch "
                    "release outputs will not be resized unless they have zero elements. You "
                    "can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                    "elements with t.resize_(0).",
                    UserWarning,
                    stacklevel=3,
                )
            from .creation import empty

            out.data = empty(shape, dtype=out.dtype, device=out.device)
        return out.copy_(result)  # an in-place write: views and the version check see it


def with_out(fn, rule, name=None):
    """`fn` taking PyTorch's keyword `out=` (see `write`)."""
    if getattr(fn, "takes_out", False):  # the unary fast paths take it themselves
        return fn
    name = name or fn.__name__
    code = getattr(fn, "__code__", None)
    packs = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
    if code and code.co_argcount == 1 and not code.co_kwonlyargcount and not code.co_flags & packs:
        # one positional argument (the elementwise fast paths): no argument packing on the
        # hot call

        def f(input, *, out=None):  # noqa: A002
            if out is None:
                return fn(input)
            return write(name, rule, fn, (input,), {}, out)

    else:

        def f(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            return write(name, rule, fn, args, kwargs, out)

    f.__name__ = f.__qualname__ = name
    f.__module__ = "nbgrad.functions"  # where it is public (and the API reference finds it)
    f.__doc__ = fn.__doc__
    f.__wrapped__ = fn
    return f


def _unary_out(name, fn, args, out):
    return write(name, CAST, fn, args, {}, out)


_pointwise.OUT_WRITER[0] = _unary_out
