"""The transforms (grad, vjp, jvp, jacrev/jacfwd) called inside a vmap, in batched form.

A transform sees one sample, but its inputs hold every sample of the running vmaps. The
classic batched construction computes all the samples' results with one pass: each
differentiated input becomes a leaf holding every sample (an unbatched one is repeated
over the batch, so each sample has a copy of its own), the function runs batched, and
since samples never mix, one backward of the summed outputs (or of the cotangents, the
same for every sample unless batched themselves) gives every sample's gradient in the
leaf's rows. Forward mode carries tangents the same way.
"""

import math
import sys

from ..autograd import functional as _F
from ..autograd.derivatives import per_sample
from ..autograd.engine import grad as _grad
from ..autograd.grad_mode import enable_grad
from ..tensor import Tensor
from .batching import LEVELS, WRAPPER, BatchedTensor, wrap
from .vmap import _flatten, _unflatten


def levels():
    return sorted(LEVELS)


def base_of(x):
    """x's plain tensor and the levels its leading dims belong to (outer first)."""
    lv = []
    while type(x) is BatchedTensor:
        lv.append(x._lvl)
        x = x._v
    return x, lv[::-1]


def to_base(x, lv):
    """x as a plain tensor with one leading dim per level of lv: its own batch where it is
    batched there, else repeated."""
    base, have = base_of(x)
    for i, L in enumerate(lv):
        if L not in have:
            shape = list(base.shape)
            base = base.unsqueeze(i).expand(*shape[:i], LEVELS[L][0], *shape[i:])
    return base


def rewrap(base, lv):
    for L in lv:
        base = wrap(base, L)
    return base


def traced_leaf(t):
    """Whether nbgrad.compile is tracing and t is an input of the traced call (or a
    captured parameter): a transform then differentiates t itself, so the trace sees one
    plain gradient request (nbgrad/_compile/trace.py: func_leaf); t is marked as a
    gradient target."""
    trace = sys.modules.get("nbgrad._compile.trace")
    if trace is None or trace.ACTIVE is None or not trace.func_leaf(t):
        return False
    trace.func_target(t)
    return True


def _traced_leaf_view(t, lv):
    """Under a trace, an input (batched or not) as its batched base, marked as a gradient
    target: the expansion is recorded, so the program differentiates the expanded value."""
    base = base_of(t)[0]
    trace = sys.modules.get("nbgrad._compile.trace")
    if trace is None or trace.ACTIVE is None or not trace.func_leaf(base):
        return None
    b = to_base(t, lv)
    trace.func_target(b)
    trace.func_target(base)  # claimed: a transform inside sees this one's graph
    return b


def _leaves(args, nums):
    """The arguments with args[nums] (tensors, or tuples/lists/dicts of them) replaced by
    batched leaves; the leaves, flat; whether any was in an enclosing graph; the levels;
    and per argnum its structure, to give gradients the arguments' shape."""
    lv = levels()
    xs, leaves, nested, trees = list(args), [], False, []
    for a in nums:
        ts = _flatten(args[a])
        for t in ts:
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"expected the argument at argnums={a} to be a Tensor, got {type(t).__name__}"
                )
        new = []
        for t in ts:
            b = _traced_leaf_view(t, lv)
            if b is not None:
                leaves.append(b)
                new.append(rewrap(b, lv))
                continue
            b = to_base(t, lv)
            if b.requires_grad:  # inside an enclosing transform: keep its graph
                nested = True
                with enable_grad():
                    leaf = b.view_as(b)
            else:
                leaf = b.detach().contiguous().requires_grad_(True)
            leaves.append(leaf)
            new.append(rewrap(leaf, lv))
        xs[a] = _unflatten(args[a], new)
        trees.append((args[a], len(ts)))
    return xs, leaves, nested, lv, trees


def _regroup(gs, trees):
    """Flat gradients back into one structure per argnum."""
    out, k = [], 0
    for tree, n in trees:
        out.append(_unflatten(tree, gs[k : k + n]))
        k += n
    return tuple(out)


def _zeros(x):
    return _F._zeros_like(x)


def _finish(gs, nested, lv):
    return tuple(rewrap(g if nested else g.detach(), lv) for g in gs)


