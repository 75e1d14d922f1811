"""Every CUDA kernel's declared signatures, and the one place kernels are launched.

A kernel is declared with the types of its parameters (`declare`):

    @declare("src:T[] dst:T[] shp:i8[] st:i8[] acc:b1 scale:A(T)", T=ALL)

`T[]` is a 1-d C-contiguous array of dtype T, a bare type a scalar; an upper-case letter
is a dtype variable ranging over the tuple given for it, `A(T)` is the type a kernel
accumulates T in (float64 for floats, int64 otherwise). The declaration does three jobs:

* `launch` converts each scalar argument to its declared type before the call, so a
  kernel compiles once per dtype, whatever Python type a call site passed (`acc` as 0 or
  True, a hyperparameter as int or float); arrays must match (a mismatch raises here,
  never a silent second compile);
* on the simulator, which checks no types, `launch` also checks that every array has
  its declared dtype and rank: the tests then prove each declaration covers its launches;
* `python -m nbgrad.cuda.ptx_check` compiles every declared signature with the real CUDA
  compiler (no GPU needed), so a kernel that would fail to type on a GPU fails CI.

Grids: one-dimensional launches are grid-stride loops over a capped grid (`grid`); the
few kernels with a 2-d/3-d grid keep every dimension within the device's limits.
"""

import itertools
import os
import re

import numpy as np

from . import runtime as rt

FLOAT = ("float32", "float64")
INT = ("int32", "int64")
ALL = ("bool", "int32", "int64", "float32", "float64")  # the dtypes a CUDA tensor holds
ATOMIC = ("int32", "int64", "float32", "float64")  # native atomic add on every GPU
BOOL = ("bool",)
BITS = ("bool", "int32", "int64")  # bitwise ops

# grid limits of every NVIDIA GPU since compute capability 3.0
MAX_GRID_X = 2**31 - 1
MAX_GRID_YZ = 65535

REGISTRY = {}  # "family.name" -> (kernel, Decl)
_BY_ID = {}  # id(kernel) -> Decl

_PARAM = re.compile(r"^(\w+):(?:([A-Z])|A\(([A-Z])\)|(\w+))(\[\])?$")
_CODES = {"b1": "bool", "i4": "int32", "i8": "int64", "f4": "float32", "f8": "float64"}


def acc_dtype(dt):
    """The dtype a kernel accumulates values of `dt` in."""
    return np.dtype(np.float64 if np.dtype(dt).kind == "f" else np.int64)


class Param:
    __slots__ = ("name", "var", "acc", "fixed", "array")

    def __init__(self, text):
        m = _PARAM.match(text)
        if m is None:
            raise ValueError(f"bad kernel parameter declaration {text!r}")
        self.name, var, accvar, code, arr = m.groups()
        self.var = var or accvar
        self.acc = accvar is not None
        self.fixed = None if code is None else np.dtype(_CODES.get(code, code))
        self.array = arr is not None

    def dtype(self, binding):
        if self.fixed is not None:
            return self.fixed
        dt = np.dtype(binding[self.var])
        return acc_dtype(dt) if self.acc else dt


class Decl:
    """A kernel's parameters and the dtypes its variables range over."""

    def __init__(self, name, spec, variables):
        self.name = name
        self.params = [Param(p) for p in spec.split()]
        self.variables = {k: tuple(v) for k, v in variables.items()}
        used = {p.var for p in self.params if p.var}
        if used != set(self.variables):
            raise ValueError(f"{name}: dtype variables {sorted(used)} need ranges")
        # the array parameter whose dtype binds each variable at a launch
        self.binder = {}
        for i, p in enumerate(self.params):
            if p.array and p.var and not p.acc:
                self.binder.setdefault(p.var, i)
        if set(self.binder) != used:
            raise ValueError(f"{name}: every dtype variable needs an array parameter")
        self.scalars = [(i, p) for i, p in enumerate(self.params) if not p.array]

    def bindings(self):
        names = sorted(self.variables)
        for combo in itertools.product(*(self.variables[n] for n in names)):
            yield dict(zip(names, combo))

    def signatures(self):
        """Every signature the declaration admits, as tuples of (dtype, is_array)."""
        for b in self.bindings():
            yield tuple((p.dtype(b), p.array) for p in self.params)

    def coerce(self, args):
        """The arguments with each scalar converted to its declared type."""
        if len(args) != len(self.params):
            raise TypeError(
                f"kernel {self.name} takes {len(self.params)} arguments, got {len(args)}"
            )
        binding = {v: args[i].dtype for v, i in self.binder.items()}
        out = list(args)
        for i, p in self.scalars:
            out[i] = p.dtype(binding).type(args[i])
        return out, binding

    def check(self, args, binding):
        """The arrays' dtypes and ranks against the declaration (simulator launches)."""
        for v, dt in binding.items():
            if np.dtype(dt).name not in self.variables[v]:
                raise TypeError(
                    f"kernel {self.name}: {v} = {np.dtype(dt).name} is not declared "
                    f"(declared: {', '.join(self.variables[v])})"
                )
        for a, p in zip(args, self.params):
            if p.array and (np.dtype(a.dtype) != p.dtype(binding) or a.ndim != 1):
                raise TypeError(
                    f"kernel {self.name}: argument {p.name} is a {a.ndim}-d "
                    f"{np.dtype(a.dtype).name} array; declared 1-d {p.dtype(binding).name}"
                )


