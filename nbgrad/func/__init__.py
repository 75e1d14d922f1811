"""nbgrad.func: function transforms in the spirit of torch.func / JAX.

    grad(f)(x)            df/dx of a scalar f
    grad_and_value(f)(x)  (df/dx, f(x))
    vjp(f, x)             (f(x), vjp_fn): vjp_fn(v) = v^T J
    jvp(f, (x,), (t,))    (f(x), J t)
    jacrev(f)(x), jacfwd(f)(x), hessian(f)(x)
    linearize(f, x)       (f(x), jvp_fn): jvp_fn(t) = J t
    vmap(f)(xs)           f over a batch, as one batched program (vmap.py, batching.py)
    functional_call(model, params, args)   model(*args) with other parameters
    stack_module_state(models)             their parameters and buffers, stacked

`argnums` (int or tuple) picks the arguments to differentiate; `has_aux=True` lets f
return (output, aux), aux passed through untouched. Transforms nest (grad of grad):
an argument that already takes part in an enclosing transform's graph is differentiated
with create_graph=True, so the outer transform sees the inner one's computation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..autograd import functional as _F
from ..autograd.engine import grad as _grad
from ..autograd.grad_mode import enable_grad
from ..tensor import Tensor
from . import _batched
from . import _function as _function  # (puts vmap's rule for custom Functions in their apply)
from ._batched import traced_leaf
from ._module import functional_call, stack_module_state
from .batching import LEVELS as _VMAP_LEVELS
from .vmap import _flatten, vmap


def _argnums(argnums, n):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(a)}")
        if not -n <= a < n:
            raise RuntimeError(
                f"Got argnums={a}, but only {n} positional inputs. Please pass "
                f"argnums={a} such that {-n} <= argnums < {n}."
            )
    return tuple(a % n for a in nums)


def _prepare(args, nums):
    """Differentiable copies of the chosen args (tensors, or tuples/lists/dicts of them, as
    torch.func takes parameters); whether any is inside an outer graph."""
    from .vmap import _flatten, _unflatten

    args = list(args)
    nested = False
    for a in nums:
        new = []
        for t in _flatten(args[a]):
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"expected the argument at argnums={a} to be a Tensor, got {type(t).__name__}"
                )
            if traced_leaf(t):  # under nbgrad.compile's trace: differentiate t itself
                new.append(t)
            elif t.requires_grad:
                nested = True
                with enable_grad():
                    new.append(t.view_as(t))
            else:
                new.append(t.detach().requires_grad_(True))
        args[a] = _unflatten(args[a], new)
    return args, nested


def _split_aux(out, has_aux):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(
            "grad_and_value(f)(*args): output of function f should be a tuple: (output, aux) "
            "if has_aux is True"
        )
    return out


def grad_and_value(
    func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """A function returning (gradient of func w.r.t. args[argnums], func's value)."""

    def wrapper(*args, **kwargs):
        nums = _argnums(argnums, len(args))
        if _VMAP_LEVELS:  # inside vmap: every sample's gradient by one batched backward
            gs, value, aux = _batched.grad_and_value(func, nums, has_aux, _split_aux, args,
                                                     kwargs)  # fmt: skip
            g = gs[0] if isinstance(argnums, int) else gs
            return (g, (value, aux)) if has_aux else (g, value)
        xs, nested = _prepare(args, nums)
        with enable_grad():
            out, aux = _split_aux(func(*xs, **kwargs), has_aux)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError(
                "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                f"tensor with {out.dim() if isinstance(out, Tensor) else '?'} dims. Maybe you "
                "wanted to use the vjp or jacrev APIs instead?"
            )
        wrt = [t for a in nums for t in _flatten(xs[a])]
        if out.requires_grad:
            gs = _grad(out, wrt, create_graph=nested, allow_unused=True, materialize_grads=True)
        else:
            gs = tuple(_F._zeros_like(x) for x in wrt)
        gs = _batched._regroup([g if nested else g.detach() for g in gs],
                               [(xs[a], len(_flatten(xs[a]))) for a in nums])  # fmt: skip
        g = gs[0] if isinstance(argnums, int) else gs
        value = out if nested else out.detach()
        return (g, (value, aux)) if has_aux else (g, value)

    return wrapper


def grad(
    func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """A function returning the gradient of scalar `func` w.r.t. args[argnums]."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func: Callable[..., Any], *primals: Tensor, has_aux: bool = False) -> tuple[Any, ...]:
    """(func(*primals), vjp_fn[, aux]); vjp_fn(cotangents) -> one gradient per primal."""
    if _VMAP_LEVELS:
        out, fn, aux = _batched.vjp(func, primals, has_aux, _split_aux)
        return (out, fn, aux) if has_aux else (out, fn)
    xs, nested = _prepare(primals, range(len(primals)))
    traced = any(x is p for x, p in zip(xs, primals) if isinstance(p, Tensor))
    flat = [t for x in xs for t in _flatten(x)]
    trees = [(x, len(_flatten(x))) for x in xs]
    with enable_grad():
        out, aux = _split_aux(func(*xs), has_aux)
    outs = out if isinstance(out, tuple) else (out,)

    def vjp_fn(*cts):
        cts = cts[0] if len(cts) == 1 and isinstance(cts[0], tuple) else cts
        if len(cts) != len(outs):
            raise RuntimeError(
                f"Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {len(cts)} tensors, primal output: "
                f"{len(outs)} tensors"
            )
        pairs = [(o, c) for o, c in zip(outs, cts) if o.requires_grad]
        if not pairs:
            return _batched._regroup([_F._zeros_like(x) for x in flat], trees)
        if traced:  # under nbgrad.compile's trace: one scalar loss, as a program takes it
            loss = sum((o * c).sum() for o, c in pairs)
            gs = _grad(loss, flat, retain_graph=True, allow_unused=True, materialize_grads=True)
            return _batched._regroup([g.detach() for g in gs], trees)
        gs = _grad(
            [o for o, _ in pairs],
            flat,
            [c for _, c in pairs],
            retain_graph=True,
            create_graph=nested,
            allow_unused=True,
            materialize_grads=True,
        )
        return _batched._regroup([g if nested else g.detach() for g in gs], trees)

    value = (
        out
        if nested
        else (tuple(o.detach() for o in outs) if isinstance(out, tuple) else out.detach())
    )
    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def jvp(
    func: Callable[..., Any],
    primals: tuple[Tensor, ...],
    tangents: tuple[Tensor, ...],
    *,
    has_aux: bool = False,
) -> tuple[Any, ...]:
    """(func(*primals), J @ tangents) by forward mode."""
    from ..autograd import forward_ad as fwAD

    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be tuples")
    if len(primals) != len(tangents):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python "
            f"structure. For example, if primals is a tuple of 3 tensors, tangents also must "
            f"be. Got primals with structure {len(primals)} and tangents with structure "
            f"{len(tangents)}"
        )
    if _VMAP_LEVELS:
        vals, tans, aux = _batched.jvp(func, primals, tangents, has_aux, _split_aux)
        return (vals, tans, aux) if has_aux else (vals, tans)
    with fwAD.dual_level(), enable_grad():
        duals = [fwAD.make_dual(p.detach(), t) for p, t in zip(primals, tangents)]
        out, aux = _split_aux(func(*duals), has_aux)
        outs = out if isinstance(out, tuple) else (out,)
        res = []
        for o in outs:
            p, t = fwAD.unpack_dual(o)
            res.append((p.detach(), t.detach() if t is not None else _F._zeros_like(o)))
    vals = tuple(p for p, _ in res)
    tans = tuple(t for _, t in res)
    if not isinstance(out, tuple):
        vals, tans = vals[0], tans[0]
    return (vals, tans, aux) if has_aux else (vals, tans)


def linearize(func, *primals):
    """Return (func(*primals), jvp_fn), where jvp_fn(*tangents) computes the
    Jacobian-vector product of func at primals.

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        primals: the point to linearize at.

    jvp_fn runs forward mode from the saved primals on each call (func runs again).

    Example::

        >>> x = torch.randn(3)
        >>> out, jvp_fn = torch.func.linearize(torch.sin, x)
        >>> torch.allclose(jvp_fn(torch.ones(3)), x.cos())
        True
    """
    from .vmap import _spec

    primals = tuple(p.detach() if isinstance(p, Tensor) else p for p in primals)
    out = func(*primals)
    out = tuple(o.detach() for o in out) if isinstance(out, tuple) else out.detach()

    def jvp_fn(*tangents):
        if len(tangents) != len(primals):
            raise RuntimeError(
                f"Expected the tangents {_spec(tangents)} to have the same argspec as the "
                f"primals {_spec(primals)}"
            )
        for i, (p, t) in enumerate(zip(primals, tangents)):
            if tuple(t.shape) != tuple(p.shape):
                raise RuntimeError(
                    f"tangent:{i} with shape {t.shape} in flattened pytree doesn't match the "
                    f"shape {p.shape} of the corresponding primal."
                )
            if t.dtype != p.dtype:
                raise RuntimeError(
                    f"tangent:{i} with dtype {t.dtype} in flattened pytree doesn't match the "
                    f"dtype {p.dtype} of the corresponding primal."
                )
        return jvp(func, primals, tuple(tangents))[1]

    return out, jvp_fn


def _jac(func, argnums, has_aux, strategy):
    def wrapper(*args):
        nums = _argnums(argnums, len(args))
        if _VMAP_LEVELS:  # inside vmap (jacfwd too: the same Jacobian, by reverse mode)
            J, aux = _batched.jacobian(func, nums, has_aux, _split_aux, args)
            J = J[0] if isinstance(argnums, int) else J
            return (J, aux) if has_aux else J
        traced = _batched.traced_jacobian(func, nums, has_aux, _split_aux, args)
        if traced is not None:  # under nbgrad.compile's trace
            J, aux = traced
            J = J[0] if isinstance(argnums, int) else J
            return (J, aux) if has_aux else J
        auxbox = []

        def f(*xs):
            full = list(args)
            for a, x in zip(nums, xs):
                full[a] = x
            out, aux = _split_aux(func(*full), has_aux)
            auxbox.append(aux)
            return out

        wrt = tuple(args[a] for a in nums)
        nested = any(isinstance(x, Tensor) and x.requires_grad for x in wrt)
        if strategy == "forward-mode":
            J = _F.jacobian(f, wrt, vectorize=True, strategy="forward-mode")
        else:
            J = _F.jacobian(f, wrt, create_graph=nested, vectorize=True)
        # jacobian(tuple inputs) nests (outputs) x (inputs); pick per argnums' structure
        if isinstance(argnums, int):
            J = tuple(j[0] for j in J) if _is_nested(J) else J[0]
        return (J, auxbox[-1]) if has_aux else J

    return wrapper


def _is_nested(J):
    return isinstance(J, tuple) and J and isinstance(J[0], tuple)


def jacrev(
    func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, *, has_aux: bool = False
) -> Callable[..., Any]:
    """Jacobian by reverse mode: one batched VJP sweep over the identity basis."""
    return _jac(func, argnums, has_aux, "reverse-mode")


def jacfwd(
    func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """Jacobian by forward mode: one forward walk with the identity basis as tangents."""
    return _jac(func, argnums, has_aux, "forward-mode")


def hessian(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> Callable[..., Any]:
    """The Hessian of a scalar func: jacfwd(jacrev(func)) as in torch.func."""
    return jacfwd(jacrev(func, argnums), argnums)


__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "stack_module_state",
    "vjp",
    "vmap",
]

from .. import _docs  # noqa: E402

_docs.attach(__name__, "func")
