"""The scalar functions the elementwise rules may call, for the CPU kernels.

Every name here can appear in an expression of `ops/elementwise.py`; the CUDA generator
maps the same names to device functions, so a rule is written once for both devices.
"""

import math

from numba import njit

_inl = dict(inline="always", cache=True)


@njit(**_inl)
def exp(x):
    return math.exp(x)


@njit(**_inl)
def log(x):
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


@njit(**_inl)
def sin(x):
    return math.sin(x)


@njit(**_inl)
def cos(x):
    return math.cos(x)


@njit(**_inl)
def tanh(x):
    return math.tanh(x)


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
    # 1/(1+e^-x) for x >= 0, e^x/(1+e^x) below: neither overflows
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@njit(**_inl)
def pow_(a, b):
    return a**b


NAMES = ("exp", "log", "sin", "cos", "tanh", "sqrt", "fabs", "sign", "sigmoid", "pow_")
