"""The backward's check of saved values: a row whose saved value's storage was written in
place after the row was recorded raises PyTorch's error (the counters and stamps it reads
are kept by `nbgrad/_versions.py`, which every in-place write bumps)."""

import re

import numpy as np

from .._dtype import _FROM_NP, scalar_name
from .._optable import OPS
from .._versions import LAST, _counter
from ..tape import (
    R_CODE,
    R_IPOS,
    R_NIN,
    R_NOUT,
    R_SAVED,
    R_SEQ,
    S_ADDR,
    S_PROD,
    S_RG,
    SAVES_LIVE,
    TAPE,
)
from .node import Node

__all__ = ["check"]


def _saved_arrays(sv):
    if isinstance(sv, tuple):
        return [a for a in sv if type(a) is np.ndarray or type(a).__name__ == "CudaArray"]
    ts = getattr(sv, "saved_arrays", None)  # a custom Function's ctx
    return ts() if ts is not None else []


def check(rows):
    """Raise PyTorch's error if a saved value of one of `rows` (any order; reported as a
    sweep meets them, newest first) was written in place after the row was recorded."""
    last = LAST[0]
    if last < 0 or not len(rows):  # nothing written in place since the process started
        return
    T = TAPE
    rows = np.asarray(rows, np.int64)
    if last <= int(T.R[rows, R_SEQ].min()):
        return
    R = T.R
    for k in sorted(rows[(R[rows, R_SEQ] < last) & (R[rows, R_SAVED] == SAVES_LIVE)].tolist(),
                    reverse=True):  # fmt: skip
        seq = int(R[k, R_SEQ])
        for a in _saved_arrays(T.saved[k]):
            c = _counter(a, False)
            if c is None or not c.writes or c.writes[-1] <= seq or not _needed(k, a):
                continue
            if c.replaced is not None and c.replaced > seq:
                raise RuntimeError(_REPLACED_MESSAGE)
            expected = c.version - sum(1 for w in c.writes if w > seq)
            raise RuntimeError(_message(k, a, c.version, max(expected, 0)))


_REPLACED_MESSAGE = (
    "a tensor's value saved for backward was replaced through `.data =` after it was "
    "recorded: PyTorch's backward would read the new value, nbgrad refuses (docs/api.md). "
    "Assign .data before the forward pass, or write the new value in place under no_grad()"
)


# Products: an operand's value is read only for the other operands' gradients (PyTorch
# saves `w` of `x @ w` only when x requires grad, so an optimizer step on w between two
# backward passes is no error there).
_PRODUCTS = {"mul", "matmul_dot", "matmul_mv", "matmul_mm", "matmul_bmm", "matmul_batched",
             "einsum", "einsum_bmm", "linear", "linear_nobias"}  # fmt: skip


def _needed(k, a):
    """Whether row k's VJP reads saved array `a`, given which of its inputs take grads."""
    T = TAPE
    if OPS[int(T.R[k, R_CODE])].name not in _PRODUCTS or type(a) is not np.ndarray:
        return True
    p, no, ni = (int(v) for v in T.R[k, [R_IPOS, R_NOUT, R_NIN]])
    ins = T.I[p + no : p + no + ni].tolist()
    addr = a.__array_interface__["data"][0]
    mine = [j for j, s in enumerate(ins) if T.S[s, S_ADDR] == addr]
    if not mine:
        return True
    if len(mine) > 1:  # x * x: read for its own gradient
        return bool(T.S[ins[mine[0]], S_RG])
    return any(T.S[s, S_RG] for j, s in enumerate(ins) if j not in mine)


def _message(k, a, now, expected):
    T = TAPE
    dt = _FROM_NP.get(np.dtype(a.dtype))
    cuda = type(a) is not np.ndarray
    what = (
        f"[nbgrad.{'cuda.' if cuda else ''}{scalar_name(dt) if dt else ''}Tensor {list(a.shape)}]"
    )
    # the value's producer, found by address among the row's slots
    p, no, ni = (int(v) for v in T.R[k, [R_IPOS, R_NOUT, R_NIN]])
    addr = a.address if cuda else a.__array_interface__["data"][0]
    for s in T.I[p : p + no + ni].tolist():
        prod = int(T.S[s, S_PROD])
        if addr and T.S[s, S_ADDR] == addr and prod >= 0:
            q = int(T.R[prod, R_IPOS])
            j = T.I[q : q + int(T.R[prod, R_NOUT])].tolist().index(s)
            name = re.sub(r"Backward\d*$", "", Node.of_slot(s).name())
            what += f", which is output {j} of {name},"
            break
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {what} is at version {now}; expected version {expected} "
        "instead. Hint: enable anomaly detection to find the operation that failed to compute "
        "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )
