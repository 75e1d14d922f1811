"""Batched tensors and batching rules: what makes `vmap` one batched program.

A `BatchedTensor` stands for one sample of a batch: its logical shape is a sample's, and it
holds the whole batch as `_v`, a tensor with the batch dimension at the front (`_v` may
itself be batched at an outer level: nested vmaps stack wrappers, the innermost outside).
An op on batched tensors runs once on the batch values, with its arguments rewritten by a
batching rule the way functorch's are: elementwise ops line batch dimensions up and
broadcast, reductions/views/softmax shift their dims by one, matmul and einsum treat the
batch as one more batch dimension, losses reduce per sample. An op without a rule runs
once per sample (a `UserWarning` says so once per op) and its results are stacked.

Ops reach the rules through the methods of `BatchedTensor` and, while a vmap runs, through
wrappers put in place of the public functions of `nbgrad`, `nbgrad.nn.functional`,
`nbgrad.special` and of `Tensor`'s methods (so `w.matmul(batched)` works too); the
wrappers go away when the outermost vmap returns. Rules call the ops they rewrite through
those same wrappers, so an outer level's batched value dispatches again.
"""

import inspect
import string
import warnings

from ..tensor import Tensor

LEVELS: dict = {}  # level id -> (batch size, randomness) of each running vmap (inner: larger id)
_NEXT = [0]
_ORIG: dict = {}  # (owner, name) -> the unpatched function
_WARNED: set = set()
_SIGNATURES: dict = {}  # function -> its inspect.signature (computing one costs ~50 us)

# -- batched tensors ---------------------------------------------------------------------


class BatchedTensor(Tensor):
    """One sample of a batch; `_v` holds the batch at dim 0 and `_lvl` names the vmap."""

    __slots__ = ("_v", "_lvl")

    def __repr__(self):
        return f"BatchedTensor(lvl={self._lvl}, bdim=0, value=\n{self._v!r})"

    # metadata is a sample's
    @property
    def shape(self):
        return self._v.shape[1:]

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[_wrap(dim, self.dim())]

    def dim(self):
        return self._v.dim() - 1

    ndim = property(dim)

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    nelement = numel

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        return iter(self.unbind(0))

    dtype = property(lambda self: self._v.dtype)
    device = property(lambda self: self._v.device)
    is_cuda = property(lambda self: self._v.is_cuda)
    requires_grad = property(lambda self: self._v.requires_grad)
    grad_fn = property(lambda self: self._v.grad_fn)
    is_leaf = property(lambda self: self._v.is_leaf)
    data = property(lambda self: _wrap_out(self._v.data, self._lvl))
    T = property(lambda self: self.permute(*range(self.dim() - 1, -1, -1)))
    mT = property(lambda self: self.transpose(-2, -1))

    def is_floating_point(self):
        return self._v.is_floating_point()

    def element_size(self):
        return self._v.element_size()

    def is_contiguous(self, memory_format=None):
        return True

    def _refuse(self, *a, **k):
        raise RuntimeError(
            "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap "
            "over calling .item() on a Tensor, please try to rewrite what you're doing with "
            "other operations. If error is occurring somewhere inside PyTorch internals, "
            "please file a bug report."
        )

    item = tolist = numpy = __array__ = __float__ = __int__ = __index__ = _refuse

    def __bool__(self):
        raise RuntimeError(
            "vmap: It looks like you're attempting to use a Tensor in some data-dependent "
            "control flow. We don't support that yet, please file an issue at "
            "https://github.com/pytorch/pytorch/issues ."
        )

    def __hash__(self):
        return id(self)


def wrap(value, lvl):
    t = object.__new__(BatchedTensor)
    t._v, t._lvl = value, lvl
    t._slot, t._rg, t._aux = -1, False, None
    return t


def _wrap_out(out, lvl):
    if isinstance(out, Tensor):
        return wrap(out, lvl)
    if isinstance(out, tuple) and hasattr(out, "_fields"):  # a named tuple (max(dim), ...)
        return type(out)(*(_wrap_out(o, lvl) for o in out))
    if isinstance(out, (tuple, list)):
        return type(out)(_wrap_out(o, lvl) for o in out)
    return out


def _wrap(d, n):
    m = max(n, 1)
    if not -m <= d < m:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-m}, {m - 1}], but got {d})"
        )
    return d % m


def level_of(x):
    return x._lvl if type(x) is BatchedTensor else -1


def _top(args, kwargs):
    lvl = -1
    for a in (*args, *kwargs.values()):
        if type(a) is BatchedTensor:
            lvl = max(lvl, a._lvl)
        elif isinstance(a, (tuple, list)):
            for b in a:
                if type(b) is BatchedTensor:
                    lvl = max(lvl, b._lvl)
    return lvl


def _at(x, lvl):
    """x's batch value if x is batched at lvl, else None."""
    return x._v if type(x) is BatchedTensor and x._lvl == lvl else None


def _pad(v, r):
    """A batch value (B, *logical) with its logical rank raised to r by leading 1s."""
    d = v.dim() - 1
    if d >= r:
        return v
    s = tuple(v.shape)
    return v.reshape(s[:1] + (1,) * (r - d) + s[1:])


def _expand(x, lvl):
    """x as a batch value at lvl (an unbatched x repeated over the batch, as a view)."""
    v = _at(x, lvl)
    if v is not None:
        return v
    B = LEVELS[lvl][0]
    return x.unsqueeze(0).expand(B, *x.shape)


