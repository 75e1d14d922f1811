"""numba.cuda, imported on first use, and `CudaArray`, the storage of CUDA tensors.

A CUDA tensor's `_data` is a `CudaArray`: a C-contiguous numba device array plus the
metadata the Tensor handle reads (shape, dtype, size, ndim). It deliberately is *not* a
numba device array: those convert to NumPy silently (`__array__` copies to the host) and
type in `@njit` code as host arrays (a device pointer dereferenced on the CPU). A
`CudaArray` refuses both, so a host code path that meets a CUDA tensor fails with a clear
error instead of computing on the host or crashing.
"""

import math
import sys

import numpy as np

_cuda = None


def cuda():
    """The numba.cuda module (imported lazily: importing nbgrad must not need it)."""
    global _cuda
    if _cuda is None:
        from numba import cuda as c

        _quiet_occupancy()
        _cuda = c
    return _cuda


def _quiet_occupancy():
    """Small tensors get small grids on purpose: numba's per-launch warning that a grid under
    128 blocks under-uses the GPU would fire on most of nbgrad's launches."""
    import importlib

    for name in ("numba.cuda.core.config", "numba.core.config"):
        try:
            importlib.import_module(name).CUDA_LOW_OCCUPANCY_WARNINGS = 0
        except ImportError:
            pass


def simulated():
    from numba.core import config

    return bool(config.ENABLE_CUDASIM)


def available():
    try:
        return bool(cuda().is_available())
    except Exception:  # no driver, no simulator, or numba without a CUDA target
        return False


class Launch:
    """Launch geometry: threads per block, grid cap, matmul tile. The simulator runs one
    Python thread per CUDA thread, so it gets small blocks (the kernels are the same)."""

    tpb = 256
    max_blocks = 4096
    tile = 16
    max_grid_yz = 65535  # grid y and z of every GPU; tests lower it to exercise the loops
    configured = False


def configure():
    if not Launch.configured:
        if simulated():
            Launch.tpb, Launch.max_blocks, Launch.tile = 16, 4, 4
        Launch.configured = True
    return Launch


def ptr(dev):
    """The device address of a device array (on the simulator, its host buffer)."""
    if simulated():
        return dev._ary.ctypes.data
    return dev.__cuda_array_interface__["data"][0]


def _caller():
    """The nbgrad function that handed a CUDA tensor to host code (for error messages): the
    innermost one with a public name, so `median` rather than its helper `_pick`."""
    f = sys._getframe(2)
    while f is not None:
        mod = f.f_globals.get("__name__", "")
        if not mod.startswith("nbgrad"):  # the user's code: nbgrad was entered here
            break
        name = f.f_code.co_name
        if not mod.startswith("nbgrad.backends.cuda") and name[0] not in "_<":
            return name
        f = f.f_back
    return "this operation"


def not_on_cuda(op):
    return NotImplementedError(
        f"nbgrad: '{op}' has no CUDA kernel yet and CUDA tensors are never computed on the "
        "host silently; move the tensors to the CPU with .cpu() (device: cuda:0)"
    )


class CudaArray:
    __slots__ = ("dev", "shape", "dtype", "size", "ndim", "_flat", "_addr")

    def __init__(self, dev, shape=None):
        shape = tuple(dev.shape) if shape is None else tuple(shape)
        n = math.prod(shape)
        if n == 0:
            dev = dev[:0]
        elif tuple(dev.shape) != shape:
            # 0-d values are stored as shape (1,): numba device arrays need ndim >= 1
            dev = dev.reshape(shape if shape else (1,))
        self.dev = dev
        self.shape = shape
        self.dtype = np.dtype(dev.dtype)
        self.size = n
        self.ndim = len(shape)
        self._flat = self._addr = None

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def flat(self):
        """The device array as 1-d (kernels work on flat buffers). Made once: numba-cuda
        prepares each device array object for launches once, on its first launch."""
        f = self._flat
        if f is None:
            d = self.dev
            f = self._flat = d if d.ndim == 1 else d.reshape(self.size)
        return f

    def reshape(self, shape):
        """A view with another shape (shares the buffer)."""
        return CudaArray(self.flat, tuple(shape))

    def copy(self):
        """A copy on the device (deepcopy)."""
        out = empty(self.shape, self.dtype)
        if self.size:
            out.flat.copy_to_device(self.flat)
        return out

    def store(self, src):
        """Write `src` (a CudaArray of this shape, any dtype: converted) into this buffer."""
        from .kernels import build
        from .launch import launch

        launch(build().store, self.size, self.flat, src.flat, 0)

    def host(self):
        out = self.flat.copy_to_host() if self.size else np.empty(0, self.dtype)
        return out.reshape(self.shape)

    @property
    def address(self):
        a = self._addr
        if a is None:
            a = self._addr = ptr(self.dev)
        return a

    def __array__(self, dtype=None, copy=None):
        raise not_on_cuda(_caller())

    def __getattr__(self, name):
        raise not_on_cuda(_caller())

    def __len__(self):
        raise not_on_cuda(_caller())

    def __iter__(self):
        raise not_on_cuda(_caller())


def _refuse(self, *args, **kwargs):
    raise not_on_cuda(_caller())


# host code meeting a device buffer stops here, whatever it tries (NumPy, indexing, Python
# arithmetic): the op that got a CUDA tensor without a CUDA kernel is named, nothing is
# computed on the host (`__array__`, `__getattr__` above cover NumPy and Numba)
for _n in (
    "add sub mul truediv floordiv mod pow matmul and or xor lshift rshift divmod".split()
):  # fmt: skip
    setattr(CudaArray, f"__{_n}__", _refuse)
    setattr(CudaArray, f"__r{_n}__", _refuse)
for _n in "getitem setitem neg pos abs invert lt le gt ge float int index complex".split():
    setattr(CudaArray, f"__{_n}__", _refuse)


def empty(shape, dtype):
    shape = tuple(shape)
    n = math.prod(shape)
    return CudaArray(cuda().device_array(max(n, 1), np.dtype(dtype)), shape)


def from_host(arr):
    arr = np.require(arr, requirements="C")  # (ascontiguousarray makes 0-d arrays 1-d)
    flat = arr.reshape(max(arr.size, 1)) if arr.size else np.zeros(1, arr.dtype)
    return CudaArray(cuda().to_device(flat), arr.shape)
