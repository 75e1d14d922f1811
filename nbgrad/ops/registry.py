"""The op table: one entry per op, holding its code, node name and VJP kernel.

An op's VJP is an @njit function `vjp(T, k, V)` reading row k of the tape `T` (see
`nbgrad.backends.cpu.rowio`); `V` is the dtype view (`v32`/`v64`), so each VJP is written
once and compiled per float dtype. The reverse sweep is generated from this table
(`backends/cpu/codegen.py`), so registering an op is all it takes to put it in the sweep.
Elementwise ops are registered by `ops/elementwise.py` from scalar rules; their VJPs are
generated too.
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
    """Add an op; `vjp` is "module:function" (the generated sweep imports it by name)."""
    if name in BY_NAME:
        raise ValueError(f"op {name!r} registered twice")
    op = OpDef(name, len(OPS), node, vjp, rule)
    OPS.append(op)
    BY_NAME[name] = op
    return op


register(CUSTOM, None)  # code 0
