"""Forward-mode AD with PyTorch's API: dual_level, make_dual, unpack_dual.

A dual tensor is recorded on the tape like any tensor that takes gradients, with its
tangent kept beside its slot. Tangents are propagated lazily: `unpack_dual(y)` walks the
rows between the duals and y in recording (topological) order and applies each row's JVP:

* elementwise rows use the VJP rule with `g` replaced by the operand's tangent (the same
  scalar rule the kernels come from; an elementwise VJP is linear in g and diagonal);
* every other row uses the transpose of its differentiable VJP: the VJP `u -> J^T u` is
  linear in u, so the VJP of it (w.r.t. u) at cotangent t is `J t` — one recorded VJP and
  one reverse sweep, the "double-vjp" construction, valid for every op in the table.

Tangents may carry one leading batch dim (how `jacobian(strategy="forward-mode")` and
`nbgrad.func.jacfwd` push a whole basis through in one walk).

Differences from PyTorch: a dual made from a tensor that does not require grad reports
`requires_grad=True` (it is on the tape so that its ops are recorded), and ops run under
`no_grad()` inside a dual level record nothing, so they carry no tangent.
"""

from __future__ import annotations

import contextlib
from collections import namedtuple

import numpy as np

from .._optable import OPS
from ..tape import R_CODE, TAPE
from ..tensor import Tensor
from .grad_mode import enable_grad, no_grad

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


class _Level:
    def __init__(self, idx):
        self.idx = idx
        self.tangents = {}  # slot -> tangent Tensor
        self.duals = []  # the dual tensors (their handles keep the slots alive)
        self.nb = None  # leading batch dims of the tangents (set by the first make_dual)


_LEVELS: list[_Level] = []


def enter_dual_level() -> int:
    if _LEVELS:
        raise NotImplementedError(
            "Nested forward mode AD is not supported at the moment (nbgrad keeps one dual "
            "level at a time)"
        )
    _LEVELS.append(_Level(len(_LEVELS)))
    return _LEVELS[-1].idx


def exit_dual_level(*, level: int | None = None) -> None:
    if not _LEVELS:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one created")
    _LEVELS.pop()


@contextlib.contextmanager
def dual_level():
    """Context manager in which dual tensors carry their tangents (as PyTorch's)."""
    enter_dual_level()
    try:
        yield
    finally:
        exit_dual_level()


def _current(level):
    if not _LEVELS:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure "
            "to enter_dual_level() first."
        )
    return _LEVELS[-1]


def make_dual(
    tensor: Tensor, tangent: Tensor, *, level: int | None = None, _batched: bool = False
) -> Tensor:
    """A tensor with `tensor`'s value whose forward gradient is `tangent`."""
    lv = _current(level)
    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        raise TypeError("make_dual(): expected Tensor arguments")
    nb = 1 if _batched else 0
    if tangent.is_cuda != tensor.is_cuda:
        raise RuntimeError(
            "Trying to set a forward gradient on a different device than the original "
            f"Tensor: the Tensor is on {tensor.device} while the forward gradient is on "
            f"{tangent.device}."
        )
    if tuple(tangent.shape[nb:]) != tuple(tensor.shape):
        from .._size import Size

        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(Size(tangent.shape))}."
        )
    if not tensor.is_floating_point():
        raise ValueError(
            "Expected both tensor and its forward grad to be floating point or complex"
        )
    if lv.nb is None:
        lv.nb = nb
    elif lv.nb != nb:
        raise RuntimeError("all tangents of a dual level must be batched alike")
    if tensor.requires_grad:
        with enable_grad():
            dual = tensor.view_as(tensor)  # differentiable w.r.t. the primal, as in PyTorch
    else:
        dual = tensor.detach().requires_grad_(True)
    from ..ops.recording import slot_of

    s = slot_of(dual)
    lv.tangents[s] = tangent.to(tensor.dtype) if tangent.dtype != tensor.dtype else tangent
    lv.duals.append(dual)
    return dual


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent) of a tensor; tangent None if it does not depend on a dual."""
    if not _LEVELS or not isinstance(tensor, Tensor) or tensor._slot < 0:
        return UnpackedDualTensor(tensor, None)
    lv = _LEVELS[-1]
    t = _tangent(lv, tensor._slot)
    primal = tensor.detach()
    return UnpackedDualTensor(primal, t)


def _tangent(lv, slot):
    if slot in lv.tangents:
        return lv.tangents[slot]
    from .graph import _ins, ancestor_rows

    rows = ancestor_rows([slot], stop=lv.tangents)  # between the duals and `slot`
    with TAPE.pin():  # JVPs recording rows must not renumber the rows being walked
        for k in sorted(rows):
            outs, ins = _ins(k)
            tin = [lv.tangents.get(s) for s in ins]
            if all(t is None for t in tin):
                continue
            for s, t in zip(outs, _jvp(k, ins, outs, tin, lv.nb)):
                if t is not None:
                    lv.tangents[s] = t
    return lv.tangents.get(slot)


def _jvp(k, ins, outs, tin, nb):
    """Output tangents of row k from its input tangents (None: zero)."""
    from .derivatives import Row
    from .derivatives.elementwise import RULES
    from .derivatives.elementwise import jvp as ew_jvp
    from .graph import _ensure_loaded, vjp_of

    _ensure_loaded()
    name = OPS[int(TAPE.R[k, R_CODE])].name
    bshape = tuple(next(t for t in tin if t is not None).shape[:nb])
    row = Row(k, name, nb, bshape, outs, ins)
    if name in RULES:
        with no_grad(), np.errstate(all="ignore"):  # rules on arrays: IEEE inf/nan
            t = ew_jvp(row, tin)
            shape = bshape + row.shape(outs[0])
            return [t if tuple(t.shape) == shape else t.expand(shape)]
    if name == "custom":
        raise NotImplementedError(
            "forward AD through a custom autograd.Function needs its jvp(); nbgrad's custom "
            "Functions define backward only"
        )
    # the transpose of the (linear in u) differentiable VJP: d<J^T u, t>/du = J t
    plain = Row(k, name, 0, ())
    us = [plain.zeros(s).requires_grad_(True) for s in outs]
    with enable_grad():
        gins = vjp_of(name)(plain, *us)
    from .engine import grad

    pairs = [(g, t) for g, t in zip(gins, tin) if g is not None and t is not None and g._rg]
    if not pairs:
        return [None] * len(outs)
    res = grad(
        [g for g, _ in pairs],
        us,
        [t for _, t in pairs],
        allow_unused=True,
        is_grads_batched=bool(nb),
    )
    return list(res)


__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]

from .. import _docs  # noqa: E402

_docs.attach(__name__, "forward_ad")
