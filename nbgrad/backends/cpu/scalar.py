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

from .vmath import vexp, vlog, vsigmoid, vtanh

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


# The gamma-function family. Each is self-contained (math calls only): the CUDA versions are
# compiled from the same Python source, where another helper here would be a CPU function.
# Non-positive integers are poles; |x| >= 2**52 is an integer (math.floor stays in range).
@njit(**_inl)
def lgamma(x):
    if x <= 0 and (x <= -4503599627370496.0 or x == math.floor(x)):
        return math.inf  # a pole, as torch.lgamma (-inf included)
    return math.lgamma(x)


@njit(**_inl)
def digamma(x):
    """psi(x): reflection for x < 0, recurrence up to x >= 10, then the asymptotic series
    (its first omitted term is below 1e-16 there)."""
    if x != x or x == math.inf:
        return x
    if x <= 0 and (x <= -4503599627370496.0 or x == math.floor(x)):
        return math.copysign(math.inf, -x) if x == 0 else math.nan  # as torch: -inf at +0
    r = 0.0
    if x < 0:
        r = -math.pi / math.tan(math.pi * x)
        x = 1.0 - x
    while x < 10.0:
        r -= 1.0 / x
        x += 1.0
    z = 1.0 / (x * x)
    s = z * (
        1 / 12
        - z * (1 / 120 - z * (1 / 252 - z * (1 / 240 - z * (1 / 132 - z * (691 / 32760 - z / 12)))))
    )
    return r + math.log(x) - 0.5 / x - s


@njit(**_inl)
def trigamma(x):
    """psi'(x) (polygamma(1, x)), as digamma: reflection, recurrence, asymptotic series."""
    if x != x:
        return x
    if x == math.inf:
        return 0.0
    if x <= 0 and (x <= -4503599627370496.0 or x == math.floor(x)):
        return math.inf
    r = 0.0
    sign = 1.0
    if x < 0:  # psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x)
        sn = math.sin(math.pi * x)
        r = math.pi * math.pi / (sn * sn)
        x = 1.0 - x
        sign = -1.0
    t = 0.0
    while x < 10.0:
        t += 1.0 / (x * x)
        x += 1.0
    z = 1.0 / (x * x)
    w = 1 / 30 - z * (1 / 42 - z * (1 / 30 - z * (5 / 66 - z * (691 / 2730 - z * 7 / 6))))
    t += 1.0 / x + 0.5 * z + z / x * (1 / 6 - z * w)
    return r + sign * t


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
    "lgamma",
    "digamma",
    "trigamma",
)
