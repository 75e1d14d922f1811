"""`HostOptimizer`: optimizers whose update is a few NumPy array expressions per parameter.

The compiled optimizers (SGD, Adam, RMSprop) fuse every parameter into one kernel call;
the less common ones here update each parameter with NumPy on its storage in place,
following torch.optim's single-tensor implementations operation for operation. CUDA
parameters and their state buffers are copied to the host, updated, and written back.
"""

import numpy as np

from .. import _versions as _ver
from .._array import check_writable
from .._lowp import round_stepped
from ..autograd.grad_mode import enable_grad
from ..tensor import Tensor
from .optimizer import Optimizer, _zeros_like, check_buffer


def host_array(t):
    """The NumPy array holding `t` (a host copy for a CUDA tensor)."""
    return t._data.host() if t.is_cuda else t._data


def write_back(t, arr):
    """Store `arr`, computed from `host_array(t)`, in `t` (a no-op on the CPU, where the
    array is the storage itself)."""
    if t.is_cuda and arr.size:
        t._data.flat.copy_to_device(np.ascontiguousarray(arr).reshape(-1))


def scalar_state(value):
    """A float32 0-d state tensor (torch.optim keeps `step` and such counters so)."""
    return Tensor._make(np.array(value, np.float32), -1, False)


def full_like_param(p, value):
    t = _zeros_like(p)
    if value != 0:
        a = host_array(t)
        a[...] = value
        write_back(t, a)
    return t


class HostOptimizer(Optimizer):
    """Subclasses implement `_init_state(group, p, st)` (fill the empty state dict) and
    `_update(group, p, g, s)`: `p`, `g` are the parameter's and gradient's arrays and `s`
    maps each state name to its array; all are updated in place."""

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if not p.is_cuda:
                    check_writable(p._data)
                st = self.state.get(p)
                if st is None:
                    st = self.state[p] = {}
                if not st:
                    self._init_state(group, p, st)
                tensors = {k: v for k, v in st.items() if isinstance(v, Tensor)}
                for k, v in tensors.items():
                    if k not in self._scalar_state:
                        check_buffer(v, p)
                arrays = {k: host_array(v) for k, v in tensors.items()}
                pa = host_array(p)
                self._update(group, pa, host_array(g), arrays)
                write_back(p, pa)
                round_stepped((p,))  # a half parameter holds half values
                for k, v in tensors.items():
                    write_back(v, arrays[k])
                _ver.bump(p._data)
        return loss

    def _init_state(self, group, p, st):
        raise NotImplementedError

    def _update(self, group, p, g, s):
        raise NotImplementedError


def lerp_(a, end, w):
    """a <- lerp(a, end, w) in place, with torch's formula (exact at w = 1)."""
    if abs(w) < 0.5:
        a += w * (end - a)
    else:
        a[...] = end - (end - a) * (1.0 - w)


def check_betas(betas):
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def check_nonnegative(**values):
    """torch.optim's checks, in the order given: lr -> 'Invalid learning rate: -1'."""
    names = {"lr": "learning rate", "eps": "epsilon value"}
    for k, v in values.items():
        if not 0.0 <= v:
            raise ValueError(f"Invalid {names.get(k, k + ' value')}: {v}")
