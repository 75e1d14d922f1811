"""The language of elementwise scalar rules, which both kernel generators read.

A rule is a Python expression over named operands: a unary rule's forward over `x`, its
VJP over `x`, the output `y` and the cotangent `g`; a binary rule's forward over `a`,
`b` and one VJP per operand (`a`, `b`, `y`, `g`). The table of rules is the ops'
(`ops/elementwise.py`), handed to the generators (`cpu/codegen.py`, `cuda/codegen.py`);
what a kernel saves for its VJP is exactly the names the VJP expressions read.
"""

import re


def uses(expr, name):
    return re.search(rf"\b{name}\b", expr) is not None


def subst(expr, **names):
    """Replace whole-word variable names in a rule expression."""
    for k, v in names.items():
        expr = re.sub(rf"\b{k}\b", v, expr)
    return expr


def unary_saves(vjp):
    """Which of ('x', 'y') a unary op keeps for its VJP expression `vjp`."""
    return tuple(v for v in ("x", "y") if uses(vjp, v))


def binary_saves(da, db, variant):
    """Which of ('a', 'b', 'y') a binary op keeps for its VJPs da, db; in the scalar
    variants (`ts`: tensor, scalar; `st`) the scalar is an attribute, not saved."""
    exprs = {"tt": (da, db), "ts": (da,), "st": (db,)}[variant]
    drop = {"tt": (), "ts": ("b",), "st": ("a",)}[variant]
    return tuple(v for v in ("a", "b", "y") if v not in drop and any(uses(e, v) for e in exprs))


# Scalar functions of the other op families that a backend compiles into kernels of its
# own (the CUDA backend makes device functions of them), by name. Each family provides its
# own when it is imported (`provide`); a backend reads them when it builds its kernels, so
# the rule is stated once, beside its op, and no backend imports the ops.
SCALAR: dict = {}


def provide(**fns):
    SCALAR.update(fns)
