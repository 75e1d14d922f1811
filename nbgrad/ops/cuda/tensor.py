"""`CudaTensor`: a Tensor whose storage is a `CudaArray` on the GPU.

A subclass (not a flag) so that the CPU fast paths, which accept only the exact types in
`tensor.TENSOR_TYPES`, never see a CUDA tensor: their existing type check sends it to the
general path, where each op picks its CUDA forward (`ops/cuda/forwards.py` and its
siblings). Every other method is Tensor's own: one whose op has no CUDA kernel reaches a
`CudaArray` in host code, which raises NotImplementedError naming the op
(`backends/cuda/runtime.py`): never a host fallback.
"""

import numpy as np

from ...autograd.grad_mode import STATE
from ...backends.cuda import runtime as rt
from ...ops import viewbase as _vb
from ...tape import MAXD, too_many_dims
from ...tensor import Tensor, replace_data
from . import forwards as fw

_CUDA0 = None


def _dev():
    global _CUDA0
    if _CUDA0 is None:
        from ...device import device

        _CUDA0 = device("cuda", 0)
    return _CUDA0


def from_host(arr, requires_grad=False):
    t = CudaTensor._make(rt.from_host(arr), -1, False)
    if requires_grad:
        t.requires_grad_(True)
    return t


class CudaTensor(Tensor):
    __slots__ = ()

    @staticmethod
    def _make(data, slot, rg):
        if data.ndim > MAXD:
            too_many_dims(data.ndim)
        t = object.__new__(CudaTensor)
        t._data = data
        t._slot = slot
        t._rg = rg
        t._aux = None
        return t

    # -- device ------------------------------------------------------------------------
    @property
    def device(self):
        return _dev()

    is_cuda = True

    # -- writes of a constant: a CPU tensor's are written into its buffer (its views share
    # the memory), a CUDA tensor in a graph is rebound to a recorded constant (Tensor._over;
    # its views are copies that Tensor._assign updates) ---------------------------------
    def fill_(self, value):
        self._check_inplace(fill=True)
        v = value.item() if isinstance(value, Tensor) else value
        if _vb.is_view(self):  # its base takes the values too (ops/viewbase.py)
            return _vb.store(self, np.full(self._data.shape, v, self._data.dtype))
        d = self._data
        if self._rg and STATE.enabled:
            return self._assign(from_host(np.full(d.shape, v, d.dtype)))
        fw.launch(fw._kernels().fill, d.size, d.flat, d.dtype.type(v))
        self._version += 1
        return self

    def copy_(self, src):
        self._check_inplace()
        if not isinstance(src, Tensor):
            src = from_host(np.asarray(src, self._data.dtype))
        elif not src.is_cuda:
            src = fw.to_cuda(src)
        src = fw.cast(src, self.dtype)
        if src._data.shape != self._data.shape:
            src = src.expand(self._data.shape)
        if self._rg and STATE.enabled:
            return self._assign(self._over(src))
        return self._assign(fw.clone(src) if src._rg else src)


def check_device(dev):
    """Validate a CUDA device before anything is allocated on it."""
    if not rt.available():
        raise RuntimeError(
            "nbgrad: CUDA is not available: numba.cuda found no GPU (install nbgrad[cuda] and "
            "an NVIDIA driver, or set NUMBA_ENABLE_CUDASIM=1 to use Numba's CUDA simulator)"
        )
    if dev.index not in (None, 0):
        n = len(rt.cuda().gpus)
        if dev.index >= n:
            raise RuntimeError("CUDA error: invalid device ordinal")
        raise NotImplementedError("nbgrad uses one GPU (cuda:0) so far")


# -- moving module parameters in place (Module.to / .cuda() / .cpu()) ----------------------
_CUDA_CLASSES = {}


def _cuda_class(cls):
    """The CUDA twin of a Tensor subclass (nn.Parameter -> CudaParameter), made once: same
    instance layout, so a parameter can switch device in place and stay the same object."""
    if issubclass(cls, CudaTensor):
        return cls
    if cls is Tensor:
        return CudaTensor
    twin = _CUDA_CLASSES.get(cls)
    if twin is None:
        ns = {"__slots__": ()}
        twin = _CUDA_CLASSES[cls] = type("Cuda" + cls.__name__, (CudaTensor, cls), ns)
    return twin


def _host_class(cls):
    return next(c for c in cls.__mro__ if not issubclass(c, CudaTensor))


def move_(t, to_cuda):
    """Move a leaf tensor (a parameter or buffer) to or from the GPU in place."""
    if t.is_cuda == to_cuda:
        return
    if not t._leaf:
        raise RuntimeError("only leaf tensors (parameters, buffers) can change device in place")
    replace_data(t, rt.from_host(t._data) if to_cuda else t._data.host())
    t.__class__ = _cuda_class(type(t)) if to_cuda else _host_class(type(t))
    g = t._grad
    if g is not None:
        t._grad = g.cuda() if to_cuda else g.cpu()


def move_module(module, dev):
    to_cuda = dev.type == "cuda"
    if to_cuda:
        check_device(dev)
    for m in module.modules():
        for reg in (m._parameters, m._buffers):
            for t in reg.values():
                if t is not None:
                    move_(t, to_cuda)


def as_tensor(buf):
    """A gradient buffer of the GPU sweep (a CudaArray) as a CUDA tensor."""
    return CudaTensor._make(buf, -1, False)


def accumulate_grad(t, buf):
    """`t.grad += buf` for a CUDA leaf (backward(inputs=...) with an existing .grad)."""
    if t._grad is None:
        t._grad = as_tensor(buf)
        return
    from ...backends.cuda.kernels import build
    from ...backends.cuda.launch import launch

    dst = t._grad._data
    launch(build().store, dst.size, dst.flat, buf.flat, True)
