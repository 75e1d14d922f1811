"""Say once on stderr when nbgrad has been compiling kernels for a while.

A fresh cache makes the first gradient wait while Numba compiles; without a word that looks
like a hang. Time spent compiling is summed over the process: Numba's "numba:compile" event
brackets every real compile of an nbgrad function (loads from the on-disk cache fire no
event, so warm processes never enter here), and `codegen.load_module` brackets the
generated modules (whose `cfunc`s compile without that event). Once the sum passes
`AFTER` seconds the notice is printed, by a timer while a compile is still running, so a
single long compile is announced as it happens.

Silenced by NBGRAD_QUIET=1 or `nbgrad.utils.set_compile_notice(False)`.
NBGRAD_COMPILE_NOTICE_AFTER sets the threshold in seconds (2 by default).
"""

import atexit
import os
import sys
import threading
import time
from contextlib import contextmanager

from numba.core import event

STARTED = time.perf_counter()  # nbgrad's import compiles too: warmup times itself from here
AFTER = float(os.environ.get("NBGRAD_COMPILE_NOTICE_AFTER", "2"))
# off under `python -m nbgrad.warmup`, the notice's own advice, from the package's import on
_ENABLED = [
    os.environ.get("NBGRAD_QUIET", "") in ("", "0")
    and "nbgrad.warmup" not in getattr(sys, "orig_argv", ())
]

_lock = threading.Lock()
_state = {"depth": 0, "t0": 0.0, "total": 0.0, "timer": None, "said": False, "atexit": False}


def set_compile_notice(enabled):
    """Turn the one-time notice that nbgrad is compiling kernels on or off.

    The notice is printed on stderr once per process when compiling has taken more than
    about 2 seconds; it says where the compiled kernels are cached and how to compile them
    ahead of time (``python -m nbgrad.warmup``). ``NBGRAD_QUIET=1`` also turns it off.

    Args:
        enabled (bool): whether the notice may be printed.

    Example::

        >>> nbgrad.utils.set_compile_notice(False)
    """
    _ENABLED[0] = bool(enabled)


# the kernel cache's directory (`_cache.py`, which imports this module, puts it here)
CACHE_DIR: list = [None]


def _record_path():
    # the last process that compiled for long leaves its total here, for the next estimate
    return CACHE_DIR[0].parent / "last-compile-seconds"


def message():
    try:
        last = float(_record_path().read_text())
        est = f"about {last:.0f} s on this machine; "
    except (OSError, ValueError):
        est = ""
    return (
        f"nbgrad: compiling kernels for first use (cached afterwards in {CACHE_DIR[0]}; {est}"
        "`python -m nbgrad.warmup` compiles them ahead of time; set NBGRAD_QUIET=1 to silence)"
    )


def _say():
    with _lock:
        if _state["said"] or not _ENABLED[0]:
            return
        _state["said"] = True
    print(message(), file=sys.stderr, flush=True)


def _record():
    if _state["total"] >= AFTER:
        try:
            _record_path().write_text(f"{_state['total']:.1f}\n")
        except OSError:
            pass


def enter(timed=True):
    """Start (or nest in) a compile. `timed` starts the timer that prints the notice while
    the compile runs; without it the time is only summed, at the cost of a clock read."""
    with _lock:
        st = _state
        if st["depth"] == 0:
            st["t0"] = time.perf_counter()
        st["depth"] += 1
        if timed and st["timer"] is None and not st["said"] and _ENABLED[0]:
            left = AFTER - st["total"] - (time.perf_counter() - st["t0"])
            st["timer"] = threading.Timer(max(left, 0.0), _say)
            st["timer"].daemon = True
            st["timer"].start()


def leave():
    with _lock:
        st = _state
        st["depth"] -= 1
        if st["depth"]:
            return
        st["total"] += time.perf_counter() - st["t0"]
        if st["timer"] is not None:
            st["timer"].cancel()
            st["timer"] = None
        long = st["total"] >= AFTER
        if long and not st["atexit"]:
            st["atexit"] = True
            atexit.register(_record)
    if long:
        _say()  # compiles too short for the timer that added up past the threshold


@contextmanager
def compiling():
    """Bracket nbgrad's own compile steps (module builds) outside Numba's event."""
    enter(timed=False)
    try:
        yield
    finally:
        leave()


def _ours(ev):
    fn = getattr(ev.data.get("dispatcher") if ev.data else None, "py_func", None)
    return (getattr(fn, "__module__", None) or "").startswith("nbgrad")


class _Listener(event.Listener):
    def on_start(self, ev):
        if _ours(ev):
            enter()

    def on_end(self, ev):
        if _ours(ev):
            leave()


event.register("numba:compile", _Listener())
