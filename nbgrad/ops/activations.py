"""Elementwise ops with float parameters: leaky_relu, elu, hardtanh, softplus, clamp.

The rule tables of `elementwise.py` have no parameters, so these share one hand-written
forward kernel and one VJP kernel, switched (once per call, outside the loop) on the op's
kind; the parameters are the row's float attrs. Each op is declared at the end of the
kernels with its facets: the VJP, the replay (the eager kernel) and the differentiable
VJP; the CUDA kernels compile the same scalar rules (`rules.provide`).
"""

import math

import numpy as np
from numba import njit, prange

from nbgrad._array import contig

from .._dtype import scalar_name as _scalar_name
from .._optable import attrs, declare
from ..backends import rules
from ..backends.cpu.codegen import PAR_MIN
from ..backends.cpu.rowio import cot, fattr, first, iattr, in_slot, numel, out_slot, value, wants
from ..tensor import Tensor
from .cuda import launcher
from .recording import emit

LEAKY, ELU, HARDTANH, SOFTPLUS, CLAMP = range(5)
# a row: which activation, and its parameters (leaky_relu: the slope; elu: alpha, scale,
# input scale; hardtanh and clamp: min, max; softplus: beta, threshold)
A = attrs("kind")
F = attrs("p0", "p1", "p2")


@njit(inline="always")
def _f(kind, x, p0, p1, p2):
    if kind == LEAKY:
        return x if x > 0 else x * p0
    if kind == ELU:  # p0 alpha, p1 scale, p2 input_scale
        return x * p1 if x > 0 else (math.exp(x * p2) - 1) * p0 * p1
    if kind == HARDTANH:
        return p0 if x < p0 else (p1 if x > p1 else x)
    if kind == SOFTPLUS:  # p0 beta, p1 threshold
        z = x * p0
        return x if z > p1 else math.log1p(math.exp(z)) / p0
    # clamp: NaN propagates; min applied first, then max (as torch when min > max)
    if x != x:
        return x
    y = p0 if x < p0 else x
    return p1 if y > p1 else y


@njit(inline="always")
def _df(kind, x, p0, p1, p2):
    if kind == LEAKY:
        return 1.0 if x > 0 else p0
    if kind == ELU:
        return p1 if x > 0 else p0 * p1 * p2 * math.exp(x * p2)
    if kind == HARDTANH:
        return 1.0 if (x > p0 and x < p1) else 0.0
    if kind == SOFTPLUS:
        z = x * p0
        if z > p1:
            return 1.0
        e = math.exp(z)
        return e / (e + 1.0)
    return 1.0 if (x >= p0 and x <= p1) else 0.0


rules.provide(activation=_f, activation_grad=_df)  # (the CUDA kernels compile them too)


@njit(cache=True, error_model="numpy")
def _fwd(x, out, kind, p0, p1, p2):
    x = x.reshape(x.size)
    o = out.reshape(out.size)
    q0, q1, q2 = x.dtype.type(p0), x.dtype.type(p1), x.dtype.type(p2)
    for i in range(x.size):
        o[i] = _f(kind, x[i], q0, q1, q2)


@njit(cache=True, parallel=True, error_model="numpy")
def _fwd_par(x, out, kind, p0, p1, p2):
    x = x.reshape(x.size)
    o = out.reshape(out.size)
    q0, q1, q2 = x.dtype.type(p0), x.dtype.type(p1), x.dtype.type(p2)
    for i in prange(x.size):
        o[i] = _f(kind, x[i], q0, q1, q2)


@njit(cache=True, error_model="numpy")
def vjp_param(T, k, V):
    s_y = out_slot(T, k, 0)
    s_x = in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    kind = iattr(T, k, A.kind)
    n = numel(T, s_y)
    g = cot(T, s_y, V)
    x = value(T, s_x, V)
    t = g.dtype.type
    p0, p1, p2 = t(fattr(T, k, F.p0)), t(fattr(T, k, F.p1)), t(fattr(T, k, F.p2))
    gx = cot(T, s_x, V)
    if first(T, s_x):
        for i in range(n):
            gx[i] = g[i] * _df(kind, x[i], p0, p1, p2)
    else:
        for i in range(n):
            gx[i] += g[i] * _df(kind, x[i], p0, p1, p2)


@njit(cache=True, error_model="numpy")
def replay_param(T, k, V):
    """The eager kernel, as eager picks it (nbgrad.compile)."""
    x, y = value(T, in_slot(T, k, 0), V), value(T, out_slot(T, k, 0), V)
    kind = iattr(T, k, A.kind)
    p0, p1, p2 = fattr(T, k, F.p0), fattr(T, k, F.p1), fattr(T, k, F.p2)
    if x.size >= PAR_MIN:
        _fwd_par(x, y, kind, p0, p1, p2)
    else:
        _fwd(x, y, kind, p0, p1, p2)


