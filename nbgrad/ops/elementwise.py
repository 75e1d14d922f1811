"""Elementwise ops, each stated once as scalar rules.

A unary rule gives the forward `f(x)` and the VJP in terms of the input `x`, the output
`y` and the cotangent `g`. A binary rule gives `f(a, b)` and one VJP per operand (`a`,
`b`, `y`, `g`). The generator (`backends/cpu/codegen.py`, `backends/cuda/codegen.py`)
turns each rule into forward and VJP kernels; an op saves exactly the names its VJP
expressions read, so `exp` keeps its output and `sin` its input.

Binary ops also get scalar variants (`x * 2.0`, `2.0 - x`) in which the Python number is
a row attr, not a tensor: `_ts` (tensor, scalar) and `_st` (scalar, tensor).
"""

import re

# name: (node name, forward, vjp)
UNARY = {
    "neg": ("NegBackward0", "-x", "-g"),
    "exp": ("ExpBackward0", "exp(x)", "g * y"),
    "log": ("LogBackward0", "log(x)", "g / x"),
    "sin": ("SinBackward0", "sin(x)", "g * cos(x)"),
    "cos": ("CosBackward0", "cos(x)", "-g * sin(x)"),
    "tanh": ("TanhBackward0", "tanh(x)", "g * (1 - y * y)"),
    "sigmoid": ("SigmoidBackward0", "sigmoid(x)", "g * (y * (1 - y))"),
    "relu": ("ReluBackward0", "x if not x <= 0 else 0.0", "g if y > 0 else 0.0"),
    "sqrt": ("SqrtBackward0", "sqrt(x)", "g / (2 * y)"),
    "abs": ("AbsBackward0", "fabs(x)", "g * sign(x)"),
}

# name: (node names for tensor-tensor, tensor-scalar, scalar-tensor; forward; vjp a; vjp b)
BINARY = {
    "add": (("AddBackward0",) * 3, "a + b", "g", "g"),
    "sub": (("SubBackward0", "SubBackward0", "RsubBackward1"), "a - b", "g", "-g"),
    "mul": (("MulBackward0",) * 3, "a * b", "g * b", "g * a"),
    "div": (("DivBackward0", "DivBackward0", "MulBackward0"), "a / b", "g / b", "-g * a / (b * b)"),
    "pow": (
        ("PowBackward1", "PowBackward0", "PowBackward2"),
        "pow_(a, b)",
        "0.0 if b == 0 else g * b * pow_(a, b - 1)",
        "0.0 if (a == 0 and b >= 0) else g * y * log(a)",
    ),
}


def uses(expr, name):
    return re.search(rf"\b{name}\b", expr) is not None


def subst(expr, **names):
    """Replace whole-word variable names in a rule expression."""
    for k, v in names.items():
        expr = re.sub(rf"\b{k}\b", v, expr)
    return expr


def unary_saves(name):
    """Which of ('x', 'y') the op keeps for its VJP."""
    vjp = UNARY[name][2]
    return tuple(v for v in ("x", "y") if uses(vjp, v))


def binary_saves(name, variant):
    """Which of ('a', 'b', 'y') the op keeps for its VJP; scalars are attrs, not saved."""
    _, _, da, db = BINARY[name]
    exprs = {"tt": (da, db), "ts": (da,), "st": (db,)}[variant]
    drop = {"tt": (), "ts": ("b",), "st": ("a",)}[variant]
    return tuple(v for v in ("a", "b", "y") if v not in drop and any(uses(e, v) for e in exprs))


def _register():
    from .registry import register

    for name, (node, _, _) in UNARY.items():
        register(name, node, f"@gen:vjp_{name}", rule="unary")
    for name, (nodes, _, _, _) in BINARY.items():
        for variant, node in zip(("", "_ts", "_st"), nodes):
            register(name + variant, node, f"@gen:vjp_{name}{variant}", rule="binary" + variant)


_register()