# -- calling an op one level down --------------------------------------------------------
def _syntax():
    import operator as o

    t = {}
    for n in ("add", "sub", "mul", "truediv", "pow", "matmul", "floordiv", "mod", "and",
              "or", "xor"):  # fmt: skip
        f = getattr(o, n + "_" if n in ("and", "or") else n)
        t[f"__{n}__"] = f
        t[f"__r{n}__"] = lambda a, b, f=f: f(b, a)
    for n in ("eq", "ne", "lt", "le", "gt", "ge"):
        t[f"__{n}__"] = getattr(o, n)
    return t


_SYNTAX = _syntax()


class Op:
    """An op being dispatched: a module function or a Tensor method (args[0] is self)."""

    __slots__ = ("owner", "name", "fn")

    def __init__(self, owner, name, fn):
        self.owner, self.name, self.fn = owner, name, fn

    def __call__(self, *args, **kwargs):
        if self.owner is Tensor:
            f = _SYNTAX.get(self.name)
            if f is not None:  # `a * b`, not a.__mul__(b): b's reflected method may win
                return f(*args)
            return getattr(args[0], self.name)(*args[1:], **kwargs)
        return getattr(self.owner, self.name)(*args, **kwargs)

    def bind(self, args, kwargs):
        sig = _SIGNATURES.get(self.fn)
        if sig is None:
            sig = _SIGNATURES[self.fn] = inspect.signature(self.fn)
        ba = sig.bind(*args, **kwargs)
        ba.apply_defaults()
        return ba

    def call_bound(self, ba):
        return self(*ba.args, **ba.kwargs)

    @property
    def qualname(self):
        owner = "Tensor" if self.owner is Tensor else self.owner.__name__
        return f"{owner}.{self.name}"


def dispatch(op, args, kwargs):
    lvl = _top(args, kwargs)
    if lvl < 0:
        return op.fn(*args, **kwargs)
    rule = RULES.get(op.name)
    if rule is not None:
        out = rule(op, lvl, args, kwargs)
        if out is not NotImplemented:
            return out
    return loop(op, lvl, args, kwargs)


def loop(op, lvl, args, kwargs):
    """The op once per sample, results stacked: for ops without a batching rule."""
    if op.qualname not in _WARNED:
        _WARNED.add(op.qualname)
        warnings.warn(
            f"There is a performance drop because we have not yet implemented the batching "
            f"rule for {op.qualname}. vmap runs it once per sample and stacks the results.",
            UserWarning,
            stacklevel=4,
        )
    import nbgrad

    B = LEVELS[lvl][0]

    def pick(x, b):
        v = _at(x, lvl)
        if v is not None:
            return v[b]
        if isinstance(x, (tuple, list)):
            return type(x)(pick(y, b) for y in x)
        return x

    outs = []
    for b in range(B):
        a = [pick(x, b) for x in args]
        k = {n: pick(x, b) for n, x in kwargs.items()}
        outs.append(op(*a, **k))

    def join(rs):
        r0 = rs[0]
        if isinstance(r0, Tensor):
            return wrap(nbgrad.stack(rs), lvl)
        if isinstance(r0, (tuple, list)):
            parts = [join([r[i] for r in rs]) for i in range(len(r0))]
            return type(r0)(*parts) if hasattr(r0, "_fields") else type(r0)(parts)
        if any(r != r0 for r in rs[1:]):
            raise RuntimeError(
                f"vmap: {op.qualname} returned a Python value that depends on the sample; "
                "vmap can only batch tensor results"
            )
        return r0

    out = join(outs)
    if op.name.endswith("_") and op.owner is Tensor and type(args[0]) is BatchedTensor:
        args[0]._v = out._v if type(out) is BatchedTensor else out  # in place: rebind
        return args[0]
    return out


# -- rules -------------------------------------------------------------------------------
RULES: dict = {}


def _rule(*names):
    def deco(f):
        for n in names:
            RULES[n] = f
        return f

    return deco


def _aligned(lvl, args, kwargs):
    """Arguments with each tensor batched at lvl replaced by its value padded to the
    largest logical rank among the tensor arguments (so they broadcast sample-wise);
    returns (args, kwargs, that rank)."""
    r = 0
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            r = max(r, a.dim())

    def fix(a):
        v = _at(a, lvl)
        return a if v is None else _pad(v, r)

    return [fix(a) for a in args], {k: fix(v) for k, v in kwargs.items()}, r


EW = (
    "neg negative exp exp2 expm1 log log10 log1p log2 sin cos tan sinh cosh tanh asin acos "
    "atan arcsin arccos arctan sigmoid relu gelu silu sqrt rsqrt abs sign round ceil floor "
    "reciprocal square erf digamma lgamma add sub subtract mul multiply div divide "
    "true_divide pow atan2 arctan2 maximum minimum eq ne lt le gt ge where clamp clip "
    "clamp_min clamp_max hardtanh masked_fill float double long int bool to type contiguous "
    "clone detach softplus elu selu celu leaky_relu relu6 logsigmoid one_hot "
    "pairwise_distance expit logit xlogy xlog1py erfc erfinv ndtr i0 sinc entr log_ndtr "
    "gammaln psi softsign hardsigmoid hardswish mish tanhshrink threshold"
).split()
EW_INPLACE = "add_ sub_ mul_ div_ pow_ clamp_ clip_ fill_ zero_ copy_ detach_ relu_".split()


@_rule(*EW, "__getitem_ew__")
def ew(op, lvl, args, kwargs):
    a, k, _ = _aligned(lvl, args, kwargs)
    return _wrap_out(op(*a, **k), lvl)


