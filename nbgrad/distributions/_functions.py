"""The few differentiable pieces the distributions cannot compose from nbgrad's ops:
Cholesky factors, triangular solves, the normal quantile, the regularised incomplete gamma
function and Gamma samples with their implicit reparameterisation gradient.

Each is an `autograd.Function` with a NumPy/SciPy forward (CPU tensors); the backward
passes of cholesky, solve_triangular and ndtri are written with differentiable nbgrad
ops, so they can be differentiated again.
"""

import math

import numpy as np
from scipy import special

from .. import functions as F
from ..autograd.function import Function
from ..creation import _rng
from ..tensor import Tensor


def _np(t):
    if t.is_cuda:
        raise NotImplementedError("this operation of nbgrad.distributions runs on CPU tensors only")
    return t._data


def _out(a):
    return Tensor._make(np.ascontiguousarray(a), -1, False)


def _mT(t):  # noqa: N802 - torch's name
    return t.transpose(-1, -2)


def tril_mask(n, dtype, k=0):
    return _out(np.tril(np.ones((n, n)), k).astype(dtype))


def diagonal(m):
    """The main diagonal of the last two dims (differentiable: a masked row sum)."""
    n = m.shape[-1]
    return (m * _out(np.eye(n, dtype=m._data.dtype))).sum(-1)


class _SolveTriangular(Function):
    """X with A X = B for triangular A (lower or upper)."""

    @staticmethod
    def forward(ctx, a, b, upper):
        x = np.linalg.solve(_np(a), _np(b))
        out = _out(x.astype(np.result_type(_np(a), _np(b)), copy=False))
        ctx.upper = upper
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        gb = solve_triangular(_mT(a), g, upper=not ctx.upper)
        ga = -(gb @ _mT(x))
        n = a.shape[-1]
        mask = tril_mask(n, a._data.dtype)
        ga = ga * (_mT(mask) if ctx.upper else mask)
        return ga, gb, None


def solve_triangular(a, b, upper=False):
    return _SolveTriangular.apply(a, b, upper)


class _Cholesky(Function):
    @staticmethod
    def forward(ctx, a):
        low = _out(np.linalg.cholesky(_np(a)))
        ctx.save_for_backward(low)
        return low

    @staticmethod
    def backward(ctx, g):
        # gA = sym(L^-T Phi(L^T gL) L^-1), Phi: the lower triangle with the diagonal halved
        (low,) = ctx.saved_tensors
        n = low.shape[-1]
        half = np.tril(np.ones((n, n)), -1) + 0.5 * np.eye(n)
        phi = (_mT(low) @ g) * _out(half.astype(low._data.dtype))
        y = solve_triangular(_mT(low), phi, upper=True)
        z = _mT(solve_triangular(_mT(low), _mT(y), upper=True))
        return 0.5 * (z + _mT(z))


def cholesky(a):
    return _Cholesky.apply(a)


class _Ndtri(Function):
    """The standard normal quantile function."""

    @staticmethod
    def forward(ctx, p):
        ctx.save_for_backward(p)
        return _out(special.ndtri(_np(p)))

    @staticmethod
    def backward(ctx, g):
        (p,) = ctx.saved_tensors
        y = ndtri(p)
        return g * math.sqrt(2 * math.pi) * F.exp(0.5 * y * y)


def ndtri(p):
    return _Ndtri.apply(p)


class _GammaInc(Function):
    """The regularised lower incomplete gamma function P(a, x)."""

    @staticmethod
    def forward(ctx, a, x):
        ctx.save_for_backward(a, x)
        return _out(special.gammainc(_np(a), _np(x)))

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(
                "the derivative of gammainc with respect to its first argument (the "
                "concentration, in Gamma.cdf) is not implemented"
            )
        return None, g * F.exp((a - 1) * F.log(x) - x - F.lgamma(a))


def gammainc(a, x):
    return _GammaInc.apply(a, x)


class _StandardGamma(Function):
    """Samples of Gamma(alpha, 1) drawn with nbgrad's generator. The gradient is the
    implicit reparameterisation one: dx/dalpha = -(dP(alpha, x)/dalpha) / pdf(x; alpha),
    the alpha-derivative of the CDF taken by a central difference."""

    @staticmethod
    def forward(ctx, alpha):
        a = _np(alpha)
        x = _rng[0].standard_gamma(a).astype(a.dtype)
        x = np.maximum(x, np.finfo(a.dtype).tiny)  # as torch: never exactly 0
        out = _out(x)
        ctx.save_for_backward(alpha, out)
        return out

    @staticmethod
    def backward(ctx, g):
        alpha, x = ctx.saved_tensors
        a, v = alpha._data.astype(np.float64), x._data.astype(np.float64)
        h = 1e-5 * np.maximum(a, 1e-3)
        dcdf = (special.gammainc(a + h, v) - special.gammainc(a - h, v)) / (2 * h)
        log_pdf = (a - 1) * np.log(v) - v - special.gammaln(a)
        grad = -dcdf / np.exp(log_pdf)
        return g * _out(grad.astype(alpha._data.dtype))


def standard_gamma(alpha):
    return _StandardGamma.apply(alpha)