def _dvjp(row, g):
    """gx = g * f'(x) with nbgrad ops (create_graph, forward mode): a constant slope where
    f is piecewise linear, the smooth piece recomputed from x where it is not (elu's
    exponential, softplus's sigmoid). The masks are constants on the row's device."""
    from .select import where

    kind, (p0, p1, p2) = row.attrs().kind, row.float_attrs()
    x = row.x()
    xd = x.detach()

    def mask(m):  # a bool Tensor as 0/1 in x's dtype
        return m.to(x.dtype)

    if kind == LEAKY:
        return (where(xd > 0, g, g * p0),)
    if kind == HARDTANH:
        return (g * mask((xd > p0) & (xd < p1)),)
    if kind == CLAMP:
        return (g * mask((xd >= p0) & (xd <= p1)),)
    if kind == ELU:  # p0 alpha, p1 scale, p2 input_scale
        pos = xd > 0
        neg = mask(~pos)  # x masked to the negative piece: exp cannot overflow
        curve = (x * neg * p2).exp() * (p0 * p1 * p2) * neg
        return (g * (curve + mask(pos) * p1),)
    # softplus: p0 beta, p1 threshold; the identity above the threshold
    lin = xd * p0 > p1
    return (g * ((x * p0).sigmoid() * mask(~lin) + mask(lin)),)


_OPS = {
    kind: declare(
        name,
        node,
        a=A,
        f=F,
        vjp=vjp_param,
        replay=replay_param,
        dvjp=_dvjp,
        cuda_vjp=launcher("cuda.forwards", "vjp_act"),
    )  # fmt: skip
    for kind, name, node in (
        (LEAKY, "leaky_relu", "LeakyReluBackward0"),
        (ELU, "elu", "EluBackward0"),
        (HARDTANH, "hardtanh", "HardtanhBackward0"),
        (SOFTPLUS, "softplus", "SoftplusBackward0"),
        (CLAMP, "clamp", "ClampBackward1"),
    )
}


def apply(kind, x, p0=0.0, p1=0.0, p2=0.0, name="activation"):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )
    if x.is_cuda:
        from .cuda.forwards import activation

        return activation(_OPS[kind], kind, x, p0, p1, p2)
    data = x._data
    if data.dtype.kind != "f":
        if kind == CLAMP:  # clamp() sends integer tensors here only with integer bounds:
            # pass them as ints, or NumPy would promote the result to float64
            lo = None if p0 == -math.inf else int(p0)
            hi = None if p1 == math.inf else int(p1)
            return Tensor._make(contig(np.clip(data, lo, hi)), -1, False)
        raise RuntimeError(f"\"{name}\" not implemented for '{_scalar_name(x.dtype)}'")
    out = np.empty_like(data)
    if data.size >= PAR_MIN:
        _fwd_par(data, out, kind, float(p0), float(p1), float(p2))
    else:
        _fwd(data, out, kind, float(p0), float(p1), float(p2))
    op = _OPS[kind]
    ia, fa = op.pack(kind=kind), op.pack_f(p0=p0, p1=p1, p2=p2)
    return emit(op, out, (x,), iattrs=ia, fattrs=fa, saved=(data,))


def leaky_relu(x, negative_slope=0.01):
    return apply(LEAKY, x, float(negative_slope), name="leaky_relu")


def elu(x, alpha=1.0, scale=1.0, input_scale=1.0):
    return apply(ELU, x, float(alpha), float(scale), float(input_scale), name="elu")


def selu(x):
    return elu(x, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946)


def celu(x, alpha=1.0):
    return elu(x, alpha, 1.0, 1.0 / alpha)


def hardtanh(x, min_val=-1.0, max_val=1.0):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return apply(HARDTANH, x, float(min_val), float(max_val), name="hardtanh")


def relu6(x):
    return hardtanh(x, 0.0, 6.0)


def softplus(x, beta=1.0, threshold=20.0):
    return apply(SOFTPLUS, x, float(beta), float(threshold), name="softplus")


def _like(v, x):
    if isinstance(v, Tensor):
        return v
    return Tensor._make(np.asarray(v, x._data.dtype), -1, False)


def clamp(x, min=None, max=None):  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        # tensor bounds: min(max(x, lo), hi) by `where`; x gets the gradient where
        # lo <= x <= hi, a bound where it is the result, as torch
        from .select import where

        out = x
        if min is not None:
            lo = _like(min, x)
            out = where(out < lo, lo, out)
        if max is not None:
            hi = _like(max, x)
            out = where(out > hi, hi, out)
        return out
    if x._data.dtype.kind != "f" and (isinstance(min, float) or isinstance(max, float)):
        from .. import _dtype

        x = Tensor._make(x._data.astype(_dtype.get_default_dtype().np), -1, False)
    lo = -math.inf if min is None else float(min)
    hi = math.inf if max is None else float(max)
    return apply(CLAMP, x, lo, hi, name="clamp")
