"""`nn.Module`: the container of parameters, buffers and submodules, as in PyTorch.

Parameters, buffers and submodules are registered in `_parameters` / `_buffers` /
`_modules` (ordered dicts, as in PyTorch) *and* kept as ordinary instance attributes, so
reading `self.weight` in `forward` is a plain attribute lookup (PyTorch goes through
`__getattr__`). Forward hooks (the module's own and global ones) follow PyTorch; a
module without hooks calls `forward` directly.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from typing import Any

import numpy as np

from ... import _dtype
from ..._lowp import tag, untag
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...autograd.handles import RemovableHandle
from ...tensor import Tensor, replace_data
from ..parameter import Parameter, _copy_tensor


def _add(hooks, entry, prepend):
    h = RemovableHandle(hooks)
    hooks[h.id] = entry
    if prepend:
        hooks.move_to_end(h.id, last=False)
    return h


# hooks every module runs before its own (nn.modules.module.register_module_*_hook)
_GLOBAL_PRE: OrderedDict = OrderedDict()
_GLOBAL_POST: OrderedDict = OrderedDict()
_GLOBAL_BW_PRE: OrderedDict = OrderedDict()
_GLOBAL_BW: OrderedDict = OrderedDict()
_HOOKED = [False]  # any global hook registered: every call takes the hooked path


_HOOK_DICTS = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks")


def _hook_dicts(module):
    d = module.__dict__
    if "_forward_hooks" not in d:
        for name in _HOOK_DICTS:
            d[name] = OrderedDict()
    return tuple(d[name] for name in _HOOK_DICTS)


def _add_global(hooks, entry):
    _HOOKED[0] = True
    return _add(hooks, entry, False)


def register_module_forward_pre_hook(hook):
    """Register a forward pre-hook common to all modules, run before each module's own.

    Args:
        hook: called as `hook(module, args)` before `forward`; a result other than None
            replaces `args` (a non-tuple result is wrapped in a tuple).

    Returns a handle whose `remove()` unregisters the hook.

    Example::

        >>> from torch.nn.modules.module import register_module_forward_pre_hook
        >>> seen = []
        >>> h = register_module_forward_pre_hook(lambda m, args: seen.append(type(m).__name__))
        >>> _ = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())(torch.ones(1, 2))
        >>> h.remove()
        >>> seen
        ['Sequential', 'Linear', 'ReLU']
    """
    return _add_global(_GLOBAL_PRE, (hook, False, False))


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """Register a forward hook common to all modules, run before each module's own.

    Args:
        hook: called as `hook(module, args, output)` (with `with_kwargs`,
            `hook(module, args, kwargs, output)`) after `forward`; a result other than
            None replaces the output.
        with_kwargs (bool): pass the keyword arguments of the call too. Default: False.
        always_call (bool): call the hook even when `forward` raises. Default: False.

    Returns a handle whose `remove()` unregisters the hook.

    Example::

        >>> from torch.nn.modules.module import register_module_forward_hook
        >>> h = register_module_forward_hook(lambda m, args, out: out * 0)
        >>> torch.nn.ReLU()(torch.ones(2))
        tensor([0., 0.])
        >>> h.remove()
    """
    return _add_global(_GLOBAL_POST, (hook, with_kwargs, always_call))


def register_module_full_backward_pre_hook(hook):
    """Register a backward pre-hook common to all modules, run before each module's own.

    Args:
        hook: called as `hook(module, grad_output)` when the gradients of the module's
            outputs are known; a result other than None replaces `grad_output`.

    Returns a handle whose `remove()` unregisters the hook.

    Example::

        >>> from torch.nn.modules.module import register_module_full_backward_pre_hook
        >>> h = register_module_full_backward_pre_hook(lambda m, go: (go[0] * 10,))
        >>> x = torch.ones(2, requires_grad=True)
        >>> torch.nn.Tanh()(x).sum().backward()
        >>> h.remove()
        >>> x.grad
        tensor([4.1997, 4.1997])
    """
    return _add_global(_GLOBAL_BW_PRE, hook)


def register_module_full_backward_hook(hook):
    """Register a backward hook common to all modules, run before each module's own.

    Args:
        hook: called as `hook(module, grad_input, grad_output)` once the gradients of
            the module's inputs are known; a result other than None replaces
            `grad_input`.

    Returns a handle whose `remove()` unregisters the hook.

    Example::

        >>> from torch.nn.modules.module import register_module_full_backward_hook
        >>> seen = []
        >>> h = register_module_full_backward_hook(lambda m, gi, go: seen.append(go[0]))
        >>> x = torch.ones(2, requires_grad=True)
        >>> (torch.nn.ReLU()(x) * 3).sum().backward()
        >>> h.remove()
        >>> seen
        [tensor([3., 3.])]
    """
    return _add_global(_GLOBAL_BW, hook)


def _call_hooked(module, args, kwargs):
    d = module.__dict__
    pre = [*_GLOBAL_PRE.values(), *d.get("_forward_pre_hooks", {}).values()]
    post = [*_GLOBAL_POST.values(), *d.get("_forward_hooks", {}).values()]
    try:
        for hook, with_kwargs, _ in pre:
            if with_kwargs:
                r = hook(module, args, kwargs)
                if r is not None:
                    if not (isinstance(r, tuple) and len(r) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {r}."
                        )
                    args, kwargs = r
            else:
                r = hook(module, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
        # (the backward hooks of this call are those registered now, as in PyTorch)
        bw_pre = [*_GLOBAL_BW_PRE.values(), *d.get("_backward_pre_hooks", {}).values()]
        bw_hooks = [*_GLOBAL_BW.values(), *d.get("_backward_hooks", {}).values()]
        bw = _BackwardHooks(module, args, bw_pre, bw_hooks) if bw_pre or bw_hooks else None
        if bw is not None:
            args = bw.wrap_inputs(args)
        out = module.forward(*args, **kwargs)
        if bw is not None:
            out = bw.wrap_outputs(out)
    except BaseException:
        for hook, with_kwargs, always in post:
            if always:
                try:
                    hook(module, args, kwargs, None) if with_kwargs else hook(module, args, None)
                except Exception:  # the forward's exception is the one to report
                    pass
        raise
    for hook, with_kwargs, _ in post:
        r = hook(module, args, kwargs, out) if with_kwargs else hook(module, args, out)
        if r is not None:
            out = r
    return out


class _Identity(Function):
    """Passes tensors through; its backward hands their gradients to `fn` (a module's
    backward hooks), which may replace them (as PyTorch's BackwardHookFunction)."""

    @staticmethod
    def forward(ctx, fn, materialize, *tensors):
        ctx.fn = fn
        ctx.set_materialize_grads(materialize)  # PyTorch: zeros for inputs, None for outputs
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None, None, *ctx.fn(grads))


