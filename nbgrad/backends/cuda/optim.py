"""torch.optim updates of CUDA parameters, on the device.

The element rules are the CPU's (`backends/cpu/optim.py: sgd_at, adam_at, rms_at`), compiled
with `cuda.jit(device=True)`; one grid-stride kernel per optimizer applies them to every
element of a parameter. The step count stays a host float32 tensor (as torch's with
`capturable=False`): it is incremented here and Adam's bias corrections are computed on
the host, so nothing is copied back from the device.
"""

from numba import cuda

from ..cpu import optim as _ok
from .launch import FLOAT, declare, launch

K = None


def build():
    global K
    if K is not None:
        return K
    sgd_at = cuda.jit(device=True)(_ok.sgd_at.py_func)
    adam_at = cuda.jit(device=True)(_ok.adam_at.py_func)
    rms_at = cuda.jit(device=True)(_ok.rms_at.py_func)

    @declare(
        "optim.sgd",
        "p:T[] g:T[] buf:T[] lr:f8 momentum:f8 dampening:f8 wd:f8 nesterov:b1 maximize:b1 fresh:b1",
        T=FLOAT,
    )
    @cuda.jit
    def sgd(p, g, buf, lr, momentum, dampening, wd, nesterov, maximize, fresh):
        j = cuda.grid(1)
        while j < p.size:
            sgd_at(p, g, buf, j, lr, momentum, dampening, wd, nesterov, maximize, fresh)
            j += cuda.gridsize(1)

    @declare(
        "optim.adam",
        "p:T[] g:T[] m:T[] v:T[] vmax:T[] lr:f8 b1:f8 b2:f8 eps:f8 wd:f8 amsgrad:b1 "
        "maximize:b1 decoupled:b1 s0:f8 s1:f8 s2:f8",
        T=FLOAT,
    )
    @cuda.jit
    def adam(p, g, m, v, vmax, lr, b1, b2, eps, wd, amsgrad, maximize, decoupled, s0, s1, s2):
        j = cuda.grid(1)
        while j < p.size:
            sc = (s0, s1, s2)
            adam_at(p, g, m, v, vmax, j, lr, b1, b2, eps, wd, amsgrad, maximize, decoupled, sc)
            j += cuda.gridsize(1)

    @declare(
        "optim.rmsprop",
        "p:T[] g:T[] sq:T[] gavg:T[] buf:T[] lr:f8 alpha:f8 eps:f8 wd:f8 momentum:f8 "
        "centered:b1 maximize:b1",
        T=FLOAT,
    )
    @cuda.jit
    def rmsprop(p, g, sq, gavg, buf, lr, alpha, eps, wd, momentum, centered, maximize):
        j = cuda.grid(1)
        while j < p.size:
            rms_at(p, g, sq, gavg, buf, j, lr, alpha, eps, wd, momentum, centered, maximize)
            j += cuda.gridsize(1)

    K = {"sgd": sgd, "adam": adam, "rmsprop": rmsprop}
    return K


def step(kind, p, bufs, step_t, h):
    """Update CUDA parameter `p` in place. bufs: gradient and state tensors (checked by
    the caller against p's dtype, size and device); h: the optimizer's hyperparameter row
    (flags as 0/1 floats, as for the CPU kernel)."""
    n = p._data.size
    if not n:
        return
    arrs = [p._data.flat] + [t._data.flat for t in bufs]
    kern = build()[kind]
    if kind == "sgd":
        lr, mom, damp, wd, nest, maxi, fresh = h
        launch(kern, n, *arrs, lr, mom, damp, wd, nest != 0, maxi != 0, fresh != 0)
        return
    step_t._data[...] += 1  # the host step count (float32, as torch)
    t = float(step_t._data)
    if kind == "adam":
        lr, b1, b2, eps, wd, ams, maxi, dec = h
        s = _ok.adam_scalars(t, lr, b1, b2)
        launch(kern, n, *arrs, lr, b1, b2, eps, wd, ams != 0, maxi != 0, dec != 0, *s)
    else:
        lr, alpha, eps, wd, mom, centered, maxi = h
        launch(kern, n, *arrs, lr, alpha, eps, wd, mom, centered != 0, maxi != 0)
