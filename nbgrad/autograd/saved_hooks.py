"""Saved-tensor hooks: `saved_tensors_hooks(pack_hook, unpack_hook)` and `save_on_cpu`.

A custom Function's `ctx.save_for_backward` behaves as PyTorch's: each tensor is packed
when saved, the ctx keeps only what `pack_hook` returned, and `ctx.saved_tensors` returns
what `unpack_hook` makes of it, each time it is read.

nbgrad's own rows differ. Their VJPs read saved values by address from inside compiled
code, so a row keeps the arrays it saved; their memory cannot be handed to a hook and
given back elsewhere. So for those rows the hooks are called as PyTorch calls them, but
do not change what backward reads:

- pack: each array a row keeps (as a Tensor sharing its memory, without history) is
  passed to the innermost `pack_hook` right after the op that recorded the row returns
  (`rowwatch`), and the row keeps the result too;
- unpack: a backward calls `unpack_hook` on each of them before its sweep, newest row
  first, once per pass through the row, and checks it gives a Tensor of the saved shape
  and dtype. The VJP still computes from the array the row kept.

The packed values are dropped when a backward frees the rows. Rows on the GPU are not
packed."""

import numpy as np

from .._optable import BY_NAME, CUSTOM
from ..tape import R_CODE, R_SAVED, R_SEQ, SAVES_LIVE, TAPE
from ..tensor import Tensor
from . import rowwatch

_STACK: list = []  # (pack_hook, unpack_hook) of the contexts entered, innermost last
_DISABLED = [None]  # the message of an enclosing disable_saved_tensors_hooks
PACKED: dict = {}  # row stamp -> (unpack_hook, [packed values], [(shape, dtype)])
_CUSTOM_CODE = BY_NAME[CUSTOM].code
_prune_at = [1024]


class saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """Context manager that sets a pair of pack / unpack hooks for saved tensors.

    Inside it, each tensor an operation saves for backward is passed to `pack_hook`, and
    what it returns is kept; backward calls `unpack_hook` on that to get the tensor back.
    nbgrad's own ops keep their saved arrays as well (see docs/guide.md: the hooks are
    called, but backward computes from the kept values); custom Functions keep only the
    packed value.

    Args:
        pack_hook (Callable): `pack_hook(tensor) -> Any`.
        unpack_hook (Callable): `unpack_hook(packed) -> Tensor`.

    Example::

        >>> def pack(t):
        ...     return t.clone()
        >>> def unpack(t):
        ...     return t
        >>> a = torch.ones(3, requires_grad=True)
        >>> with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        ...     y = a.sin()
        >>> y.sum().backward()
        >>> a.grad
        tensor([0.5403, 0.5403, 0.5403])
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _DISABLED[0] is not None:
            raise RuntimeError(_DISABLED[0])
        rowwatch.flush()  # rows recorded before entering are not this context's
        _STACK.append((self.pack_hook, self.unpack_hook))
        if not rowwatch.active("saved"):
            rowwatch.subscribe("saved", _pack_rows)
        return self

    def __exit__(self, *args):
        rowwatch.flush()  # rows recorded up to here are this context's
        _STACK.pop()
        if not _STACK:
            rowwatch.unsubscribe("saved")


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - PyTorch's name
    """Context manager under which tensors saved for backward are kept on the CPU and
    moved back to their device when backward needs them.

    A tensor already on the CPU is kept as it is (PyTorch copies it); in nbgrad this
    applies to custom Functions' saved tensors (see `saved_tensors_hooks`).

    Args:
        pin_memory (bool): accepted for PyTorch's signature (nbgrad has no pinned memory).
        device_type (str): the device type of the tensors to offload (default "cuda").

    Example::

        >>> a = torch.ones(3, requires_grad=True)
        >>> with torch.autograd.graph.save_on_cpu():
        ...     y = a * a
        >>> y.sum().backward()
        >>> a.grad
        tensor([2., 2., 2.])
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return (t.device, t.cpu() if t.is_cuda else t)

        def unpack(packed):
            device, t = packed
            return t.to(device)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """Context manager under which entering `saved_tensors_hooks` raises
    RuntimeError(error_message).

    Args:
        error_message (str): the message of that error.

    Example::

        >>> with torch.autograd.graph.disable_saved_tensors_hooks("not here"):
        ...     try:
        ...         torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
        ...     except RuntimeError as e:
        ...         print(e)
        not here
    """

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if _STACK:
            raise RuntimeError(self.error_message)
        self.prev, _DISABLED[0] = _DISABLED[0], self.error_message

    def __exit__(self, *args):
        _DISABLED[0] = self.prev


def current():
    """The innermost (pack_hook, unpack_hook), or None."""
    return _STACK[-1] if _STACK else None


def _pack_rows(rows, frame):
    """Pack the arrays the new `rows` keep (with the innermost hooks)."""
    pack, unpack = _STACK[-1]
    T = TAPE
    if len(PACKED) >= _prune_at[0]:  # rows collected without a backward
        live = set(T.R[: T.n, R_SEQ].tolist())
        for q in [q for q in PACKED if q not in live]:
            del PACKED[q]
        _prune_at[0] = max(1024, 2 * len(PACKED))
    for k in rows:
        if T.R[k, R_SAVED] != SAVES_LIVE or T.R[k, R_CODE] == _CUSTOM_CODE:
            continue  # (a custom Function's ctx packs in save_for_backward)
        sv = T.saved[k]
        arrays = [a for a in (sv if isinstance(sv, tuple) else (sv,)) if type(a) is np.ndarray]
        if arrays:
            packed = [pack(Tensor._make(a, -1, False)) for a in arrays]
            PACKED[int(T.R[k, R_SEQ])] = (unpack, packed, [(a.shape, a.dtype) for a in arrays])


def unpack_value(unpack, packed):
    """`unpack(packed)`, checked to be a Tensor (PyTorch's message)."""
    t = unpack(packed)
    if not isinstance(t, Tensor):
        raise TypeError(
            "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
            f"type {type(t).__name__}"
        )
    return t


def unpack_rows(rows):
    """Before a sweep over `rows` (newest first): unpack what they packed."""
    T = TAPE
    for k in rows.tolist() if isinstance(rows, np.ndarray) else rows:
        entry = PACKED.get(int(T.R[k, R_SEQ]))
        if entry is None:
            continue
        unpack, packed, meta = entry
        for p, (shape, dt) in zip(packed, meta):
            t = unpack_value(unpack, p)
            if tuple(t.shape) != shape or t._data.dtype != dt:
                raise RuntimeError(
                    f"saved tensor unpack_hook returned a tensor of shape {list(t.shape)} and "
                    f"dtype {t.dtype}, but the value saved had shape {list(shape)} and dtype "
                    f"{dt.name}"
                )


def drop(rows):
    """Forget what the freed `rows` packed."""
    for q in TAPE.R[rows, R_SEQ].tolist():
        PACKED.pop(q, None)