@_rule(*EW_INPLACE)
def ew_inplace(op, lvl, args, kwargs):
    self = args[0]
    if _at(self, lvl) is None:  # PyTorch's in-place shape check, seen with the batch
        import numpy as np

        shapes = [tuple(x.shape) for x in args if isinstance(x, Tensor)]
        full = [LEVELS[lvl][0], *np.broadcast_shapes(*shapes)]
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape {full}"
        )
    r = self.dim()
    rest = [_pad(_at(x, lvl), r) if _at(x, lvl) is not None else x for x in args[1:]]
    out = op(self._v, *rest, **kwargs)
    if isinstance(out, Tensor) and out is not self._v:  # an op that rebinds (in a graph)
        self._v = out
    return self


# dim rules: op -> (names of its dim parameters, what dim=None means, rank offset)
# None-mode: "all" = every logical dim, "flat" = over the flattened sample, None = keep
DIMS = {
    "sum": (("dim",), "all", 0),
    "mean": (("dim",), "all", 0),
    "amax": (("dim",), "all", 0),
    "amin": (("dim",), "all", 0),
    "logsumexp": (("dim",), "all", 0),
    "std": (("dim",), "all", 0),
    "var": (("dim",), "all", 0),
    "std_mean": (("dim",), "all", 0),
    "var_mean": (("dim",), "all", 0),
    "norm": (("dim",), "all", 0),
    "prod": (("dim",), "flat", 0),
    "argmax": (("dim",), "flat", 0),
    "argmin": (("dim",), "flat", 0),
    "cumsum": (("dim",), None, 0),
    "softmax": (("dim",), "softmax", 0),
    "log_softmax": (("dim",), "softmax", 0),
    "softmin": (("dim",), "softmax", 0),
    "normalize": (("dim",), None, 0),
    "cosine_similarity": (("dim",), None, 0),
    "unsqueeze": (("dim",), None, 1),
    "transpose": (("dim0", "dim1"), None, 0),
    "swapaxes": (("axis0", "axis1"), None, 0),
    "narrow": (("dim",), None, 0),
    "split": (("dim",), None, 0),
    "chunk": (("dim",), None, 0),
    "unbind": (("dim",), None, 0),
    "flip": (("dims",), None, 0),
    "movedim": (("source", "destination"), None, 0),
    "moveaxis": (("source", "destination"), None, 0),
    "index_select": (("dim",), None, 0),
    "gather": (("dim",), None, 0),
    "take_along_dim": (("dim",), "flat", 0),
    "scatter_add": (("dim",), None, 0),
    "index_add": (("dim",), None, 0),
    "max": (("dim",), "flat", 0),
    "min": (("dim",), "flat", 0),
}


_WHOLE = ("sum", "mean", "amax", "amin")  # reductions whose dim may be passed positionally


def _shift(d, r):
    if isinstance(d, (tuple, list)):
        return type(d)(_wrap(x, r) + 1 for x in d)
    return _wrap(d, r) + 1


@_rule(*DIMS)
def dim_rule(op, lvl, args, kwargs):
    names, none_mode, extra = DIMS[op.name]
    if none_mode == "all" and len(args) == 1 and not kwargs and op.name in _WHOLE:
        v = _at(args[0], lvl)  # x.sum(): over the sample's dims (no signature to bind)
        if v is not None and v.dim() > 1:
            return wrap(op(v, tuple(range(1, v.dim()))), lvl)
    if op.name in ("max", "min"):
        other = args[1] if len(args) > 1 else kwargs.get("other")
        if isinstance(other, Tensor):  # max(x, y): elementwise
            return ew(op, lvl, args, kwargs)
    try:
        ba = op.bind(args, kwargs)
    except TypeError:
        return NotImplemented
    # every tensor argument batched; index-like ones aligned with the input
    tensor_params = [n for n, v in ba.arguments.items() if isinstance(v, Tensor)]
    r = max(ba.arguments[n].dim() for n in tensor_params)
    for n in tensor_params:
        v = ba.arguments[n]
        if op.name in ("index_select", "index_add") and n == "index":
            if _at(v, lvl) is not None:  # per-sample index lists
                return NotImplemented
        elif op.name in ("gather", "take_along_dim", "scatter_add", "index_add"):
            ba.arguments[n] = _pad(_expand(v, lvl), r)  # every operand batched
        else:
            u = _at(v, lvl)
            ba.arguments[n] = v if u is None else _pad(u, r)
    if r == 0 and op.name in ("sum", "mean", "amax", "amin", "logsumexp"):
        x = ba.arguments[tensor_params[0]]  # of one number: the number (an integer sum: int64)
        return wrap(x.clone() if x.is_floating_point() or op.name != "sum" else x.long(), lvl)
    for n in names:
        d = ba.arguments.get(n, inspect.Parameter.empty)
        if d is None:
            if none_mode == "all":
                ba.arguments[n] = tuple(range(1, r + 1))
                if r == 0:
                    return NotImplemented
            elif none_mode == "flat":
                return _flat(op, lvl, ba, tensor_params[0], n)
            elif none_mode == "softmax":
                ba.arguments[n] = (0 if r in (0, 1, 3) else 1) + 1
            else:
                return NotImplemented
        elif d is inspect.Parameter.empty:
            return NotImplemented
        else:
            if r == 0 and not extra:
                return NotImplemented
            ba.arguments[n] = _shift(d, r + extra)
    return _wrap_out(op.call_bound(ba), lvl)


def _flat(op, lvl, ba, xname, dname):
    """op(x) over the flattened sample: the batch value reshaped to (B, n)."""
    x = ba.arguments[xname]
    keep = ba.arguments.get("keepdim", False)
    shape = tuple(x.shape)
    if op.name in ("max", "min"):  # x.max(): a value, not (values, indices)
        return wrap(getattr(x.reshape(shape[0], -1), "a" + op.name)(1), lvl)
    ba.arguments[xname] = x.reshape(shape[0], -1)
    ba.arguments[dname] = 1
    if op.name == "take_along_dim":
        i = ba.arguments["indices"]
        ba.arguments["indices"] = i.reshape(i.shape[0], -1)
    out = op.call_bound(ba)
    if keep and isinstance(out, Tensor):
        out = out.reshape(shape[:1] + (1,) * (len(shape) - 1))
    return _wrap_out(out, lvl)


