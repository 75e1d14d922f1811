"""Running products, extrema and log-sums: cumprod, cummax, cummin, logcumsumexp.

cumprod is a scan of recorded multiplications (Hillis-Steele: log2(n) steps, each
multiplying the running products by themselves shifted), so it is exact where a product is
(zeros and negative values included, unlike exp(cumsum(log x))), and its gradient, double
backward and CUDA come from `mul`. cummax/cummin find their indices on the host and read
the values with a recorded gather. logcumsumexp is a native op, declared below with all
its facets (`registry.declare`): one pass per line forward, one backward.
"""

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .. import _dtype
from .._array import contig
from .._dtype import scalar_name
from .._optable import attrs, declare
from ..backends.cpu.rowio import cot, first, iattr, in_slot, out_slot, value, wants
from .hostside import check_tensor, on_device_of, values, wrap_dim
from .indexing import gather
from .recording import emit

return_types_cummax = namedtuple("cummax", ["values", "indices"])
return_types_cummin = namedtuple("cummin", ["values", "indices"])


def cumprod(input, dim, *, dtype=None):  # noqa: A002
    """Cumulative product along `dim`: `y[i] = x[0] * ... * x[i]`.

    Args:
        input (Tensor): the tensor (integer and bool inputs give int64).
        dim (int): the dim.
        dtype (nbgrad.dtype, optional): cast the input to this dtype first.

    Example::

        >>> torch.cumprod(torch.tensor([1., 2., 0., 3.]), 0)
        tensor([1., 2., 0., 0.])
    """
    check_tensor(input, "cumprod")
    d = wrap_dim(dim, input.dim())
    if dtype is not None:
        input = input.to(_dtype.as_dtype(dtype))
    if not input.is_floating_point():  # no gradient: NumPy's product, in int64
        return on_device_of(np.cumprod(values(input).astype(np.int64), axis=d), input)
    if input.dim() == 0:
        return input.clone()
    y = input.movedim(d, -1) if d != input.dim() - 1 else input
    n, s = y.shape[-1], 1
    from .joins import cat

    while s < n:
        y = cat([y[..., :s], y[..., s:] * y[..., :-s]], -1)
        s *= 2
    return y.movedim(-1, d) if d != input.dim() - 1 else y


def _running(input, dim, is_max):  # noqa: A002
    name = "cummax" if is_max else "cummin"
    check_tensor(input, name)
    d = wrap_dim(dim, input.dim())
    a = values(input)
    if a.ndim == 0:
        return input.clone(), on_device_of(np.zeros((), np.int64), input)
    acc = np.maximum if is_max else np.minimum
    m = acc.accumulate(a, axis=d) if a.shape[d] else a
    # the latest position holding the running extreme; a NaN stays the extreme from there
    # on and each later NaN takes over, as in PyTorch
    hit = (a == m) | (np.isnan(a) if a.dtype.kind == "f" else False)
    shape = [1] * a.ndim
    shape[d] = a.shape[d]
    pos = np.where(hit, np.arange(a.shape[d]).reshape(shape), 0)
    idx = np.maximum.accumulate(pos, axis=d) if a.shape[d] else pos.astype(np.int64)
    it = on_device_of(idx.astype(np.int64), input)
    return gather(input, d, it), it


def cummax(input, dim):  # noqa: A002
    """Running maximum along `dim` and the index where each running maximum sits.

    Args:
        input (Tensor): the tensor.
        dim (int): the dim.

    Example::

        >>> torch.cummax(torch.tensor([1., 3., 2.]), 0).indices
        tensor([0, 1, 1])
    """
    return return_types_cummax(*_running(input, dim, True))


def cummin(input, dim):  # noqa: A002
    """Running minimum along `dim` and the index where each running minimum sits.

    Args:
        input (Tensor): the tensor.
        dim (int): the dim.

    Example::

        >>> torch.cummin(torch.tensor([3., 1., 2.]), 0).values
        tensor([3., 1., 1.])
    """
    return return_types_cummin(*_running(input, dim, False))


# -- logcumsumexp: a native op ------------------------------------------------------------
# A row sees the input as (outer, n, inner) around the dim: outer * inner lines of n
# values, line j starting at (j // inner) * n * inner + j % inner, stride inner.
LCSE = attrs("outer", "n", "inner")


@njit(cache=True, error_model="numpy")
def _logaddexp(a, b):
    """log(exp(a) + exp(b)) without overflow; -inf is the empty sum, NaN propagates."""
    if a != a or b != b:
        return a + b
    if a < b:
        a, b = b, a
    if b == -math.inf or a == math.inf:
        return a
    return a + math.log1p(math.exp(b - a))


