"""Device versions of the scalar functions the elementwise rules call.

Made from the same Python definitions as the CPU ones (`backends/cpu/scalar.py`, through each
njit function's `py_func`), compiled with `cuda.jit(device=True)`. Only the functions
whose CPU version calls CPU-only code (the vectorisable polynomials of
`backends/cpu/vmath.py`, `np.rint`, `np.floor`, `np.ceil`), and `sign`, get a device
definition here, using CUDA's libdevice through `math`.
"""

import math

from numba import cuda

from ..cpu import scalar as _cpu

_dev = cuda.jit(device=True)


@_dev
def exp(x):
    return math.exp(x)


@_dev
def log(x):
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


@_dev
def tanh(x):
    return math.tanh(x)


@_dev
def sigmoid(x):
    # exp of a non-positive argument only: no overflow for either sign
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@_dev
def rint(x):
    """Round half to even, as torch.round."""
    if not math.isfinite(x):
        return x
    r = math.floor(x)
    d = x - r
    if d > 0.5 or (d == 0.5 and r % 2 != 0):
        r += 1
    return r * 1.0


@_dev
def floor(x):
    return math.floor(x)  # libdevice's floor: a float result, as on the CPU (np.floor)


@_dev
def ceil(x):
    return math.ceil(x)


@_dev
def sign(x):
    # the CPU form subtracts booleans, which the simulator's NumPy scalars refuse
    return 1.0 if x > 0 else (-1.0 if x < 0 else (0.0 if x == 0 else x))


_OWN = {
    "exp": exp,
    "log": log,
    "tanh": tanh,
    "sigmoid": sigmoid,
    "rint": rint,
    "sign": sign,
    "floor": floor,
    "ceil": ceil,
}
DEVICE = {n: _OWN.get(n) or _dev(getattr(_cpu, n).py_func) for n in _cpu.NAMES}
globals().update(DEVICE)
NAMES = _cpu.NAMES