@_rule("reshape", "view")
def reshape(op, lvl, args, kwargs):
    x = args[0]
    v = _at(x, lvl)
    if v is None:
        return NotImplemented
    shape = args[1:] if len(args) > 1 else (kwargs.get("shape"),)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if shape and not isinstance(shape[0], int):
        return NotImplemented  # view(dtype)
    if op.owner is not Tensor and op.name == "reshape":
        return wrap(v.reshape((v.shape[0], *shape)), lvl)
    return wrap(getattr(v, op.name)((v.shape[0], *shape)), lvl)


@_rule("view_as", "reshape_as", "expand_as")
def as_rule(op, lvl, args, kwargs):
    x, other = args[0], args[1] if len(args) > 1 else kwargs["other"]
    return getattr(x, {"view_as": "view", "reshape_as": "reshape"}.get(op.name, "expand"))(
        *other.shape
    )


@_rule("expand")
def expand(op, lvl, args, kwargs):
    x, sizes = args[0], args[1:] if len(args) > 1 else (kwargs["size"],)
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    v = _pad(x._v, len(sizes))
    return wrap(v.expand(v.shape[0], *sizes), lvl)


@_rule("flatten")
def flatten(op, lvl, args, kwargs):
    ba = op.bind(args, kwargs)
    x = ba.arguments["input" if "input" in ba.arguments else "self"]
    v, r = x._v, x.dim()
    if r == 0:
        return wrap(v.reshape(v.shape[0], 1), lvl)
    s, e = _wrap(ba.arguments["start_dim"], r), _wrap(ba.arguments["end_dim"], r)
    return wrap(v.flatten(s + 1, e + 1), lvl)


@_rule("squeeze")
def squeeze(op, lvl, args, kwargs):
    x = args[0]
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    shape = tuple(x.shape)
    if dim is None:
        dims = {i for i, s in enumerate(shape) if s == 1}
    else:
        dims = {_wrap(d, len(shape)) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))}
        dims = {d for d in dims if shape and shape[d] == 1}
    v = x._v
    return wrap(v.reshape(v.shape[0], *[s for i, s in enumerate(shape) if i not in dims]), lvl)


@_rule("permute")
def permute(op, lvl, args, kwargs):
    x, dims = args[0], args[1:] if len(args) > 1 else (kwargs["dims"],)
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    r = x.dim()
    return wrap(x._v.permute(0, *(_wrap(d, r) + 1 for d in dims)), lvl)


@_rule("t")
def t_rule(op, lvl, args, kwargs):
    x = args[0]
    return x if x.dim() < 2 else x.transpose(0, 1)


@_rule("repeat", "tile")
def repeat(op, lvl, args, kwargs):
    x, reps = args[0], args[1:]
    if len(reps) == 1 and isinstance(reps[0], (tuple, list)):
        reps = tuple(reps[0])
    if not reps:
        reps = tuple(kwargs.get("dims", kwargs.get("repeats", ())))
    v = _at(x, lvl)
    if v is None:
        return NotImplemented
    k = max(len(reps), x.dim())
    v = _pad(v, k)
    reps = (1,) * (k - len(reps)) + tuple(reps)
    return wrap(v.repeat(1, *reps), lvl)


@_rule("fliplr", "flipud")
def flip_lr(op, lvl, args, kwargs):
    return args[0].flip(1 if op.name == "fliplr" else 0)


@_rule("cat", "concat", "concatenate", "stack")
def cat(op, lvl, args, kwargs):
    ts = list(args[0] if args else kwargs["tensors"])
    dim = args[1] if len(args) > 1 else kwargs.get("dim", kwargs.get("axis", 0))
    r = max(t.dim() for t in ts)
    vs = [_pad(_expand(t, lvl), r) if t.dim() == r or op.name == "stack" else None for t in ts]
    if any(v is None for v in vs):  # cat with a 1-D empty member: PyTorch's legacy case
        return NotImplemented
    d = _wrap(dim, r + (op.name == "stack")) + 1
    return wrap(op(vs, d), lvl)


@_rule("hstack")
def hstack(op, lvl, args, kwargs):
    import nbgrad

    ts = list(args[0])
    return nbgrad.cat(ts, 0 if all(t.dim() == 1 for t in ts) else 1)


@_rule("vstack")
def vstack(op, lvl, args, kwargs):
    import nbgrad

    return nbgrad.cat([t.unsqueeze(0) if t.dim() < 2 else t for t in args[0]], 0)


