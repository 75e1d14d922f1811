"""Anomaly mode: `detect_anomaly()` / `set_detect_anomaly(mode)`.

While it is on, each recorded row keeps the traceback of the forward call that made it
(`rowwatch`: noted when the op returns), and a backward runs row by row (`stepped.py`):
a row whose gradients hold a NaN raises PyTorch's "Function 'XBackward0' returned nan
values in its 0th output.", and an error in a row's backward first warns with that row's
forward traceback. While it is off, nothing is recorded and a backward checks one flag."""

import traceback
import warnings

import numpy as np

from ..tape import R_SEQ, TAPE
from . import hooks, rowwatch

_STATE = {"on": False, "check_nan": True}
TRACES: dict = {}  # row stamp -> formatted forward traceback (lines)
_prune_at = [4096]


def is_anomaly_enabled():
    """Whether anomaly mode is on."""
    return _STATE["on"]


def is_anomaly_check_nan_enabled():
    """Whether anomaly mode, when on, checks backward results for NaN."""
    return _STATE["check_nan"]


def set_anomaly_enabled(mode, check_nan=True):
    """Turn anomaly mode on or off (PyTorch's `torch.set_anomaly_enabled`)."""
    _STATE["on"], _STATE["check_nan"] = bool(mode), bool(check_nan)
    hooks.ANOMALY[0] = _STATE["on"]
    if _STATE["on"]:
        if not rowwatch.active("anomaly"):
            rowwatch.subscribe("anomaly", _note)
    else:
        rowwatch.unsubscribe("anomaly")
        TRACES.clear()


class detect_anomaly:  # noqa: N801 - PyTorch's name
    """Context manager that turns anomaly detection on for the autograd engine.

    Forward ops record where they were called; in backward, a function that returns NaN
    raises a RuntimeError naming it, and an error in a backward function warns with the
    traceback of the forward call that created it.

    Args:
        check_nan (bool): raise when a backward function returns NaN (default True).

    Example::

        >>> with torch.autograd.detect_anomaly():
        ...     x = torch.tensor([0.0], requires_grad=True)
        ...     y = x.sqrt() * 0
        ...     try:
        ...         y.backward()
        ...     except RuntimeError as e:
        ...         print(e)
        Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:  # noqa: N801 - PyTorch's name
    """Turn anomaly detection on or off (now); as a context manager, restore the previous
    setting on exit.

    Args:
        mode (bool): on (True) or off (False).
        check_nan (bool): raise when a backward function returns NaN (default True).

    Example::

        >>> with torch.autograd.set_detect_anomaly(True):
        ...     torch.is_anomaly_enabled()
        True
        >>> torch.is_anomaly_enabled()
        False
    """

    def __init__(self, mode, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


def _note(rows, frame):
    if len(TRACES) >= _prune_at[0]:
        live = set(TAPE.R[: TAPE.n, R_SEQ].tolist())
        for q in [q for q in TRACES if q not in live]:
            del TRACES[q]
        _prune_at[0] = max(4096, 2 * len(TRACES))
    stack = traceback.format_stack(frame) if frame is not None else []
    for k in rows:
        TRACES[int(TAPE.R[k, R_SEQ])] = stack


def warn_forward_trace(k, name):
    """Warn with the forward traceback of row k (PyTorch's message)."""
    stack = TRACES.get(int(TAPE.R[k, R_SEQ]))
    if stack is None:
        msg = (
            f"Error detected in {name}. No forward pass information available. Enable "
            "detect anomaly during forward pass for more information."
        )
    else:
        msg = (
            f"Error detected in {name}. Traceback of forward call that caused the error:\n"
            + "".join(stack)
        )
    warnings.warn(msg, stacklevel=2)


def check_nan(k, name, grads):
    """Raise PyTorch's error if one of row k's results `grads` (per input) holds NaN
    (the caller warns with the forward traceback)."""
    if not _STATE["check_nan"]:
        return
    for i, g in enumerate(grads):
        if g is not None and _has_nan(g):
            raise RuntimeError(f"Function '{name}' returned nan values in its {i}th output.")


def _has_nan(g):
    d = g._data if type(g._data) is np.ndarray else g.cpu()._data
    return bool(np.isnan(d).any())
