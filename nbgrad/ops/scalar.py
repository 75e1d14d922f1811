"""The scalar functions the elementwise rules may call, for the CPU kernels.

Every name here can appear in an expression of `ops/elementwise.py`; the CUDA generator
maps the same names to device functions, so a rule is written once for both devices.

exp/log/tanh/sigmoid are the branch-free polynomials of `backends/cpu/vmath.py`, which
vectorise (no SVML in llvmlite). sin/cos here are libm's, exact for any argument; the
generator swaps in `vsin`/`vcos` for arrays that pass `sin_cos_in_range` (|x| < 2**20),
checked once per array.
"""

import math

import numpy as np
from numba import njit

from ..backends.cpu.vmath import vexp, vlog, vsigmoid, vtanh

_inl = dict(inline="always", cache=True, error_model="numpy")


@njit(**_inl)
def exp(x):
    return vexp(x)


@njit(**_inl)
def log(x):
    return vlog(x)


@njit(**_inl)
def sin(x):
    return math.sin(x)


@njit(**_inl)
def cos(x):
    return math.cos(x)


@njit(**_inl)
def tanh(x):
    return vtanh(x)


@njit(**_inl)
def sqrt(x):
    return math.sqrt(x) if x >= 0 else math.nan


@njit(**_inl)
def fabs(x):
    return abs(x)


@njit(**_inl)
def sign(x):
    return (x > 0) - (x < 0) if x == x else x


@njit(**_inl)
def sigmoid(x):
    return vsigmoid(x)


@njit(**_inl)
def pow_(a, b):
    return a**b


@njit(**_inl)
def log2(x):
    return math.log2(x) if x > 0 else (-math.inf if x == 0 else math.nan)


@njit(**_inl)
def log10(x):
    return math.log10(x) if x > 0 else (-math.inf if x == 0 else math.nan)


@njit(**_inl)
def log1p(x):
    return math.log1p(x) if x > -1 else (-math.inf if x == -1 else math.nan)


@njit(**_inl)
def expm1(x):
    return math.expm1(x)


@njit(**_inl)
def exp2(x):
    return 2.0**x


@njit(**_inl)
def sinh(x):
    return math.sinh(x)


@njit(**_inl)
def cosh(x):
    return math.cosh(x)


@njit(**_inl)
def tan(x):
    return math.tan(x)


@njit(**_inl)
def asin(x):
    return math.asin(x) if -1 <= x <= 1 else math.nan


@njit(**_inl)
def acos(x):
    return math.acos(x) if -1 <= x <= 1 else math.nan


@njit(**_inl)
def atan(x):
    return math.atan(x)


@njit(**_inl)
def atan2(a, b):
    return math.atan2(a, b)


@njit(**_inl)
def erf(x):
    return math.erf(x)


@njit(**_inl)
def floor(x):
    # a float result: math.floor returns an int64, which overflows from |x| >= 2**63
    return np.floor(x)


@njit(**_inl)
def ceil(x):
    return np.ceil(x)


@njit(**_inl)
def rint(x):
    """Round half to even, as torch.round."""
    return np.rint(x)


@njit(**_inl)
def ncdf(x):
    """Standard normal CDF."""
    return 0.5 * (1.0 + math.erf(x * 0.7071067811865476))


@njit(**_inl)
def npdf(x):
    """Standard normal density."""
    return 0.3989422804014327 * math.exp(-0.5 * x * x)


@njit(**_inl)
def gelu_tanh(x):
    return 0.5 * x * (1.0 + math.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


@njit(**_inl)
def gelu_tanh_grad(x):
    k = 0.7978845608028654
    t = math.tanh(k * (x + 0.044715 * x * x * x))
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * x * x)


@njit(cache=True, error_model="numpy")
def fdiv(a, b):
    """IEEE a / b (inf or nan for b == 0, never an exception)."""
    return a / b


NAMES = (
    "fdiv",
    "exp",
    "log",
    "sin",
    "cos",
    "tanh",
    "sqrt",
    "fabs",
    "sign",
    "sigmoid",
    "pow_",
    "log2",
    "log10",
    "log1p",
    "expm1",
    "exp2",
    "sinh",
    "cosh",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "erf",
    "floor",
    "ceil",
    "rint",
    "ncdf",
    "npdf",
    "gelu_tanh",
    "gelu_tanh_grad",
)