@_rule("matmul", "mm", "bmm", "mv", "__matmul__")
def matmul(op, lvl, args, kwargs):
    a, b = args[0], args[1] if len(args) > 1 else kwargs.get("other", kwargs.get("mat2"))
    if op.name == "__matmul__":
        op = Op(Tensor, "matmul", None)
    la, lb = a.dim(), b.dim()
    if la == 0 or lb == 0:
        return NotImplemented
    if la == 1 and lb == 1:
        return (a * b).sum(-1)
    va, vb = _at(a, lvl), _at(b, lvl)
    if va is not None and vb is not None and (la == 1 or lb == 1):
        # a batch of matrix-vector products: elementwise products and a sum (one
        # vectorised pass forward and backward, where a batched GEMM calls BLAS per sample)
        B = va.shape[0]
        if lb == 1:
            return wrap((va * vb.reshape(B, *(1,) * (la - 1), -1)).sum(-1), lvl)
        return wrap((va.reshape(B, *(1,) * (lb - 2), -1, 1) * vb).sum(-2), lvl)
    import nbgrad.nn.functional as F

    if va is None and la == 2 and lb == 1:  # A @ v: a linear layer over the samples
        return wrap(F.linear(vb, a), lvl)
    if vb is None and la == 1 and lb == 2:  # v @ A
        return wrap(F.linear(va, b.transpose(0, 1)), lvl)
    r = max(la, lb, 2)
    if va is not None:
        va = va.unsqueeze(1) if la == 1 else _pad(va, r)
    else:
        va = a.unsqueeze(0) if la == 1 else a
    if vb is not None:
        vb = vb.unsqueeze(-1) if lb == 1 else _pad(vb, r)
    else:
        vb = b.unsqueeze(-1) if lb == 1 else b
    out = va.matmul(vb)
    if la == 1:
        out = out.squeeze(-2)
    if lb == 1:
        out = out.squeeze(-1)
    return wrap(out, lvl)


@_rule("__rmatmul__")
def rmatmul(op, lvl, args, kwargs):
    return matmul(Op(Tensor, "matmul", None), lvl, [args[1], args[0]], {})


@_rule("dot", "inner")
def dot(op, lvl, args, kwargs):
    return (args[0] * args[1]).sum(-1)


@_rule("outer", "ger")
def outer(op, lvl, args, kwargs):
    return args[0].unsqueeze(1) * args[1].unsqueeze(0)


@_rule("linear")
def linear(op, lvl, args, kwargs):
    ba = op.bind(args, kwargs)
    x, w, b = ba.arguments["input"], ba.arguments["weight"], ba.arguments.get("bias")
    if _at(w, lvl) is None and (b is None or _at(b, lvl) is None) and _at(x, lvl) is not None:
        return wrap(op(x._v, w, b), lvl)
    out = x.matmul(w.transpose(-1, -2) if w.dim() == 2 else w)
    return out if b is None else out + b


@_rule("einsum")
def einsum(op, lvl, args, kwargs):
    eq, ops = args[0], args[1:]
    if len(ops) == 1 and isinstance(ops[0], (tuple, list)):
        ops = tuple(ops[0])
    if not isinstance(eq, str):
        return NotImplemented
    eq = eq.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if not arrow:
        letters = [c for c in lhs if c.isalpha()]
        rhs = ("..." if "..." in lhs else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1)
        )
    z = next(c for c in string.ascii_letters if c not in eq)
    new_terms, vals = [], []
    for t, o in zip(terms, ops):
        v = _at(o, lvl)
        new_terms.append(t if v is None else z + t)
        vals.append(o if v is None else v)
    return wrap(op(",".join(new_terms) + "->" + z + rhs, *vals), lvl)


@_rule("__getitem__")
def getitem(op, lvl, args, kwargs):
    x, idx = args
    v = _at(x, lvl)
    idx = idx if isinstance(idx, tuple) else (idx,)
    if v is None or any(_at(i, lvl) is not None for i in idx if isinstance(i, Tensor)):
        return NotImplemented
    adv = [j for j, i in enumerate(idx) if isinstance(i, (Tensor, list))]
    if adv and adv[-1] - adv[0] + 1 != len(adv):  # separated advanced indices move dims
        return NotImplemented
    return wrap(v[(slice(None),) + tuple(idx)], lvl)


@_rule("__setitem__")
def setitem(op, lvl, args, kwargs):
    x, idx, val = args
    v = _at(x, lvl)
    if v is None:
        raise RuntimeError(
            "vmap: index_put_(self, *extra_args) is not possible because there exists a "
            "Tensor `other` in extra_args that has more elements than `self`. This happened "
            "due to `other` being vmapped over but `self` not being vmapped over in a vmap. "
            "Please try to use out-of-place operators instead of index_put_. If said "
            "operator is being called inside the PyTorch framework, please file a bug report "
            "instead."
        )
    idx = idx if isinstance(idx, tuple) else (idx,)
    if any(_at(i, lvl) is not None for i in idx if isinstance(i, Tensor)):
        return NotImplemented
    u = _at(val, lvl) if isinstance(val, Tensor) else None
    if u is not None:
        val = _pad(u, x[idx if len(idx) > 1 else idx[0]].dim())
    v[(slice(None),) + tuple(idx)] = val
    return None


# losses: computed per element (reduction="none"), then reduced over each sample
LOSSES = (
    "mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy "
    "binary_cross_entropy_with_logits kl_div poisson_nll_loss soft_margin_loss"
).split()


@_rule(*LOSSES)
def pointwise_loss(op, lvl, args, kwargs):
    ba = op.bind(args, kwargs)
    red = ba.arguments.get("reduction", "mean")
    if ba.arguments.get("size_average") is not None or ba.arguments.get("reduce") is not None:
        return NotImplemented
    ba.arguments["reduction"] = "none"
    a, k, _ = _aligned(lvl, ba.args, ba.kwargs)
    out = wrap(op(*a, **k), lvl)
    return _reduce(out, red, ba)


def _reduce(out, red, ba=None):
    if red == "none" or out.dim() == 0:
        return out
    if red == "sum":
        return out.sum()
    if red == "batchmean":
        return out.sum() / (out.shape[0] if out.dim() else 1)
    return out.mean()


