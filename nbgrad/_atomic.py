"""Multi-step updates of the engine's shared state, atomic with respect to Ctrl-C.

Python raises KeyboardInterrupt in the main thread between any two bytecodes. Inside a
step that updates several arrays of the tape (growing or compacting it, laying out and
clearing a backward pass's gradient buffers, importing a generated kernel module), an
interrupt would leave them disagreeing: later passes then write through stale addresses
(segfaults, heap corruption) or find a graph "freed" that never was.

`deferred()` holds SIGINT back for the length of such a step: in the main thread (the
only one Python delivers signals to) it puts a handler that only notes the signal in
place of the current Python-level handler, and on leaving puts the handler back and
calls it with the noted signal, which raises KeyboardInterrupt there, after the state is
whole. `interruptible()` lifts that inside a deferred step around user code (a custom
Function's backward), which may run for long and must stay interruptible; an exception
raised there unwinds through the step's own cleanup, which is deferred again.

SIG_DFL / SIG_IGN handlers are left alone (Python is not in the loop there). Installing a
handler costs ~0.3 us, so this guards the rare and the per-backward steps, not each op.
"""

import _signal
import threading

_SIGINT = _signal.SIGINT
_MAIN = threading.main_thread().ident
_get_ident = threading.get_ident


class _State:
    installed = False  # whether _note is SIGINT's handler now
    prev = None  # the handler it replaced (to put back and to deliver to)
    pending = None  # (signum, frame) of a signal noted meanwhile


_S = _State()


def _note(signum, frame):
    _S.pending = (signum, frame)


def _deliver(handler):
    """Give a noted signal to the handler it was meant for (raises KeyboardInterrupt)."""
    p, _S.pending = _S.pending, None
    if p is not None:
        handler(*p)


class deferred:
    """`with deferred():` -- SIGINT arriving inside is raised when the block is left."""

    __slots__ = ("outer",)

    def __enter__(self):
        self.outer = False  # (False: this block installed nothing)
        if _get_ident() != _MAIN or _S.installed:
            return self
        prev = _signal.getsignal(_SIGINT)
        if callable(prev) and prev is not _note:
            self.outer = (_S.prev,)
            _signal.signal(_SIGINT, _note)
            _S.prev, _S.installed = prev, True
        return self

    def __exit__(self, *exc):
        if self.outer is False:
            return False
        real = _S.prev
        _S.installed = False  # (state first: from the next line on, `real` may raise)
        (_S.prev,) = self.outer
        _signal.signal(_SIGINT, real)
        if _S.pending is not None:
            _deliver(real)
        return False


class interruptible:
    """Inside `deferred()`: run the block with the usual SIGINT handler (user code)."""

    __slots__ = ("live",)

    def __enter__(self):
        self.live = _get_ident() == _MAIN and _S.installed
        if self.live:
            _deliver(_S.prev)  # one noted before: raised here, still deferred for the cleanup
            _S.installed = False
            _signal.signal(_SIGINT, _S.prev)
        return self

    def __exit__(self, *exc):
        if self.live:
            _signal.signal(_SIGINT, _note)
            _S.installed = True
        return False
