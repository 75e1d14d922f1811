"""PyTorch-shaped docstrings of the public API, kept apart from the code they document.

Each module here holds `DOCS`, a dict from a name (relative to the module it documents:
`"sin"` for `nbgrad.sin`, `"Linear"` for `nbgrad.nn.Linear`) to its docstring; `attach`
sets them on the objects when that module is imported. Keeping them here keeps the op and
layer modules about computing, as PyTorch keeps its own in `torch/_torch_docs.py`. The
examples use `import nbgrad as torch`, show PyTorch's output, and are run by
tests/test_docstrings.py (against nbgrad, and against PyTorch where it is installed).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any


def attach(target: Any, docs_module: str) -> None:
    """Sets the docstrings in `nbgrad._docs.<docs_module>.DOCS` on the attributes of `target`
    (a class, or a module or its name: modules call `attach(__name__, ...)` last)."""
    docs = importlib.import_module(f"{__name__}.{docs_module}").DOCS
    if isinstance(target, str):
        target = sys.modules[target]
    for name, doc in docs.items():
        obj = target
        for part in name.split("."):
            holder, obj = obj, getattr(obj, part)
        if isinstance(holder, type) and isinstance(holder.__dict__.get(part), property):
            obj = holder.__dict__[part]  # a property's docstring lives on the property object
        obj.__doc__ = doc
        if "<locals>" in getattr(obj, "__qualname__", "") and not isinstance(target, type):
            # a function made by a factory (the elementwise fast paths): name it where it is
            # public, for reprs, pickling by reference and the API reference's resolver
            obj.__module__, obj.__qualname__ = target.__name__, part
