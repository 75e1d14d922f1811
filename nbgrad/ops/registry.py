"""The op table: one entry per op, holding its code, node name and VJP kernel.

An op's VJP is an @njit function `vjp(T, k, V)` reading row k of the tape `T` (see
`nbgrad.backends.cpu.rowio`); `V` is the dtype view (`v32`/`v64`), so each VJP is written
once and compiled per float dtype. The reverse sweep (`backends/cpu/dispatch.py`) is
compiled once and calls each row's VJP through a pointer in a table indexed by this code,
filled on first use, so registering an op is all it takes to put it in the sweep.
Elementwise ops are registered by `ops/elementwise.py` from scalar rules; their VJPs are
generated (`backends/cpu/codegen.py`).
"""


class OpDef:
    __slots__ = ("name", "code", "node", "vjp", "rule")

    def __init__(self, name, code, node, vjp, rule):
        self.name, self.code, self.node, self.vjp, self.rule = name, code, node, vjp, rule

    def __repr__(self):
        return f"OpDef({self.name!r}, code={self.code})"


OPS = []  # indexed by code
BY_NAME = {}
CUSTOM = "custom"  # rows whose VJP is a Python autograd.Function: the sweep returns to Python


def register(name, node, vjp=None, rule=None):
    """Add an op; `vjp` is "module:function" (its wrapper imports it by name on first use)."""
    if name in BY_NAME:
        raise ValueError(f"op {name!r} registered twice")
    op = OpDef(name, len(OPS), node, vjp, rule)
    OPS.append(op)
    BY_NAME[name] = op
    return op


register(CUSTOM, None)  # code 0
