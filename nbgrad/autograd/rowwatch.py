"""Calling Python as rows are recorded, for the modes that need it (anomaly mode's forward
tracebacks, saved-tensor hooks' pack).

Ops append their rows inside compiled code and must stay free of per-op checks, so these
modes do not hook the ops: while one is on, a profile function (`sys.setprofile`, this
thread only) looks at the tape's count of rows ever recorded each time a function of
nbgrad returns to code outside it, and hands the rows recorded since to the subscribers:
an op's rows are complete (their saved values set) then, before the caller's next line
runs. With no subscriber the profile function is removed: zero cost."""

import atexit
import os
import sys

from ..tape import D_SEQ, R_SEQ, TAPE

_SUBS: dict = {}  # name -> fn(rows, frame): rows recorded since the last look, oldest first
_SEEN = [0]  # rows ever recorded when last looked
_EXIT: list = []
_PREV = [None]  # the profile function found when ours was installed (put back after)
_NBGRAD = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def subscribe(name, fn):
    """Call `fn(rows, frame)` for the rows recorded from now on (`frame`: the innermost
    frame outside nbgrad when they were noticed)."""
    flush()
    if not _SUBS:
        _SEEN[0] = int(TAPE.desc[D_SEQ])
        _PREV[0] = sys.getprofile()
        sys.setprofile(_profile)
        if not _EXIT:  # off before the interpreter tears the modules down
            _EXIT.append(atexit.register(lambda: _SUBS.clear() or sys.setprofile(None)))
    _SUBS[name] = fn


def unsubscribe(name):
    flush()
    if _SUBS.pop(name, None) is not None and not _SUBS:
        sys.setprofile(_PREV[0])
        _PREV[0] = None


def active(name):
    return name in _SUBS


def flush(frame=None):
    """Hand the rows recorded since the last look to the subscribers now."""
    if _SUBS and int(TAPE.desc[D_SEQ]) != _SEEN[0] and _SEEN[0] >= 0:
        _new_rows(frame if frame is not None else sys._getframe(1))


def _profile(frame, event, arg):
    # an nbgrad function returning to code outside nbgrad: the op the user called is done
    # (Numba reports its compiled calls to profilers too: those frames are not nbgrad's)
    if (
        event == "return"
        and TAPE.desc[D_SEQ] != _SEEN[0]
        and _SEEN[0] >= 0
        and frame.f_code.co_filename.startswith(_NBGRAD)
        and frame.f_back is not None
        and not frame.f_back.f_code.co_filename.startswith(_NBGRAD)
    ):
        _new_rows(frame.f_back)


def _new_rows(frame):
    T = TAPE
    seq = int(T.desc[D_SEQ])
    first, _SEEN[0] = _SEEN[0], seq
    k = T.n
    while k > 0 and T.R[k - 1, R_SEQ] >= first:  # rows are kept in recording order
        k -= 1
    rows = list(range(k, T.n))
    if not rows:
        return
    while frame is not None and frame.f_code.co_filename.startswith(_NBGRAD):
        frame = frame.f_back  # the user's frame that called the op
    _SEEN[0] = -1  # no looking while the subscribers run (a pack hook may record ops)
    try:
        for fn in list(_SUBS.values()):
            fn(rows, frame)
    finally:
        _SEEN[0] = int(T.desc[D_SEQ])  # rows the hooks recorded are not theirs to see