def grad_and_value(func, nums, has_aux, split, args, kwargs):
    func = WRAPPER.get(id(func), func)  # torch.sin itself: its batched entry
    out = _shared_params(func, nums, has_aux, split, args, kwargs)
    if out is not None:
        return out
    xs, leaves, nested, lv, trees = _leaves(args, nums)
    with enable_grad():
        out, aux = split(func(*xs, **kwargs), has_aux)
    if not isinstance(out, Tensor) or out.numel() != 1:
        raise RuntimeError(
            "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
            f"tensor with {out.dim() if isinstance(out, Tensor) else '?'} dims. Maybe you "
            "wanted to use the vjp or jacrev APIs instead?"
        )
    loss = base_of(out)[0].sum()  # samples never mix: one backward gives each its own
    if loss.requires_grad:
        gs = _grad(loss, leaves, create_graph=nested, allow_unused=True, materialize_grads=True)
    else:
        gs = tuple(_zeros(x) for x in leaves)
    gs = _regroup(_finish(gs, nested, lv), trees)
    return gs, (out if nested else out.detach()), aux


def _shared_params(func, nums, has_aux, split, args, kwargs):
    """Per-sample gradients w.r.t. arguments that are not batched (parameters shared by
    the samples) in one vmap: the parameters stay shared leaves and one batched VJP of
    the batched losses, seeded with the identity, gives each sample's gradient (its
    per-sample cotangents stay diagonal: docs/functional.md), without a copy of the
    parameters per sample. None where this does not apply."""
    if len(LEVELS) != 1 or tracing():
        return None
    flat = [_flatten(args[a]) for a in nums]
    if not all(type(t) is Tensor and not t._rg for ts in flat for t in ts):
        return None
    (lvl,) = LEVELS
    xs, leaves, trees = list(args), [], []
    for a, ts in zip(nums, flat):
        new = [t.detach().requires_grad_(True) for t in ts]
        leaves.extend(new)
        xs[a] = _unflatten(args[a], new)
        trees.append((args[a], len(new)))
    with enable_grad():
        out, aux = split(func(*xs, **kwargs), has_aux)
    if type(out) is not BatchedTensor or out._lvl != lvl or out.numel() != 1:
        return None  # (the general path runs the function again, or raises)
    losses = out._v
    losses = losses if losses.dim() == 1 else losses.reshape(-1)
    B = losses.shape[0]
    if losses.requires_grad:
        gs = per_sample.shared_grads(losses, leaves)
        if gs is not None:  # one compiled sweep (None where it does not apply)
            gs = [_per_sample(g, x, B) for g, x in zip(gs, leaves)]
        else:
            seed = per_sample.identity_seed(B, losses.dtype)
            gs = _grad(losses, leaves, seed, allow_unused=True,
                       materialize_grads=True, is_grads_batched=True)  # fmt: skip
    else:
        gs = [_zeros(x).unsqueeze(0).expand(B, *x.shape) for x in leaves]
    gs = _regroup([wrap(g.detach() if g._rg else g, lvl) for g in gs], trees)
    return gs, wrap(out._v.detach(), lvl), aux


def _per_sample(g, x, B):
    """A per-sample gradient array as a Tensor (None: zeros, for a leaf out of the graph)."""
    if g is None:
        return _zeros(x).unsqueeze(0).expand(B, *x.shape)
    return Tensor._make(g, -1, False)


def tracing():
    """Whether nbgrad.compile is tracing (it needs the leaves it can see: _leaves)."""
    trace = sys.modules.get("nbgrad._compile.trace")
    return trace is not None and trace.ACTIVE is not None


def vjp(func, primals, has_aux, split):
    func = WRAPPER.get(id(func), func)  # torch.sin itself: its batched entry
    xs, leaves, nested, lv, trees = _leaves(primals, range(len(primals)))
    with enable_grad():
        out, aux = split(func(*xs), has_aux)
    outs = out if isinstance(out, tuple) else (out,)

    def vjp_fn(*cts):
        cts = cts[0] if len(cts) == 1 and isinstance(cts[0], tuple) else cts
        if len(cts) != len(outs):
            raise RuntimeError(
                f"Expected pytree structure of cotangents to be the same as pytree structure "
                f"of outputs to the function. cotangents: {len(cts)} tensors, primal output: "
                f"{len(outs)} tensors"
            )
        pairs = [(to_base(o, lv), to_base(c, lv)) for o, c in zip(outs, cts)]
        pairs = [(o, c) for o, c in pairs if o.requires_grad]
        if not pairs:
            return _regroup(_finish([_zeros(x) for x in leaves], False, lv), trees)
        gs = _grad([o for o, _ in pairs], leaves, [c for _, c in pairs], retain_graph=True,
                   create_graph=nested, allow_unused=True, materialize_grads=True)  # fmt: skip
        return _regroup(_finish(gs, nested, lv), trees)

    if not nested:
        out = tuple(o.detach() for o in outs) if isinstance(out, tuple) else out.detach()
    return out, vjp_fn, aux