@njit(cache=True, error_model="numpy")
def lcse_forward(x, y, outer, n, inner):
    """y = log(cumsum(exp(x))) along each line, as a running logaddexp."""
    x = x.reshape(x.size)
    y = y.reshape(y.size)
    for j in range(outer * inner):
        base = (j // inner) * n * inner + j % inner
        acc = x.dtype.type(-math.inf)
        for r in range(n):
            acc = _logaddexp(acc, x[base + r * inner])
            y[base + r * inner] = acc


@njit(cache=True, error_model="numpy")
def lcse_backward(x, y, g, gx, outer, n, inner, init):
    """gx (+)= sum_{i >= r} g_i exp(x_r - y_i), as exp(x_r - y_r) t_r with the reverse
    running t_r = g_r + exp(y_r - y_{r+1}) t_{r+1}: y never decreases along a line and
    x_r <= y_r, so both exponentials stay in [0, 1] (no overflow at any scale)."""
    x, y, g, gx = x.reshape(x.size), y.reshape(y.size), g.reshape(g.size), gx.reshape(gx.size)
    for j in range(outer * inner):
        base = (j // inner) * n * inner + j % inner
        t = 0.0
        for q in range(n):
            i = base + (n - 1 - q) * inner
            t = g[i] if q == 0 else g[i] + math.exp(y[i] - y[i + inner]) * t
            d = math.exp(x[i] - y[i]) * t
            if init:
                gx[i] = d
            else:
                gx[i] += d


@njit(cache=True, error_model="numpy")
def vjp_logcumsumexp(T, k, V):
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    outer, n, inner = iattr(T, k, LCSE.outer), iattr(T, k, LCSE.n), iattr(T, k, LCSE.inner)
    x, y = value(T, s_x, V), value(T, s_y, V)
    lcse_backward(x, y, cot(T, s_y, V), cot(T, s_x, V), outer, n, inner, first(T, s_x))


@njit(cache=True, error_model="numpy")
def replay_logcumsumexp(T, k, V):
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    outer, n, inner = iattr(T, k, LCSE.outer), iattr(T, k, LCSE.n), iattr(T, k, LCSE.inner)
    lcse_forward(value(T, s_x, V), value(T, s_y, V), outer, n, inner)


def _cuda_logcumsumexp(x, a):
    from ..backends.cuda import runtime as rt
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch
    from .cuda.forwards import wrap

    y = rt.empty(x._data.shape, x._data.dtype)
    if y.size:
        launch(build().lcse_lines, a.outer * a.inner, x._data.flat, y.flat, *a)
    return wrap(y, (x,), LOGCUMSUMEXP, iattrs=a, saved=(x._data, y))


def _cuda_vjp(G, k):
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch

    sx = G.inp(k, 0)
    if G.wants(sx):
        a = type(LCSE)(*G.iattrs(k))
        x, y = G.saved(k)
        gx, acc = G.take(sx)
        g = G.cot(G.out(k, 0))
        launch(build().lcse_vjp, a.outer * a.inner, x, y, g, gx, *a, acc)


def _dvjp(row, g):
    """The backward kernel's recurrence, recorded with nbgrad ops: t = g + a * shift(t),
    a = exp(y_r - y_{r+1}) in [0, 1], solved as a log-depth scan of affine maps (each
    step composes a map with the one s places later), then gx = exp(x - y) * t. Every
    value stays bounded, as in the kernel, so it is exact at any scale in float32 too."""
    from .joins import cat

    a = row.attrs()
    n = a.n
    x = row.value(row.ins[0], 0).reshape(a.outer, n, a.inner)
    y = row.value(row.outs[0], 1).reshape(a.outer, n, a.inner)
    t = g.reshape(row.bshape + (a.outer, n, a.inner))
    if n > 1:
        m = cat([(y[:, :-1] - y[:, 1:]).exp(), y[:, :1] * 0], 1)  # a_{n-1} = 0: t ends at g
        s = 1
        while s < n:
            t = cat([t[..., : n - s, :] + m[:, : n - s] * t[..., s:, :], t[..., n - s :, :]], -2)
            m = cat([m[:, : n - s] * m[:, s:], m[:, n - s :]], 1)
            s *= 2
    gx = (x - y).exp() * t
    return (gx.reshape(row.bshape + row.shape(row.ins[0])),)


LOGCUMSUMEXP = declare(
    "logcumsumexp",
    "LogcumsumexpBackward0",
    a=LCSE,
    vjp=vjp_logcumsumexp,
    replay=replay_logcumsumexp,
    cuda_vjp=_cuda_vjp,
    dvjp=_dvjp,
)


def logcumsumexp(input, dim):  # noqa: A002
    """Logarithm of the cumulative sum of exponentials along `dim`:
    `y[i] = log(exp(x[0]) + ... + exp(x[i]))`, computed without overflow.

    Args:
        input (Tensor): the tensor (floating point).
        dim (int): the dim.

    Example::

        >>> torch.logcumsumexp(torch.tensor([0., 0., 0.]), 0)
        tensor([0.0000, 0.6931, 1.0986])
    """
    check_tensor(input, "logcumsumexp")
    d = wrap_dim(dim, input.dim())
    data = input._data
    if data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"logcumsumexp_out_cpu\" not implemented for '{scalar_name(input.dtype)}'"
        )
    shape = data.shape if data.ndim else (1,)
    outer, inner = math.prod(shape[:d]), math.prod(shape[d + 1 :])
    a = LOGCUMSUMEXP.pack(outer=outer, n=shape[d], inner=inner)
    if input.is_cuda:
        return _cuda_logcumsumexp(input, type(LCSE)(*a))
    y = np.empty_like(data)
    lcse_forward(data, y, *a)
    return emit(LOGCUMSUMEXP, contig(y), (input,), iattrs=a, saved=(data, y))
