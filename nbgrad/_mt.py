"""Per-thread state, and when the tape's lock is taken.

Threads share one tape (`tape.py`). Each change of it must be one step for the other
threads, which a lock gives; but on this machine an uncontended `with lock:` costs
150-300 ns, a fifth of a small op. So the lock is *biased* toward the first thread:

- Until a second thread uses nbgrad, the thread that imported it records without the
  lock (`MT.on` is False: one attribute read per op).
- A thread uses nbgrad first by reading its grad mode (`STATE`, a `threading.local`):
  every path that records or differentiates reads it before touching the tape, and a
  `threading.local` calls `__init__` the first time each thread reads it. There the
  second thread turns `MT.on` on for good, then waits until the first thread is not in
  the middle of an unlocked change, i.e. none of its stack frames runs code registered in
  `CRITICAL` (the per-op recording functions). From then on every thread takes the lock.

Passes that are not per op (growing or compacting the tape) take the lock in either
mode; `.backward()`, the most frequent of them, is CRITICAL code instead while one thread
uses nbgrad (the lock cost ~1% of a small graph's backward). A thread must read `STATE`
before it first takes the lock (`register()`), so that it never waits for the first thread
while holding what that thread needs.

`STATE.enabled` is the grad mode, per thread as in PyTorch: a new thread starts with
gradients enabled (the class attribute), whatever mode the thread that started it is in.
"""

import sys
import threading
import time

CRITICAL = set()  # code objects that change the tape without the lock in the first thread


class _Mode:
    def __init__(self):
        # True once two threads have used nbgrad: every change takes the lock. (An
        # instance attribute: read on every op, it costs 4 ns where a class one costs 15.)
        self.on = False


MT = _Mode()
_OWNER = [None]  # the first thread (it records lock-free until MT.on)
_FLIP = threading.Lock()


def _owner_busy():
    frame = sys._current_frames().get(_OWNER[0])
    while frame is not None:
        if frame.f_code in CRITICAL:
            return True
        frame = frame.f_back
    return False


def _seen():
    """A thread's first use of nbgrad (see the module docstring)."""
    ident = threading.get_ident()
    with _FLIP:  # later threads wait here until the first thread is out
        if _OWNER[0] is None:
            _OWNER[0] = ident
            return
        if MT.on or ident == _OWNER[0]:
            return
        MT.on = True
        while _owner_busy():
            time.sleep(1e-4)  # it finishes its current change and takes the lock next


class _ThreadState(threading.local):
    enabled = True  # grad mode (autograd.grad_mode): on in every new thread

    def __init__(self):
        _seen()


STATE = _ThreadState()


def register():
    """Make sure this thread is known (call before taking the tape's lock)."""
    STATE.enabled  # noqa: B018 - the first read in a thread runs _ThreadState.__init__