@_rule("cross_entropy", "nll_loss")
def class_loss(op, lvl, args, kwargs):
    ba = op.bind(args, kwargs)
    x, y = ba.arguments["input"], ba.arguments["target"]
    red = ba.arguments.get("reduction", "mean")
    if (
        ba.arguments.get("size_average") is not None
        or ba.arguments.get("reduce") is not None
        or (ba.arguments.get("weight") is not None and red == "mean")
        or _at(ba.arguments.get("weight"), lvl) is not None
    ):
        return NotImplemented
    probs = y.is_floating_point()
    vx, vy = _expand(x, lvl), _expand(y, lvl)
    B = vx.shape[0]
    if x.dim() >= 2:  # (N, C, ...): the batch folds into N
        vx = vx.reshape(B * x.shape[0], *x.shape[1:])
        vy = vy.reshape(B * y.shape[0], *y.shape[1:])
    ba.arguments["input"], ba.arguments["target"] = vx, vy
    ba.arguments["reduction"] = "none"
    out = op.call_bound(ba)
    if x.dim() >= 2:
        out = out.reshape(B, x.shape[0], *out.shape[1:])
    out = wrap(out, lvl)
    if red == "mean" and not probs and x.dim() >= 2:
        kept = wrap((vy != ba.arguments.get("ignore_index", -100)).reshape(out._v.shape), lvl)
        return out.sum() / kept.sum()
    return _reduce(out, red)


@_rule("layer_norm", "rms_norm", "scaled_dot_product_attention", "pad", "embedding")
def leading_batch(op, lvl, args, kwargs):
    """Ops whose leading dims are batch dims already: batched inputs pass straight through
    (aligned to one rank); a batched weight runs per sample."""
    ba = op.bind(args, kwargs)
    if op.name == "embedding":  # indices batched: one more leading dim
        if _at(ba.arguments["weight"], lvl) is not None:
            return NotImplemented
        ba.arguments["input"] = _expand(ba.arguments["input"], lvl)
        return wrap(op.call_bound(ba), lvl)
    if any(_at(ba.arguments.get(n), lvl) is not None for n in ("weight", "bias")):
        return NotImplemented
    if op.name == "pad" and ba.arguments.get("mode", "constant") != "constant":
        return NotImplemented
    a, k, _ = _aligned(lvl, ba.args, ba.kwargs)
    return wrap(op(*a, **k), lvl)


FOLD = {"conv1d": 1, "conv2d": 2, "conv_transpose1d": 1, "conv_transpose2d": 2,
        "max_pool1d": 1, "max_pool2d": 2, "avg_pool1d": 1, "avg_pool2d": 2,
        "adaptive_avg_pool1d": 1, "adaptive_avg_pool2d": 2, "adaptive_max_pool1d": 1,
        "adaptive_max_pool2d": 2}  # fmt: skip


@_rule(*FOLD)
def fold(op, lvl, args, kwargs):
    """Convolutions and pools: the batch folds into N (or becomes N for an unbatched
    (C, ...) sample)."""
    x, rest = args[0], args[1:]
    v = _at(x, lvl)
    if v is None or _top(rest, kwargs) == lvl or kwargs.get("return_indices"):
        return NotImplemented
    s = FOLD[op.name]
    if x.dim() == s + 1:
        return wrap(op(v, *rest, **kwargs), lvl)
    B = v.shape[0]
    out = op(v.reshape(B * x.shape[0], *x.shape[1:]), *rest, **kwargs)
    return wrap(out.reshape(B, x.shape[0], *out.shape[1:]), lvl)


@_rule("zeros_like", "ones_like", "empty_like", "full_like")
def like(op, lvl, args, kwargs):
    v = _at(args[0], lvl)
    return wrap(op(v, *args[1:], **kwargs), lvl)


# -- randomness --------------------------------------------------------------------------
RANDOM = {"rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
          "bernoulli", "normal", "multinomial", "dropout", "dropout1d", "dropout2d",
          "alpha_dropout", "rrelu"}  # fmt: skip


def random_call(op, args, kwargs):
    """A random op inside vmap: refused ('error'), drawn once ('same') or per sample."""
    lvl = max(LEVELS)
    mode = LEVELS[lvl][1]
    if mode == "error":
        raise RuntimeError(
            "vmap: called random operation while in randomness error mode. Please either use "
            "the 'same' or 'different' randomness flags on vmap or perform the randomness "
            "operation out of vmap"
        )
    top = _top(args, kwargs)
    if op.name.startswith("dropout") or op.name in ("alpha_dropout", "rrelu"):
        x = args[0] if args else kwargs["input"]
        if top < 0 and mode == "same":
            return op.fn(*args, **kwargs)
        if mode == "same":  # one mask for every sample
            import nbgrad

            rest = {k: v for k, v in kwargs.items() if k != "input"}
            mask = op.fn(nbgrad.ones(tuple(x.shape), dtype=x.dtype), *args[1:], **rest)
            return x * mask
        v = _expand(x, lvl)
        rest = {k: u for k, u in kwargs.items() if k != "input"}
        return wrap(op.fn(v, *args[1:], **rest), lvl)
    if op.name.endswith("_like"):
        x = args[0]
        if mode == "same":
            import nbgrad

            shape = tuple(x.shape)
            return getattr(nbgrad, op.name[:-5])(*shape, dtype=x.dtype)
        return wrap(op.fn(_expand(x, lvl), *args[1:], **kwargs), lvl)
    if mode == "same" or top >= 0:
        return op.fn(*args, **kwargs) if top < 0 else loop(op, top, args, kwargs)
    # factories drawing per sample: one draw with the batch in front
    B = LEVELS[lvl][0]
    if op.name in ("rand", "randn"):
        size = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        size = kwargs.pop("size", size)
        return wrap(op.fn(B, *size, **kwargs), lvl)
    if op.name == "randint":
        size = kwargs.pop("size", args[-1])
        return wrap(op.fn(*args[:-1], size=(B, *size), **kwargs), lvl)
    import nbgrad

    return wrap(nbgrad.stack([op.fn(*args, **kwargs) for _ in range(B)]), lvl)


