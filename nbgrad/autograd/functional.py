"""nbgrad.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp (PyTorch's API).

Jacobians are built from batched sweeps: with `vectorize=True` the whole identity basis of
cotangents goes through the graph in ONE batched reverse sweep per output
(`grad(..., is_grads_batched=True)`), or the basis of tangents through one forward-mode walk
(`strategy="forward-mode"`). `vectorize=False` takes one VJP per output element, as
PyTorch does. Hessians are Jacobians of the gradient, which is recorded with
`create_graph=True` (reverse-over-reverse, or forward-over-reverse).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import forward_ad as fwAD
from .derivatives import on_device
from .engine import grad
from .grad_mode import enable_grad


def _as_tuple(x, arg_name, fn_name):
    is_tuple = isinstance(x, tuple)
    xs = x if is_tuple else (x,)
    for i, t in enumerate(xs):
        if not isinstance(t, Tensor):
            if is_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                    f"Tensors but the value at index {i} has type {type(t).__name__}."
                )
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the given {arg_name} has type {type(t).__name__}."
            )
    return is_tuple, xs


def _grad_preprocess(inputs, create_graph):
    """Fresh leaves for the inputs (kept in the caller's graph when create_graph)."""
    if create_graph:
        return tuple(
            t.view_as(t) if t.requires_grad else t.detach().requires_grad_(True) for t in inputs
        )
    return tuple(t.detach().requires_grad_(True) for t in inputs)


def _grad_postprocess(xs, create_graph):
    return tuple(x if x is None or create_graph else x.detach() for x in xs)


def _like(arr, t):
    """Host array `arr` as a constant Tensor on t's device."""
    return on_device(arr, t.is_cuda)


def _zeros_like(t, lead=()):
    return _like(np.zeros(lead + tuple(t.shape), t._data.dtype), t)


def _fill_unused(res, like, strict, what, lead=()):
    out = []
    for i, (r, x) in enumerate(zip(res, like)):
        if r is None:
            if strict:
                raise RuntimeError(
                    f"The output of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."
                    if what == "input"
                    else f"The {what} is independent of input {i}. This is not allowed in "
                    "strict mode."
                )
            r = _zeros_like(x, lead)
        out.append(r)
    return tuple(out)


def _validate_v(v, other, is_other_tuple, fn_name):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, el_o) in enumerate(zip(v, other)):
        if tuple(el_v.shape) != tuple(el_o.shape):
            prepend = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {el_o.shape} but got {el_v.shape}."
            )


def _default_v(ins):
    """v = 1 when the single input has a single element (PyTorch's rule and message)."""
    if len(ins) != 1 or ins[0].numel() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element."
        )
    return (_like(np.ones(ins[0].shape, ins[0]._data.dtype), ins[0]),)


def _check_outputs_rg(outs, strict, fn_name):
    if strict:
        for i, o in enumerate(outs):
            if not o.requires_grad:
                raise RuntimeError(
                    f"Output {i} of the user-provided function does not require gradients. "
                    "The outputs must be computed in a differentiable manner from the input "
                    "when running in strict mode."
                )


def _run_fn(func, inputs, fn_name):
    with enable_grad():
        out = func(*inputs)
    return _as_tuple(out, "outputs of the user-provided function", fn_name)


def _unwrap(xs, is_tuple):
    return xs if is_tuple else xs[0]