def jvp(func, primals, tangents, has_aux, split):
    func = WRAPPER.get(id(func), func)  # torch.sin itself: its batched entry
    from ..autograd import forward_ad as fwAD

    lv = levels()
    with fwAD.dual_level(), enable_grad():
        duals = [
            rewrap(fwAD.make_dual(to_base(p, lv).detach(), to_base(t, lv)), lv)
            for p, t in zip(primals, tangents)
        ]
        out, aux = split(func(*duals), has_aux)
        outs = out if isinstance(out, tuple) else (out,)
        vals, tans = [], []
        for o in outs:
            p, t = fwAD.unpack_dual(to_base(o, lv))
            vals.append(rewrap(p.detach(), lv))
            tans.append(rewrap(t.detach() if t is not None else _zeros(p), lv))
    if not isinstance(out, tuple):
        return vals[0], tans[0], aux
    return tuple(vals), tuple(tans), aux


def jacobian(func, nums, has_aux, split, args):
    """Each sample's Jacobian of func's output w.r.t. args[nums]: one batched reverse sweep
    over the output's identity basis, the same basis for every sample."""
    func = WRAPPER.get(id(func), func)  # torch.sin itself: its batched entry
    from .. import eye, zeros

    xs, leaves, nested, lv, trees = _leaves(args, nums)
    with enable_grad():
        out, aux = split(func(*xs), has_aux)
    if not isinstance(out, Tensor):
        raise NotImplementedError("jacrev/jacfwd inside vmap: only a single Tensor output")
    ob = to_base(out, lv)
    nb, oshape = len(lv), tuple(out.shape)
    m = math.prod(oshape)
    bshape = tuple(ob.shape[:nb])
    basis = eye(m, dtype=ob.dtype).reshape(m, *(1,) * nb, *oshape)
    basis = basis.expand(m, *bshape, *oshape).contiguous()
    if ob.requires_grad:
        gs = _grad(ob, leaves, basis, retain_graph=nested, create_graph=nested,
                   allow_unused=True, materialize_grads=True, is_grads_batched=True)  # fmt: skip
    else:
        gs = tuple(zeros((m, *x.shape), dtype=x.dtype) for x in leaves)
    res = []
    for g, x in zip(gs, leaves):
        ishape = tuple(x.shape[nb:])
        g = g.movedim(0, nb).reshape(*bshape, *oshape, *ishape)
        res.append(g)
    return _regroup(_finish(res, nested, lv), trees), aux


def traced_jacobian(func, nums, has_aux, split, args):
    """Under nbgrad.compile's trace, with inputs of the traced call to differentiate: the
    Jacobian as vmap(grad) over the output's identity basis (row j: the gradient of
    <func(x), e_j> at a copy of x), which the trace sees as one gradient request. None
    where this does not apply (the transform then runs as usual)."""
    trace = sys.modules.get("nbgrad._compile.trace")
    if trace is None or trace.ACTIVE is None or LEVELS:
        return None
    if not all(trace.func_leaf(args[a]) for a in nums):
        return None
    from .. import eye
    from . import grad
    from .vmap import vmap

    out, aux = split(func(*args), has_aux)
    if not isinstance(out, Tensor):
        return None
    oshape = tuple(out.shape)
    basis = eye(max(out.numel(), 1), dtype=out.dtype)[: out.numel()].reshape(-1, *oshape)
    trace.func_const(basis)

    def row(*a):
        return (split(func(*a[:-1]), has_aux)[0] * a[-1]).sum()

    dims = (None,) * len(args) + (0,)
    gs = vmap(grad(row, argnums=tuple(nums)), in_dims=dims)(*args, basis)
    J = tuple(g.reshape(*oshape, *args[a].shape) for g, a in zip(gs, nums))
    return J, aux
