"""`nn.Module`: the container of parameters, buffers and submodules, as in PyTorch.

Parameters, buffers and submodules are registered in `_parameters` / `_buffers` /
`_modules` (ordered dicts, as in PyTorch) *and* kept as ordinary instance attributes, so
reading `self.weight` in `forward` is a plain attribute lookup (PyTorch goes through
`__getattr__`). Hooks are not supported.
"""

from collections import OrderedDict, namedtuple

import numpy as np

from ... import _dtype
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..parameter import Parameter, _copy_tensor, _replace_data


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

    def __init__(self, *args, **kwargs):
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

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

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

    def get_submodule(self, target):
        mod = self
        if target == "":
            return mod
        for item in target.split("."):
            if item not in mod._modules:
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = mod._modules[item]
        return mod

    def get_parameter(self, target):
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
    def train(self, mode=True):
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
                    if t._data.dtype != dt.np:
                        _replace_data(t, t._data.astype(dt.np))
                        g = t._grad
                        if g is not None:
                            t._grad = Tensor._make(g._data.astype(dt.np), -1, False)
        return self

    def to(self, *args, **kwargs):
        from ...device import parse_to_args

        dev, dt = parse_to_args(args, kwargs.get("dtype"), kwargs.get("device"))
        if dev is not None and (dev.type == "cuda" or self._on_cuda()):
            from ...backends.cuda.tensor import move_module

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

    def type(self, dst_type):
        return self._apply_dtype(_dtype.as_dtype(dst_type), floating_only=False)

    def cuda(self, device=None):
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