# -- vjp / jvp ------------------------------------------------------------------------
def vjp(
    func: Callable[..., Any],
    inputs: Tensor | tuple[Tensor, ...],
    v: Tensor | tuple[Tensor, ...] | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), v^T J): the vector-Jacobian product at `inputs`."""
    in_tuple, ins = _as_tuple(inputs, "inputs", "vjp")
    ins = _grad_preprocess(ins, create_graph)
    out_tuple, outs = _run_fn(func, ins, "vjp")
    _check_outputs_rg(outs, strict, "vjp")
    if v is not None:
        _, vs = _as_tuple(v, "v", "vjp")
        _validate_v(vs, outs, out_tuple, "vjp")
    else:
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
        vs = None
    diff = [(o, vs[i] if vs is not None else None) for i, o in enumerate(outs) if o.requires_grad]
    if diff:
        res = grad(
            [o for o, _ in diff],
            ins,
            [g for _, g in diff] if vs is not None else None,
            create_graph=create_graph,
            allow_unused=True,
        )
    else:
        res = (None,) * len(ins)
    res = _fill_unused(res, ins, strict, "input")
    outs = _grad_postprocess(outs, create_graph)
    return _unwrap(outs, out_tuple), _unwrap(_grad_postprocess(res, create_graph), in_tuple)


def jvp(
    func: Callable[..., Any],
    inputs: Tensor | tuple[Tensor, ...],
    v: Tensor | tuple[Tensor, ...] | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), J v), by the transpose of the VJP (the double-backward construction)."""
    in_tuple, ins = _as_tuple(inputs, "inputs", "jvp")
    ins = _grad_preprocess(ins, create_graph)
    if v is not None:
        _, vs = _as_tuple(v, "v", "jvp")
        _validate_v(vs, ins, in_tuple, "jvp")
    else:
        vs = _default_v(ins)
    out_tuple, outs = _run_fn(func, ins, "jvp")
    _check_outputs_rg(outs, strict, "jvp")
    us = [_zeros_like(o).requires_grad_(True) for o in outs]
    diff = [(o, u) for o, u in zip(outs, us) if o.requires_grad]
    res = [None] * len(outs)
    if diff:
        gins = grad(
            [o for o, _ in diff], ins, [u for _, u in diff], create_graph=True, allow_unused=True
        )
        pairs = [(g, w) for g, w in zip(gins, vs) if g is not None and g.requires_grad]
        if pairs:
            jv = grad(
                [g for g, _ in pairs],
                us,
                [w for _, w in pairs],
                create_graph=create_graph,
                allow_unused=True,
            )
            res = list(jv)
    res = _fill_unused(res, outs, strict, "output")
    return (
        _unwrap(_grad_postprocess(outs, create_graph), out_tuple),
        _unwrap(_grad_postprocess(res, create_graph), out_tuple),
    )


# -- jacobian -------------------------------------------------------------------------
def _eye_basis(t):
    n = t.numel()
    return _like(np.eye(n, dtype=t._data.dtype).reshape((n,) + tuple(t.shape)), t)


def jacobian(
    func: Callable[..., Any],
    inputs: Tensor | tuple[Tensor, ...],
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of func at inputs: out.shape + in.shape per (output, input) pair."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise RuntimeError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian does not support create_graph=True with "
                "strategy='forward-mode'"
            )
        if not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is only "
                "implemented for `vectorize=True`."
            )
        return _jacfwd(func, inputs, strict)
    in_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
    ins = _grad_preprocess(ins, create_graph)
    out_tuple, outs = _run_fn(func, ins, "jacobian")
    _check_outputs_rg(outs, strict, "jacobian")
    blocks = []
    for i, o in enumerate(outs):
        n = o.numel()
        if not o.requires_grad:
            rows = (None,) * len(ins)
        elif vectorize:
            rows = grad(
                o,
                ins,
                _eye_basis(o),
                retain_graph=True,
                create_graph=create_graph,
                allow_unused=True,
                is_grads_batched=True,
            )
        else:
            per = []
            for e in range(n):
                v = np.zeros(n, o._data.dtype)
                v[e] = 1.0
                seed = _like(v.reshape(o._data.shape), o)
                per.append(
                    grad(
                        o,
                        ins,
                        seed,
                        retain_graph=True,
                        create_graph=create_graph,
                        allow_unused=True,
                    )
                )
            rows = tuple(
                None
                if all(p[j] is None for p in per)
                else _stack([p[j] if p[j] is not None else _zeros_like(x) for p in per])
                for j, x in enumerate(ins)
            )
        if strict:
            for j, r in enumerate(rows):
                if r is None and o.requires_grad:
                    raise RuntimeError(
                        f"Output {i} of the user-provided function is independent of input {j}. "
                        "This is not allowed in strict mode."
                    )
        out_blocks = []
        for r, x in zip(rows, ins):
            if r is None:
                r = _zeros_like(x, (n,))
            r = r.reshape(tuple(o.shape) + tuple(x.shape))
            out_blocks.append(r if create_graph else r.detach())
        blocks.append(tuple(out_blocks))
    return _nest(blocks, in_tuple, out_tuple)


def _stack(ts):
    from ..ops.joins import stack

    return stack(ts)


def _nest(blocks, in_tuple, out_tuple):
    if not out_tuple:
        return blocks[0] if in_tuple else blocks[0][0]
    return tuple(b if in_tuple else b[0] for b in blocks)


