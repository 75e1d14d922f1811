"""`Optimizer`: param groups, per-parameter state, zero_grad, state_dict, and one
compiled kernel call per `step()` (see `backends/cpu/optim.py`)."""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _versions as _ver
from .._array import check_writable
from .._lowp import round_stepped
from ..autograd.grad_mode import enable_grad
from ..backends.cpu.memory import address
from ..tensor import Tensor


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _zeros_like(p):
    z = np.zeros(p._data.shape, p._data.dtype)
    if p.is_cuda:
        from ..ops.cuda.tensor import from_host

        return from_host(z)
    return Tensor._make(z, -1, False)


def _step_tensor():
    """The step count, a float32 scalar tensor as in torch.optim's state."""
    return Tensor._make(np.zeros((), np.float32), -1, False)


class Optimizer:
    """Base class. Subclasses set `_kernel` and implement `_row(group, p, g, state)` ->
    (tensors, hyperparameters): the parameter, its gradient and its state buffers, then
    the step-count tensor if `_has_step`. CPU rows go to `_kernel` by address; CUDA
    parameters are updated on the device (`backends/cuda/optim.py`)."""

    _kernel: Any = None
    _has_step = False
    # float32 0-d state entries; the others are shaped as params
    _scalar_state: tuple[str, ...] = ("step",)

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: defaultdict = defaultdict(dict)  # as torch.optim: `self.state[p]` starts empty
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {type(params).__name__}"
            )
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for g in param_groups:
            self.add_param_group(g)

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + type(p).__name__
                )
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
            if p._data.dtype.kind != "f":
                raise ValueError("optimizer can only optimize floating point Tensors")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)
        seen = set()
        for g in self.param_groups:
            seen.update(id(p) for p in g["params"])
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True):
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                elif g.is_cuda:
                    g.zero_()
                else:
                    g._data.fill(0)
                    _ver.bump(g._data)

    # -- the step ----------------------------------------------------------------------
    def step(self, closure: Callable[[], Any] | None = None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        addrs, ns, dts, hyps, stepped = [], [], [], [], []
        state = self.state
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if not p.is_cuda:  # the kernel writes by address, where NumPy can't refuse
                    check_writable(p._data)  # (checked before any state is created)
                st = state.get(p)
                if st is None:
                    st = state[p] = {}
                ts, h = self._row(group, p, g, st)
                bufs = ts[1 : len(ts) - self._has_step]
                if p.is_cuda:
                    from ..backends.cuda import optim as cuda_optim

                    for t in bufs:  # (the kernel writes by address, like the CPU one)
                        check_buffer(t, p)
                    cuda_optim.step(type(self)._kernel.py_func.__name__, p, bufs, ts[-1], h)
                    stepped.append(p)
                    continue
                a = [address(p._data)]
                ga = None  # the gradient's address (SGD without momentum passes it twice)
                for t in bufs:
                    if t is g:
                        if ga is None:
                            check_buffer(g, p)  # (only read: no writability check)
                            ga = address(g._data)
                        a.append(ga)
                    else:
                        a.append(_addr(t, p))
                if self._has_step:
                    a.append(address(ts[-1]._data))
                addrs.append(a)
                stepped.append(p)
                hyps.append(h)
                ns.append(p._data.size)
                dts.append(0 if p._data.dtype == np.float32 else 1)
        if addrs:
            type(self)._kernel(
                np.array(addrs, np.int64),
                np.array(ns, np.int64),
                np.array(dts, np.int64),
                np.array(hyps, np.float64),
            )
        round_stepped(stepped)  # a half parameter holds half values (computed in float32)
        for p in stepped:  # written in place, as PyTorch's in-place updates count
            p._bump()
        return loss

    def _row(self, group, p, g, st):
        raise NotImplementedError

    # -- state dict ----------------------------------------------------------------------
    def state_dict(self):
        index = {}
        groups = []
        start = 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {index[id(p)]: dict(v) for p, v in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        state_dict = copy.copy(state_dict)
        groups = self.param_groups
        saved_groups = list(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = {}
        for g, s in zip(groups, saved_groups):
            for old, p in zip(s["params"], g["params"]):
                id_map[old] = p
        new_state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            key = int(k) if isinstance(k, str) else k
            if key not in id_map:
                continue
            p = id_map[key]
            entry = {}
            for name, val in v.items():
                if isinstance(val, Tensor):
                    host = val._data.host() if val.is_cuda else val._data
                    if name in self._scalar_state:
                        val = Tensor._make(np.array(host, np.float32).reshape(()), -1, False)
                    else:
                        arr = np.array(host, p._data.dtype).reshape(p._data.shape)
                        if p.is_cuda:
                            from ..ops.cuda.tensor import from_host

                            val = from_host(arr)
                        else:
                            val = Tensor._make(arr, -1, False)
                entry[name] = val
            new_state[p] = entry
        self.state = new_state
        new_groups = []
        for g, s in zip(groups, saved_groups):
            ng = {k: (tuple(v) if isinstance(g.get(k), tuple) else v) for k, v in s.items()}
            ng["params"] = g["params"]
            new_groups.append(ng)
        self.param_groups = new_groups

    def __repr__(self):
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += "\n"
            s += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)


def _addr(t, p):
    """Address of state buffer `t`'s array after checking it matches parameter `p` (the
    kernel writes through raw addresses, so a buffer of another dtype or size, or a
    read-only one, must never reach it)."""
    check_buffer(t, p)
    check_writable(t._data)
    return address(t._data)


def check_buffer(t, p):
    a, d = t._data, p._data
    if a.dtype != d.dtype or a.size != d.size or t.is_cuda != p.is_cuda:
        raise RuntimeError(
            f"optimizer: a gradient or state buffer of dtype {a.dtype} and {a.size} elements "
            f"does not match its parameter ({d.dtype}, {d.size} elements); after changing a "
            "parameter's dtype, shape or device, create the optimizer again"
        )