class _BackwardHooks:
    """One call's full backward hooks: identities over the tensor inputs and the outputs
    catch grad_output, then grad_input, and call the module's hooks with them."""

    def __init__(self, module, args, pre_hooks, hooks) -> None:
        self.module, self.pre_hooks, self.hooks = module, pre_hooks, hooks
        self.n_args = len(args)
        self.pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.grad_output = None
        self.inputs_tracked = False

    def wrap_inputs(self, args):
        if not (is_grad_enabled() and any(args[i].requires_grad for i in self.pos)):
            return args
        self.inputs_tracked = True
        new = _Identity.apply(self._on_grad_input, True, *[args[i] for i in self.pos])
        new = new if isinstance(new, tuple) else (new,)
        args = list(args)
        for i, t in zip(self.pos, new):
            args[i] = t
        return tuple(args)

    def wrap_outputs(self, out):
        single = isinstance(out, Tensor)
        outs = (out,) if single else out
        if not (is_grad_enabled() and isinstance(outs, tuple)
                and any(isinstance(o, Tensor) and o.requires_grad for o in outs)):  # fmt: skip
            return out
        idx = [i for i, o in enumerate(outs) if isinstance(o, Tensor)]
        new = _Identity.apply(self._on_grad_output, False, *[outs[i] for i in idx])
        new = new if isinstance(new, tuple) else (new,)
        outs = list(outs)
        for i, t in zip(idx, new):
            outs[i] = t
        return outs[0] if single else tuple(outs)

    def _on_grad_output(self, grads):
        for hook in self.pre_hooks:
            r = hook(self.module, grads)
            if r is not None:
                r = r if isinstance(r, tuple) else (r,)
                if len(r) != len(grads):
                    raise RuntimeError(
                        "Backward pre hook returned an invalid number of grad_output, got "
                        f"{len(r)}, but expected {len(grads)}"
                    )
                grads = r
        self.grad_output = grads
        if not self.inputs_tracked:  # no input takes a gradient: the hooks fire now
            self._call(tuple([None] * self.n_args))
        return grads

    def _on_grad_input(self, grads):
        full = [None] * self.n_args
        for i, g in zip(self.pos, grads):
            full[i] = g
        full = self._call(tuple(full))
        return [full[i] for i in self.pos]

    def _call(self, grad_input):
        for hook in self.hooks:
            r = hook(self.module, grad_input, self.grad_output)
            if r is not None:
                r = r if isinstance(r, tuple) else (r,)
                if len(r) != len(grad_input):
                    raise RuntimeError(
                        "Backward hook returned an invalid number of grad_input, got "
                        f"{len(r)}, but expected {len(grad_input)}"
                    )
                grad_input = r
        return grad_input


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * " ") + line if line.strip() else "" for line in s]
    return first + "\n" + "\n".join(s)


