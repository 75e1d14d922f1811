"""Tensor printing that matches PyTorch's ``repr(tensor)`` character for character.

The rules follow ``torch/_tensor_str.py`` (torch 2.x) for dense CPU tensors:

* one formatter is built over the whole tensor (or over its edge items when the
  tensor is summarised) and decides a common element width;
* floating tensors use "int mode" (``1.``) when every non-zero finite value is
  integral, scientific notation when the non-zero finite magnitudes span more than
  three decades, exceed ``1e8`` or go below ``1e-4`` (unless forced by
  ``set_printoptions(sci_mode=...)``), and fixed-point with ``precision`` decimals
  otherwise;
* tensors with more than ``threshold`` elements are summarised with ``...`` keeping
  ``edgeitems`` entries at both ends of every dimension;
* rows are wrapped at ``linewidth``; trailing ``dtype=``/``size=``/caller suffixes
  go on a new line when they would not fit.  Suffixes are measured as PyTorch spells
  them (``dtype=torch.float64``, one character shorter than ``dtype=nbgrad.float64``),
  so the output equals PyTorch's repr with ``torch.`` replaced by ``nbgrad.``.

Everything is computed with NumPy and Python's own float formatting (which is what
PyTorch uses too), so the output does not depend on torch being installed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

__all__ = [
    "format_tensor",
    "get_printoptions",
    "printoptions",
    "set_printoptions",
]

_PREFIX = "tensor("
# dtypes PyTorch never names in a non-empty tensor's repr (besides the default dtype)
_ALWAYS_HIDDEN = ("int64", "bool")


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrintOptions()

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    sci_mode: bool | None = None,
    *,
    profile: str | None = None,
) -> None:
    """Set the printing options, as ``torch.set_printoptions`` does.

    Options left as ``None`` keep their value, except ``sci_mode``, which (as in
    PyTorch) is always reset: ``None`` means "choose automatically".  ``profile``
    ("default", "short" or "full") is applied first, then the explicit options.
    """
    if profile is not None:
        for name, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, name, value)
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as keyword arguments for :func:`set_printoptions`."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Temporarily change the printing options (same arguments as set_printoptions)."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


class _ElementFormatter:
    """Decides how every element of one tensor is written, and the common width."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode: Any = False
        self.max_width = 1
        self.precision = PRINT_OPTS.precision
        flat = values.reshape(-1)

        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return

        useful = flat[np.isfinite(flat) & (flat != 0)]
        if useful.size == 0:
            return  # zeros, nan and inf only: int mode, width 1

        magnitudes = np.abs(useful).astype(np.float64)
        smallest = magnitudes.min()
        largest = magnitudes.max()
        self.int_mode = bool(np.all(useful == np.ceil(useful)))
        if PRINT_OPTS.sci_mode is None:
            with np.errstate(over="ignore"):
                spread = largest / smallest
            self.sci_mode = bool(spread > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        p = self.precision
        items = useful.tolist()
        if self.sci_mode:
            width = max(len(f"{v:.{p}e}") for v in items)
        elif self.int_mode:
            width = max(len(f"{v:.0f}") for v in items) + 1  # room for the trailing "."
        else:
            width = max(len(f"{v:.{p}f}") for v in items)
        self.max_width = max(self.max_width, width)

    def width(self) -> int:
        return self.max_width

    def format(self, value: Any) -> str:
        if self.floating:
            p = self.precision
            if self.sci_mode:
                text = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if math.isfinite(value):
                    text += "."
            else:
                text = f"{value:.{p}f}"
        else:
            text = f"{value}"
        return " " * (self.max_width - len(text)) + text


def _edge_values(a: np.ndarray) -> np.ndarray:
    """The elements a summarised print shows (what decides the formatter)."""
    e = PRINT_OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        if a.shape[0] > 2 * e:
            # NB: with e == 0, a[-0:] is the whole vector, exactly as in PyTorch
            return np.concatenate((a[:e], a[-e:]))
        return a
    if not e:
        return a[(slice(0, 0),) * a.ndim]
    n = a.shape[0]
    rows = list(range(e)) + list(range(n - e, n)) if n > 2 * e else range(n)
    return np.stack([_edge_values(a[i]) for i in rows])


def _render_vector(a: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormatter) -> str:
    opts = PRINT_OPTS
    e = opts.edgeitems
    element_length = fmt.width() + 2  # the element plus ", "
    per_line = max(1, math.floor((opts.linewidth - indent) / element_length))

    if summarize and not e:
        items = ["..."]
    elif summarize and a.shape[0] > 2 * e:
        items = [fmt.format(v) for v in a[:e].tolist()]
        items.append(" ...")
        items += [fmt.format(v) for v in a[-e:].tolist()]
    else:
        items = [fmt.format(v) for v in a.tolist()]

    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _render(a: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormatter) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _render_vector(a, indent, summarize, fmt)

    e = PRINT_OPTS.edgeitems
    n = a.shape[0]
    if summarize and n > 2 * e:
        parts = [_render(a[i], indent + 1, summarize, fmt) for i in range(e)]
        parts.append("...")
        parts += [_render(a[i], indent + 1, summarize, fmt) for i in range(n - e, n)]
    else:
        parts = [_render(a[i], indent + 1, summarize, fmt) for i in range(n)]
    separator = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _body(a: np.ndarray, indent: int) -> str:
    """The bracketed contents of a non-empty tensor."""
    summarize = a.size > PRINT_OPTS.threshold
    fmt = _ElementFormatter(_edge_values(a) if summarize else a)
    return _render(a, indent, summarize, fmt)


def _add_suffixes(text: str, suffixes: Sequence[str], indent: int) -> str:
    pieces = [text]
    # PyTorch's (slightly generous) measure of the last line: its length plus 2
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        # Measure the suffix as PyTorch spells it ("torch." is one character shorter than
        # "nbgrad."), so that lines break exactly where they break in PyTorch's repr.
        size = len(suffix.replace("nbgrad.", "torch."))
        if last_line_len + size + 2 > PRINT_OPTS.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            last_line_len = indent + size
        else:
            pieces.append(", " + suffix)
            last_line_len += size + 2
    pieces.append(")")
    return "".join(pieces)


def format_tensor(
    data: np.ndarray,
    *,
    dtype_name: str,
    default_dtype_name: str = "float32",
    suffixes: Sequence[str] = (),
    device: str | None = None,
) -> str:
    """``repr`` of a tensor holding ``data``, written exactly as PyTorch writes it.

    ``dtype_name`` is the tensor's dtype name ("float32", "int64", ...); it is shown as
    ``dtype=nbgrad.<name>`` where PyTorch shows ``dtype=torch.<name>``.  ``suffixes``
    are already formatted extras (``"requires_grad=True"``, ``"grad_fn=<...>"``) that
    follow the dtype, wrapped onto a new line when PyTorch would wrap them.
    """
    a = np.asarray(data)
    if a.dtype.kind == "c":
        raise NotImplementedError("complex tensors are not supported")
    indent = len(_PREFIX)
    extras: list[str] = [f"device='{device}'"] if device else []  # first, as PyTorch
    shape_str = "size=" + str(tuple(int(s) for s in a.shape))
    dtype_str = "dtype=nbgrad." + dtype_name

    if a.size == 0:
        if a.ndim != 1:
            extras.append(shape_str)
        # nothing shows the element type of an empty tensor, so only the default is hidden
        if dtype_name != default_dtype_name:
            extras.append(dtype_str)
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            extras.append(shape_str)
        if dtype_name != default_dtype_name and dtype_name not in _ALWAYS_HIDDEN:
            extras.append(dtype_str)
        body = _body(a, indent)

    extras.extend(suffixes)
    return _add_suffixes(_PREFIX + body, extras, indent)