# -- installing the dispatch while a vmap runs -------------------------------------------
_SKIP = {
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "eye", "arange",
    "linspace", "manual_seed", "seed", "get_default_dtype", "set_default_dtype",
    "promote_types", "is_tensor", "is_grad_enabled", "compile", "load", "save", "numel",
    "set_grad_enabled", "allclose", "equal",
}  # fmt: skip
_PATCHED: list = []  # per install: [`_patch`'s triple per module]
_GATED: set = set()  # classes whose methods were replaced by `_gated` ones
_UNGATED: dict = {}  # name -> Tensor's own method, where a `_gated` one replaced it
WRAPPER: dict = {}  # id(original) -> its wrapper, read while installed (vmap(torch.sin) gets one)


def _scan_targets():
    import types

    import nbgrad
    import nbgrad.nn.functional as F
    import nbgrad.special as special  # (loaded here: a call that loads it must find it batched)

    for m in (nbgrad, F, special):
        for name, f in list(vars(m).items()):
            if name.startswith("_") or name in _SKIP:
                continue
            if isinstance(f, (types.FunctionType, types.BuiltinFunctionType)):
                yield m, name, f
    for name in _PLAIN_METHODS:  # plain.method(batched): the methods taking a tensor
        f = _UNGATED.get(name) or vars(Tensor).get(name)
        if isinstance(f, types.FunctionType):
            yield Tensor, name, f


# (the other methods of a plain tensor take no tensor argument: they are left alone,
# which keeps installing the wrappers cheap, it runs at every vmap call)
_PLAIN_METHODS = (
    "__getitem__ __setitem__ add sub subtract mul multiply div divide true_divide pow "
    "matmul mm dot outer maximum minimum atan2 arctan2 where masked_fill expand_as view_as "
    "reshape_as gather index_select take_along_dim scatter_add index_add index_put eq ne lt "
    "le gt ge copy_ add_ sub_ mul_ div_ pow_ clamp clip clamp_ clip_ index_add_ "
    "scatter_add_ index_put_"
).split()


def _make_wrapper(owner, name, f):
    import types

    op = Op(owner, name, f)
    if name in RANDOM:

        def w(*args, **kwargs):
            return random_call(op, args, kwargs)

    else:

        def w(*args, **kwargs):
            return dispatch(op, args, kwargs)

        if RULES.get(name) is ew and isinstance(owner, types.ModuleType):
            w = _fast_unary(w, f, owner, name)

    w.__name__, w.__qualname__, w.__doc__ = f.__name__, f.__qualname__, f.__doc__
    w.__wrapped__ = f
    return w


# ([(owner, {name: wrapper}, {name: original})], {id of an original: its wrapper},
# [`_patch`'s triple per module]), made once: outside any vmap call (`install`), so it
# holds the modules' own functions and classes
_PLAN: list = []


def _plan():
    if not _PLAN:
        by_owner = {}
        for owner, name, f in _scan_targets():
            w, o = by_owner.setdefault(owner, ({}, {}))
            w[name], o[name] = _make_wrapper(owner, name, f), f
        ids = {id(f): w[n] for w, o in by_owner.values() for n, f in o.items()}
        mods = [_patch(m, w, o) for m, (w, o) in by_owner.items() if not isinstance(m, type)]
        _PLAN.append(([(owner, w, o) for owner, (w, o) in by_owner.items()], ids, mods))
    return _PLAN[0]


class _Entry:
    """A module attribute read as its batched wrapper while a vmap runs: a data descriptor
    of the module's class, which outranks the module's dict."""

    __slots__ = ("name", "w")

    def __init__(self, name, w):
        self.name, self.w = name, w

    def __get__(self, mod, cls=None):
        return self if mod is None else self.w

    def __set__(self, mod, value):  # (the module's own entry, read again after the vmap)
        vars(mod)[self.name] = value

    def __delete__(self, mod):
        del vars(mod)[self.name]


def _patch(mod, wrappers, originals):
    """How `install` puts a module's wrappers in place, as (target, on, off): (module, the
    class it takes while a vmap runs, which binds the wrappers' names, its own class) where
    the module has a `__getattr__`; else (its dict, wrappers, originals), for updates.

    Swapping a class is one assignment, where updating the dict was one per name (~270
    names, twice per call: ~13 us). CPython never specialises attribute reads of a module
    with a `__getattr__`; newer versions' specialised reads of other modules read the dict
    directly, past the class (tests/test_vmap.py checks the swap is seen)."""
    if "__getattr__" not in vars(mod):
        return vars(mod), wrappers, originals
    base = type(mod)
    ns = {name: _Entry(name, w) for name, w in wrappers.items()}
    ns["__module__"] = __name__
    return mod, type(f"Batched_{mod.__name__}", (base,), ns), base


_ACTIVE = [0]  # vmap calls running: Tensor's gated methods take their wrappers meanwhile


def _gated(w, f):
    """Tensor's method `f`, or its batched wrapper `w` while a vmap call runs. Installed once
    for good: setting a class attribute at every call would use up the class's version
    tags (CPython 3.13 stops caching lookups on a class changed ~1000 times), slowing every
    later attribute read of every tensor."""

    def g(*args, **kwargs):
        return (w if _ACTIVE[0] else f)(*args, **kwargs)

    g.__name__, g.__qualname__, g.__doc__, g.__wrapped__ = f.__name__, f.__qualname__, f.__doc__, f
    return g