def _typename(v):
    if isinstance(v, Tensor):
        return f"nbgrad.{v.dtype.name.capitalize()}Tensor"
    return type(v).__name__


class Module:
    """Base class for all neural network modules.

    Subclass it, call `super().__init__()` first in `__init__`, assign parameters and
    submodules as attributes (they are registered), and define `forward`. Calling the
    module calls `forward`. The module then offers PyTorch's API: `parameters()`,
    `named_parameters()`, `state_dict()` / `load_state_dict()`, `train()` / `eval()`,
    `zero_grad()`, `to(dtype or device)` and the rest (see docs/api.md).

    Example::

        >>> class TwoLayer(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.hidden = nn.Linear(4, 8)
        ...         self.out = nn.Linear(8, 1)
        ...
        ...     def forward(self, x):
        ...         return self.out(self.hidden(x).relu())
        >>> model = TwoLayer()
        >>> model(torch.ones(5, 4)).shape
        nbgrad.Size([5, 1])
        >>> [name for name, _ in model.named_parameters()]
        ['hidden.weight', 'hidden.bias', 'out.weight', 'out.bias']
    """

    training: bool

    def __init__(self, *args, **kwargs) -> None:
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes no arguments other than self "
                "(did you forget to pass them to your subclass?)"
            )
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()

    def forward(self, *args, **kwargs) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args, **kwargs):
        if _HOOKED[0] or "_forward_hooks" in self.__dict__:
            return _call_hooked(self, args, kwargs)
        return self.forward(*args, **kwargs)

    # -- forward hooks -------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """`hook(module, args)` (or `hook(module, args, kwargs)` with `with_kwargs`) before
        each forward; a result other than None replaces the arguments (with kwargs: an
        `(args, kwargs)` pair). Returns a handle whose `remove()` unregisters it."""
        return _add(_hook_dicts(self)[0], (hook, with_kwargs, False), prepend)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """`hook(module, args, output)` (or `hook(module, args, kwargs, output)`) after each
        forward; a result other than None replaces the output. `always_call`: also after a
        forward that raised. Returns a handle whose `remove()` unregisters it."""
        return _add(_hook_dicts(self)[1], (hook, with_kwargs, always_call), prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """`hook(module, grad_output)` when the gradients of the module's outputs are known;
        a result other than None replaces grad_output. Returns a removable handle."""
        return _add(_hook_dicts(self)[2], hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """`hook(module, grad_input, grad_output)` when the gradients of the module's
        positional inputs are computed; a result other than None replaces grad_input."""
        return _add(_hook_dicts(self)[3], hook, prepend)

    # -- registration ------------------------------------------------------------------
    def _check_init(self, what):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {what} before Module.__init__() call")

    def register_parameter(self, name, param):
        self._check_init("parameter")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(nbgrad.nn.Parameter or None required)"
            )
        self._parameters[name] = param
        object.__setattr__(self, name, param)

    def register_buffer(self, name, tensor, persistent=True):
        self._check_init("buffer")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                "(nbgrad Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)
        object.__setattr__(self, name, tensor)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._check_init("child module")
        self._modules[name] = module
        object.__setattr__(self, name, module)

    register_module = add_module

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            d["_buffers"].pop(name, None)
            d["_modules"].pop(name, None)
            params[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(nbgrad.nn.Parameter or None expected)"
                )
            params[name] = None
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            params.pop(name, None)
            d["_buffers"].pop(name, None)
            d["_modules"][name] = value
        elif params is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(nbgrad.nn.Module or None expected)"
                )
            d["_modules"][name] = None
        elif params is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(nbgrad.Tensor or None expected)"
                )
            d["_buffers"][name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        d = self.__dict__
        for reg in ("_parameters", "_buffers", "_modules"):
            if name in d.get(reg, ()):
                del d[reg][name]
                d["_non_persistent_buffers_set"].discard(name)
        object.__delattr__(self, name)

    def __getattr__(self, name):
        # only reached for names not in __dict__ (registered members always are)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def get_submodule(self, target: str):
        mod = self
        if target == "":
            return mod
        for item in target.split("."):
            if item not in mod._modules:
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = mod._modules[item]
        return mod

    def get_parameter(self, target: str):
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if name not in mod._parameters:
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return mod._parameters[name]

    # -- traversal ---------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if self in memo and remove_duplicate:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, kind, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        mods = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for mod_prefix, mod in mods:
            for k, v in getattr(mod, kind).items():
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield mod_prefix + ("." if mod_prefix else "") + k, v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # -- modes and gradients -------------------------------------------------------------
    def train(self, mode: bool = True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            g = p._grad
            if g is None:
                continue
            if set_to_none:
                p._grad = None
            else:
                g._data.fill(0)

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # -- dtype ---------------------------------------------------------------------------
    def _apply_dtype(self, dt, floating_only=True):
        for m in self.modules():
            for reg in (m._parameters, m._buffers):
                for t in reg.values():
                    if t is None or (floating_only and t._data.dtype.kind != "f"):
                        continue
                    if t.dtype is not dt:
                        replace_data(t, t._data.astype(dt.np))
                        t.__class__ = untag(t)
                        g = t._grad
                        if g is not None:
                            t._grad = Tensor._make(g._data.astype(dt.np), -1, False)
                        if dt in _dtype.LOWP:  # float32 storage of dt's values
                            tag(t, dt)
                            if g is not None:
                                tag(t._grad, dt)
        return self

    def to(self, *args, **kwargs):
        from ...device import parse_to_args

        dev, dt = parse_to_args(args, kwargs.get("dtype"), kwargs.get("device"))
        if dev is not None and (dev.type == "cuda" or self._on_cuda()):
            from ...ops.cuda.tensor import move_module

            move_module(self, dev)
        dt = _dtype.as_dtype(dt)
        if dt is None:
            return self
        if not dt.is_floating_point:
            raise TypeError(
                f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dt}"
            )
        return self._apply_dtype(dt)

    def float(self):
        return self._apply_dtype(_dtype.float32)

    def double(self):
        return self._apply_dtype(_dtype.float64)

    def half(self):
        return self._apply_dtype(_dtype.float16)

    def bfloat16(self):
        return self._apply_dtype(_dtype.bfloat16)

    def type(self, dst_type):
        return self._apply_dtype(_dtype.as_dtype(dst_type), floating_only=False)

    def cuda(self, device: Any = None):
        return self.to("cuda" if device is None else device)

    def cpu(self):
        return self.to("cpu") if self._on_cuda() else self

    def _on_cuda(self):
        return any(p.is_cuda for p in self.parameters()) or any(b.is_cuda for b in self.buffers())

    # -- state dict ----------------------------------------------------------------------
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:  # the deprecated positional form (destination, prefix, keep_vars)
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "items"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        own = {}
        for mod_prefix, mod in self.named_modules():
            p = mod_prefix + ("." if mod_prefix else "")
            for name, t in mod._parameters.items():
                if t is not None:
                    own[p + name] = (mod, "_parameters", name, t)
            for name, t in mod._buffers.items():
                if t is not None and name not in mod._non_persistent_buffers_set:
                    own[p + name] = (mod, "_buffers", name, t)
        for key, (mod, reg, name, t) in own.items():
            if key not in state_dict:
                missing.append(key)
                continue
            src = state_dict[key]
            if not isinstance(src, Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(src)}"
                )
                continue
            if src._data.shape != t._data.shape:
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {src.shape} from "
                    f"checkpoint, the shape in current model is {t.shape}."
                )
                continue
            with no_grad():
                if assign:
                    if reg == "_parameters":
                        new = Parameter(Tensor._make(src._data, -1, False), t._rg)
                    else:
                        new = src
                    setattr(mod, name, new)
                else:
                    np.copyto(t._data, src._data, casting="unsafe")
                    t._version += 1
        for key in state_dict.keys():
            if key not in own:
                unexpected.append(key)
        if strict:
            if unexpected:
                errors.insert(
                    0,
                    "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected)
                    ),
                )
            if missing:
                errors.insert(
                    0,
                    "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing)
                    ),
                )
        if errors:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    type(self).__name__, "\n\t".join(errors)
                )
            )
        return _IncompatibleKeys(missing, unexpected)

    # -- repr ----------------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __deepcopy__(self, memo):
        import copy

        # Tensors are copied here (fresh storage, no tape slot) before the generic copy
        # of the attribute dicts finds them through `memo`
        for m in self.modules():
            for v in list(m.__dict__.values()) + list(m._buffers.values()):
                if isinstance(v, Tensor) and id(v) not in memo:
                    _copy_tensor(v, memo)
        cls = type(self)
        new = cls.__new__(cls)
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            new.__dict__[k] = copy.deepcopy(v, memo)
        return new

    def __dir__(self):
        return sorted(set(dir(type(self))) | set(self.__dict__))
