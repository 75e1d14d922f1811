"""Custom autograd Functions called inside a vmap: their `vmap` staticmethod, or the rule
`generate_vmap_rule = True` asks for (forward, setup_context and backward vmapped).

Either way the Function's row is recorded on the batch values (one row for the batch),
so gradients taken inside or outside the vmap go through the Function's own backward.
"""

import collections

from ..autograd import function as _autograd_function
from ..autograd.function import Function
from ..tensor import Tensor
from .batching import LEVELS, BatchedTensor, _at, wrap

VmapInfo = collections.namedtuple("VmapInfo", ["batch_size", "randomness"])


def batched_apply(fn_cls, args, kwargs):
    """`fn_cls.apply(*args, **kwargs)` where some argument is batched; NotImplemented
    where none is."""
    if not LEVELS:
        return NotImplemented
    lvl = max((a._lvl for a in args if type(a) is BatchedTensor), default=-1)
    if lvl < 0:
        return NotImplemented
    name = fn_cls.__name__
    if fn_cls.setup_context is Function.setup_context:
        raise RuntimeError(
            "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            "jacrev, ...), it must override the setup_context staticmethod. For more details, "
            "please see https://pytorch.org/docs/main/notes/extending.func.html"
        )
    if kwargs:
        import inspect

        bound = inspect.signature(fn_cls.forward).bind(*args, **kwargs)
        bound.apply_defaults()
        args = bound.args
    dims = tuple(0 if _at(a, lvl) is not None else None for a in args)
    values = tuple(a if d is None else a._v for a, d in zip(args, dims))
    own_rule = fn_cls.vmap is not Function.vmap
    if own_rule and getattr(fn_cls, "generate_vmap_rule", False):
        raise RuntimeError(
            f"You tried to vmap over {name}, but it has both generate_vmap_rule=True and an "
            "overriden vmap staticmethod. Please set generate_vmap_rule=False or delete the "
            "overriden vmap staticmethod to avoid ambiguity. For more details, please see "
            "https://pytorch.org/docs/main/notes/extending.func.html"
        )
    if own_rule:
        B, randomness = LEVELS[lvl]
        res = fn_cls.vmap(VmapInfo(B, randomness), dims, *values)
        if not (isinstance(res, tuple) and len(res) == 2):
            raise RuntimeError(
                f"Expected the vmap staticmethod to have two returns, an output and out_dims "
                f"with pytree structure compatible with the output. Got {type(res)}"
            )
        out, out_dims = res
    elif getattr(fn_cls, "generate_vmap_rule", False):
        out = _generated(fn_cls).apply(dims, *values)
        out_dims = 0
    else:
        raise RuntimeError(
            f"You tried to vmap over {name}, but it does not have vmap support. Please "
            "override and implement the vmap staticmethod or set generate_vmap_rule=True. For "
            "more details, please see https://pytorch.org/docs/main/notes/extending.func.html"
        )
    if isinstance(out, tuple):
        ods = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(out)
        return tuple(_batched(o, d, lvl) for o, d in zip(out, ods))
    return _batched(out, out_dims, lvl)


def _batched(o, d, lvl):
    if d is None or not isinstance(o, Tensor):
        return o
    return wrap(o if d == 0 else o.movedim(d, 0), lvl)


class _Ctx:
    """The ctx a vmapped setup_context and backward see: what setup_context saves and
    sets, with the saved tensors given back per sample."""

    def __init__(self, needs_input_grad):
        self.needs_input_grad = needs_input_grad
        self.saved_tensors = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors

    def mark_non_differentiable(self, *outputs):
        self.non_differentiable = outputs

    def mark_dirty(self, *tensors):
        raise RuntimeError("mark_dirty is not supported with generate_vmap_rule=True")

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


_GENERATED: dict = {}  # Function class -> its generated batched Function


def _generated(fn_cls):
    """A Function over batch values whose forward, setup_context and backward are
    fn_cls's, vmapped (its first argument: the batch dim of each of fn_cls's)."""
    g = _GENERATED.get(fn_cls)
    if g is not None:
        return g
    from .vmap import vmap

    def forward(ctx, dims, *values):
        out = vmap(fn_cls.forward, in_dims=dims)(*values)
        lvl = max(LEVELS)  # the vmap this Function was called in
        inner = _Ctx(ctx.needs_input_grad[1:])
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        fn_cls.setup_context(
            inner,
            tuple(v if d is None else wrap(v, lvl) for v, d in zip(values, dims)),
            _batched(out, 0, lvl) if single else tuple(_batched(o, 0, lvl) for o in outs),
        )
        saved = inner.saved_tensors
        ctx.saved_dims = tuple(None if _at(t, lvl) is None else 0 for t in saved)
        ctx.save_for_backward(*(t if d is None else t._v for t, d in zip(saved, ctx.saved_dims)))
        ctx.inner, ctx.dims = inner, dims
        nondiff = getattr(inner, "non_differentiable", ())
        if nondiff:
            ids = {id(t._v) if type(t) is BatchedTensor else id(t) for t in nondiff}
            ctx.mark_non_differentiable(*(o for o in outs if id(o) in ids))
        ctx.set_materialize_grads(inner.materialize_grads)
        return out

    def backward(ctx, *grads):
        inner, n = ctx.inner, len(grads)
        missing = []  # positions where fn_cls.backward returned None

        def one(*a):
            inner.saved_tensors = a[n:]
            res = fn_cls.backward(inner, *a[:n])
            res = res if isinstance(res, tuple) else (res,)
            missing[:] = [i for i, r in enumerate(res) if r is None]
            return tuple(r if r is not None else _zero() for r in res)

        saved = ctx.saved_tensors
        gdims = tuple(None if g is None else 0 for g in grads)
        res = vmap(one, in_dims=gdims + ctx.saved_dims)(*grads, *saved)
        out = []
        for i, (r, d) in enumerate(zip(res, ctx.dims)):
            if i in missing:
                out.append(None)
            else:
                out.append(r if d is not None else r.sum(0))  # a shared input: summed
        return (None, *out)

    g = type(
        "Vmapped" + fn_cls.__name__,
        (Function,),
        {"forward": staticmethod(forward), "backward": staticmethod(backward)},
    )
    _GENERATED[fn_cls] = g
    return g


def _zero():
    from .. import zeros

    return zeros(())


_autograd_function.VMAP_APPLY.append(batched_apply)  # Function.apply calls it (see there)