def install():
    """Put the wrappers in place: a class swap per module (`_patch`), as this runs at every
    call (Tensor's methods are gated once for good, and WRAPPER keeps the entries of the
    plan installed last: it is read only while a vmap runs)."""
    plan = _plan()
    if _INSTALLED[0] is not plan:
        _install_first(plan)
    _ACTIVE[0] += 1
    mods = plan[2]
    for target, on, _ in mods:
        if type(target) is dict:
            target.update(on)
        else:
            target.__class__ = on
    _PATCHED.append(mods)


_INSTALLED: list = [None]  # the plan WRAPPER holds, its classes gated


def _install_first(plan):
    """What installing `plan` needs only when it changes: Tensor's gated methods, WRAPPER."""
    entries, ids, _ = plan
    for owner, wrappers, originals in entries:
        if isinstance(owner, type) and owner not in _GATED:
            _GATED.add(owner)
            for n, w in wrappers.items():
                _UNGATED[n] = originals[n]
                setattr(owner, n, _gated(w, originals[n]))
    WRAPPER.clear()
    WRAPPER.update(ids)
    _INSTALLED[0] = plan


def uninstall():
    while _PATCHED:
        for target, _, off in _PATCHED.pop():
            if type(target) is dict:
                target.update(off)
            else:
                target.__class__ = off
        _ACTIVE[0] -= 1


def _batched_method(name):
    def m(self, *args, **kwargs):
        f = _ORIG.get(name)
        op = Op(Tensor, name, f)
        if name in RANDOM:
            return random_call(op, (self, *args), kwargs)
        return dispatch(op, (self, *args), kwargs)

    m.__name__ = name
    return m


_NUMBER = (int, float)


def _fast_binary(name):
    """An arithmetic operator of a batched tensor with a Python number, a plain tensor of
    no higher rank or a tensor batched at the same level and rank: the op on the batch
    value, as the elementwise rule computes it (no aligning needed); else the rule."""
    f, slow = _SYNTAX[name], vars(BatchedTensor)[name]

    def m(self, other):
        t = type(other)
        if t in _NUMBER or (t is Tensor and other._data.ndim <= self._v.dim() - 1):
            return wrap(f(self._v, other), self._lvl)
        if t is BatchedTensor and other._lvl == self._lvl and other._v.dim() == self._v.dim():
            return wrap(f(self._v, other._v), self._lvl)
        return slow(self, other)

    m.__name__ = name
    return m


def _fast_unary(w, f, owner, name):
    """A module's unary elementwise function on one batched tensor: the function on the
    batch value (through the module, so an outer level's value dispatches again)."""

    def u(*args, **kwargs):
        if len(args) == 1 and not kwargs and type(args[0]) is BatchedTensor:
            v = args[0]._v
            g = f if type(v) is not BatchedTensor else getattr(owner, name)
            return _wrap_out(g(v), args[0]._lvl)
        return w(*args, **kwargs)

    return u


def _fast_whole(name):
    """x.sum() (mean, amax, amin) of a batched tensor: over each sample's dims, as
    `dim_rule` computes it."""
    slow = vars(BatchedTensor)[name]

    def m(self, *args, **kwargs):
        v = self._v
        if args or kwargs or v.dim() < 2:
            return slow(self, *args, **kwargs)
        return wrap(getattr(v, name)(tuple(range(1, v.dim()))), self._lvl)

    m.__name__ = name
    return m


_LINEAR: list = []  # nn.functional.linear itself (while vmap runs, its name holds a wrapper)


def _fast_rmatmul(self, other):
    """matrix @ batched vector: one linear layer over the samples, as `matmul` computes it."""
    v = self._v
    if type(other) is Tensor and other._data.ndim == 2 and v.dim() == 2 and type(v) is Tensor:
        if not _LINEAR:
            import nbgrad.nn.functional as F

            _LINEAR.append(next(o["linear"] for owner, _, o in _plan()[0] if owner is F))
        return wrap(_LINEAR[0](v, other), self._lvl)
    return _SLOW_RMATMUL(self, other)


def _setup():
    import types

    for name, f in list(vars(Tensor).items()):
        if name in BatchedTensor.__dict__ or not isinstance(f, types.FunctionType):
            continue
        if name.startswith("_") and name not in _OPERATORS:
            continue
        _ORIG[name] = f
        setattr(BatchedTensor, name, _batched_method(name))
    for name in _OPERATORS:
        if name not in _ORIG and name in vars(Tensor):
            _ORIG[name] = vars(Tensor)[name]
            setattr(BatchedTensor, name, _batched_method(name))


_OPERATORS = {
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__", "__abs__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__getitem__", "__setitem__",
    "__iadd__", "__isub__", "__imul__", "__itruediv__", "__and__", "__or__", "__invert__",
    "__xor__", "__floordiv__", "__rfloordiv__", "__mod__", "__pos__",
}  # fmt: skip
EW += [n for n in _OPERATORS if n not in ("__getitem__", "__setitem__", "__matmul__",
                                           "__rmatmul__")]  # fmt: skip
EW_INPLACE += ["__iadd__", "__isub__", "__imul__", "__itruediv__"]
for _n in EW:
    RULES.setdefault(_n, ew)
for _n in EW_INPLACE:
    RULES[_n] = ew_inplace
_setup()
for _n in ("__add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ __rtruediv__ "
           "__pow__ __rpow__").split():  # fmt: skip
    setattr(BatchedTensor, _n, _fast_binary(_n))
for _n in _WHOLE:
    setattr(BatchedTensor, _n, _fast_whole(_n))
_SLOW_RMATMUL = BatchedTensor.__rmatmul__
BatchedTensor.__rmatmul__ = _fast_rmatmul  # type: ignore[method-assign]