def _jacfwd(func, inputs, strict):
    """Forward mode: the identity basis of each input as a batch of tangents, one walk."""
    in_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
    ins = tuple(t.detach() for t in ins)
    cols = []  # per input: per output block (out.shape + in.shape)
    outs = None
    out_tuple = False
    for j, x in enumerate(ins):
        with fwAD.dual_level(), enable_grad():
            duals = [
                fwAD.make_dual(t, _eye_basis(t), _batched=True) if i == j else t
                for i, t in enumerate(ins)
            ]
            out_tuple, outs = _as_tuple(
                func(*duals), "outputs of the user-provided function", "jacobian"
            )
            per = []
            for o in outs:
                t = fwAD.unpack_dual(o).tangent
                n = x.numel()
                if t is None:
                    if strict:
                        raise RuntimeError(
                            f"Output of the user-provided function is independent of input {j}."
                            " This is not allowed in strict mode."
                        )
                    t = _zeros_like(o, (n,))
                # tangents are (in numel, *out.shape): move the input axis last
                t2 = t.detach().reshape(n, o.numel()).t().reshape(tuple(o.shape) + tuple(x.shape))
                per.append(t2)
            cols.append(per)
    blocks = [tuple(cols[j][i] for j in range(len(ins))) for i in range(len(outs))]
    return _nest(blocks, in_tuple, out_tuple)


# -- hessian and Hessian-vector products ----------------------------------------------
def _scalar_check(out, fn_name):
    if out.numel() != 1:
        raise RuntimeError(
            "The function given to hessian should return a single Tensor"
            if fn_name == "hessian"
            else f"The Tensor returned by the function given to {fn_name} should contain a "
            "single element"
        )


def hessian(
    func: Callable[..., Any],
    inputs: Tensor | tuple[Tensor, ...],
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar function: the Jacobian of its gradient."""
    in_tuple, ins = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("reverse-mode", "forward-mode"):
        raise RuntimeError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def gradient(*xs):
        out = func(*xs)
        if not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        _scalar_check(out, "hessian")
        if not out.requires_grad:
            if strict:
                raise RuntimeError(
                    "The output of the user-provided function does not require gradients."
                )
            return tuple(_zeros_like(x) for x in xs)
        gs = grad(
            out if out.dim() == 0 else out.reshape(()), xs, create_graph=True, allow_unused=True
        )
        return tuple(g if g is not None else _zeros_like(x) for g, x in zip(gs, xs))

    res = jacobian(
        gradient,
        ins,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    if not in_tuple:
        return res[0][0] if isinstance(res[0], tuple) else res[0]
    return res


def _hv(func, inputs, v, create_graph, strict, fn_name):
    in_tuple, ins = _as_tuple(inputs, "inputs", fn_name)
    ins = _grad_preprocess(ins, create_graph)
    if v is not None:
        _, vs = _as_tuple(v, "v", fn_name)
        _validate_v(vs, ins, in_tuple, fn_name)
    else:
        vs = _default_v(ins)
    with enable_grad():
        out = func(*ins)
    out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn_name)
    if out_tuple or outs[0].numel() != 1:
        raise RuntimeError(
            f"The function given to {fn_name} should return a single Tensor"
            if out_tuple
            else f"The Tensor returned by the function given to {fn_name} should contain a "
            "single element"
        )
    o = outs[0]
    if not o.requires_grad:
        if strict:
            raise RuntimeError(
                "The output of the user-provided function does not require gradients."
            )
        res = tuple(_zeros_like(x) for x in ins)
    else:
        gs = grad(o if o.dim() == 0 else o.reshape(()), ins, create_graph=True, allow_unused=True)
        pairs = [(g, w) for g, w in zip(gs, vs) if g is not None and g.requires_grad]
        if pairs:
            res = grad(
                [g for g, _ in pairs],
                ins,
                [w for _, w in pairs],
                create_graph=create_graph,
                allow_unused=True,
            )
        else:
            res = (None,) * len(ins)
        res = _fill_unused(res, ins, strict, "hessian-vector product")
    return o if create_graph else o.detach(), _unwrap(
        _grad_postprocess(res, create_graph), in_tuple
    )


def vhp(
    func: Callable[..., Any],
    inputs: Tensor | tuple[Tensor, ...],
    v: Tensor | tuple[Tensor, ...] | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), v^T H) for a scalar func."""
    return _hv(func, inputs, v, create_graph, strict, "vhp")


def hvp(
    func: Callable[..., Any],
    inputs: Tensor | tuple[Tensor, ...],
    v: Tensor | tuple[Tensor, ...] | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), H v) for a scalar func (H is symmetric, so this is v^T H too)."""
    return _hv(func, inputs, v, create_graph, strict, "hvp")


__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

from .. import _docs  # noqa: E402

_docs.attach(__name__, "autograd_functional")