def declare(name, spec, **variables):
    """Decorator registering a compiled kernel (`cuda.jit` result) under `name`."""

    def reg(kernel):
        d = Decl(name, spec, variables)
        REGISTRY[name] = (kernel, d)
        _BY_ID[id(kernel)] = d
        return kernel

    return reg


def undeclared(families):
    """Names of the kernels (not device functions) in {family: namespace} that were never
    declared: on a GPU they are numba-cuda dispatchers, on the simulator its fakes."""
    declared = {id(k) for k, _ in REGISTRY.values()}
    out = []
    for fam, ns in families.items():
        for name, obj in ns.items():
            kind = type(obj).__name__
            if kind == "CUDADispatcher":
                device = obj.targetoptions.get("device")
            elif kind == "FakeCUDAKernel":
                device = obj._device
            else:
                continue
            if not device and id(obj) not in declared:
                out.append(f"{fam}.{name}")
    return sorted(out)


def grid(n):
    """(blocks, threads) of a one-dimensional grid-stride launch over n elements."""
    L = rt.configure()
    return max(1, min((n + L.tpb - 1) // L.tpb, L.max_blocks)), L.tpb


def launch_grid(kernel, blocks, threads, *args):
    """kernel[blocks, threads](*args), scalars converted to their declared types."""
    d = _BY_ID.get(id(kernel))
    if d is None:
        raise AssertionError(f"internal error: CUDA kernel {kernel} launched undeclared")
    args, binding = d.coerce(args)
    if rt.simulated():
        d.check(args, binding)
        kernel[blocks, threads](*args)
        return
    # every array's dtype and rank in the key (not only the variables' bindings): a kept
    # overload is reused only for arguments of exactly the types it was compiled for
    key = (id(kernel), *[(a.dtype, a.ndim) for a, p in zip(args, d.params) if p.array])
    fast = _FAST.get(key)
    if fast is None:
        kernel[blocks, threads](*args)  # compiles on first use
        _FAST[key] = _fast_entry(kernel, d, args) if FAST_LAUNCH else False
    elif fast is False:
        kernel[blocks, threads](*args)
    else:
        fast(blocks, threads, args)


# -- the direct launch ---------------------------------------------------------------------
# numba-cuda's launch path costs tens of microseconds per call in Python: it types the
# arguments again, looks the overload up, and wraps each array in a fresh view object.
# A declared kernel's overload is fixed by its dtype binding, and every array it takes is
# 1-d and C-contiguous, so after the first (ordinary) launch the compiled kernel is kept
# and later launches pack its arguments directly, as numba-cuda itself packs them (for an
# array: meminfo, parent, size, itemsize, data pointer, shape, strides). Any numba-cuda
# whose internals differ keeps the ordinary path; NBGRAD_CUDA_FAST_LAUNCH=0 forces it.
FAST_LAUNCH = os.environ.get("NBGRAD_CUDA_FAST_LAUNCH", "1") != "0"
_FAST = {}  # (id(kernel), its arrays' dtypes and ranks) -> launcher, or False: ordinary path
_CONFIGS = {}


def _fast_entry(kernel, d, args):
    """A launcher for kernel's overload at these argument types, or False."""
    try:
        import ctypes

        from cuda.core import LaunchConfig
        from cuda.core import launch as core_launch
        from numba.cuda import typing
        from numba.cuda._compat import CUDA_CORE_GE_1_0
        from numba.cuda.cudadrv import driver
        from numba.cuda.dispatcher import normalize_kernel_dimensions

        argtypes = tuple(typing.typeof.typeof(a, typing.typeof.Purpose.argument) for a in args)
        compiled = kernel.overloads[argtypes]
        if compiled.debug or getattr(kernel, "specialized", False):
            return False
        fn = compiled._codelibrary.get_cufunc().kernel
        stream = driver._to_core_stream(0)
        coop = "is_cooperative" if CUDA_CORE_GE_1_0 else "cooperative_launch"
    except Exception:  # another numba-cuda: keep its own launch path
        return False
    scalar = []  # per argument: None (an array), False (passed as is) or its ctypes type
    for p, t in zip(d.params, argtypes):
        if p.array:
            scalar.append(None)
        elif t.name == "float64":
            scalar.append(ctypes.c_double)
        elif t.name == "float32":
            scalar.append(ctypes.c_float)
        elif t.name == "bool":
            scalar.append(False)  # passed as is, as numba-cuda does
        else:
            scalar.append(getattr(ctypes, f"c_{t.name}"))

    def fast(blocks, threads, args):
        cfg = _CONFIGS.get((blocks, threads))
        if cfg is None:
            g, b = normalize_kernel_dimensions(blocks, threads)
            cfg = _CONFIGS[(blocks, threads)] = LaunchConfig(
                grid=g, block=b, shmem_size=0, **{coop: False}
            )
        ka = []
        for a, c in zip(args, scalar):
            if c is None:
                n = a.size
                item = a.dtype.itemsize
                ka += (0, 0, n, item, a.device_ctypes_pointer.value or 0, n, item)
            elif c is False:
                ka.append(a)
            else:
                ka.append(c(a))
        core_launch(stream, cfg, fn, *ka)

    return fast


def launch(kernel, n, *args):
    """A grid-stride kernel over n elements (threads beyond n return at once)."""
    b, t = grid(n)
    launch_grid(kernel, b, t, *args)
