"""Turn a forward result into a Tensor, recording a tape row when gradients must flow."""

from ..autograd.grad_mode import STATE
from ..tape import MAXD, TAPE, too_many_dims
from ..tensor import Tensor


def needs_record(ins):
    if not STATE.enabled:
        return False
    for t in ins:
        if t._rg:
            return True
    return False


def slot_of(t):
    s = t._slot
    return s if s >= 0 else TAPE.leaf_slot(t)


def emit(op, out, ins, iattrs=(), fattrs=(), saved=None):
    """Wrap `out` (a fresh C-contiguous array) as the result of `op` applied to `ins`.

    `saved` is whatever the VJP reads (kept alive by the row until the graph is freed).
    """
    if not needs_record(ins):
        return Tensor._make(out, -1, False)
    if out.ndim > MAXD:  # before a slot is taken (Tensor._make refuses the rest)
        too_many_dims(out.ndim)
    in_slots = tuple([slot_of(t) for t in ins])
    s = TAPE.new_slot()
    TAPE.record(op.code, _DT[out.dtype.char], (s,), out, in_slots, iattrs, fattrs, saved)
    return Tensor._make(out, s, True)


_DT = {"f": 0, "d": 1}
