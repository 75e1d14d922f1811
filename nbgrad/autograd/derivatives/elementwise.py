"""Elementwise VJPs and JVPs from the same scalar rules as the kernels.

A rule's VJP (`"g * cos(x)"`, `"g if y > 0 else 0.0"`) is parsed once and rewritten into
tensor code: conditional expressions become `where`, `and`/`or`/`not` become logical ops,
and the scalar helpers (`cos`, `ncdf`, ...) become nbgrad functions, so the rule evaluates
on Tensors, is recorded, and can be differentiated again. The JVP comes from the same
expressions: an elementwise VJP is linear in `g` and diagonal, so the output tangent is the
sum over operands of the operand's VJP with `g` replaced by that operand's tangent.
"""

import ast
import math

import numpy as np

from ... import functions as F
from ...ops.elementwise import BINARY, UNARY, uses
from ...tensor import Tensor
from . import defvjp


def _lift(name):
    """A scalar helper that takes Tensors or Python numbers."""
    tfn = getattr(F, name)
    mfn = getattr(math, name)
    return lambda v: tfn(v) if isinstance(v, Tensor) else mfn(v)


def _where(c, p, q):
    if _is_bool(c):
        return p if c else q
    return F.where(c, p, q)


def _is_bool(v):
    return isinstance(v, (bool, np.bool_))


def _and(p, q):
    if _is_bool(p) or _is_bool(q):
        c, other = (p, q) if _is_bool(p) else (q, p)
        return other if c else False
    return p & q


def _or(p, q):
    if _is_bool(p) or _is_bool(q):
        c, other = (p, q) if _is_bool(p) else (q, p)
        return True if c else other
    return p | q


def _not(p):
    return ~p if isinstance(p, Tensor) else not p


def _sign(v):
    return F.sign(v) if isinstance(v, Tensor) else float(np.sign(v))


def _sigmoid(v):
    return F.sigmoid(v) if isinstance(v, Tensor) else 1.0 / (1.0 + math.exp(-v))


def _ncdf(v):
    return 0.5 * (1.0 + _lift("erf")(v * 0.7071067811865476))


def _npdf(v):
    return 0.3989422804014327 * _lift("exp")(-0.5 * v * v)


def _gelu_tanh_grad(v):
    k = 0.7978845608028654
    t = _lift("tanh")(k * (v + 0.044715 * v * v * v))
    return 0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * v * v)


NS = {
    **{n: _lift(n) for n in ("cos", "sin", "exp", "log", "sqrt", "cosh", "sinh", "tanh")},
    "fabs": lambda v: F.abs(v) if isinstance(v, Tensor) else abs(v),
    "sign": _sign,
    "sigmoid": _sigmoid,
    "ncdf": _ncdf,
    "npdf": _npdf,
    "gelu_tanh_grad": _gelu_tanh_grad,
    "pow_": lambda a, b: a**b,
    "fdiv": lambda a, b: a / b,
    "_where": _where,
    "_and": _and,
    "_or": _or,
    "_not": _not,
}


class _ToTensorCode(ast.NodeTransformer):
    def visit_IfExp(self, node):  # noqa: N802 - ast's names
        self.generic_visit(node)
        return ast.Call(ast.Name("_where", ast.Load()), [node.test, node.body, node.orelse], [])

    def visit_BoolOp(self, node):  # noqa: N802
        self.generic_visit(node)
        fn = "_and" if isinstance(node.op, ast.And) else "_or"
        out = node.values[0]
        for v in node.values[1:]:
            out = ast.Call(ast.Name(fn, ast.Load()), [out, v], [])
        return out

    def visit_UnaryOp(self, node):  # noqa: N802
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.Call(ast.Name("_not", ast.Load()), [node.operand], [])
        return node


def compile_rule(expr, names):
    """`expr` (a scalar rule) as a Python function of `names` that works on Tensors."""
    tree = ast.fix_missing_locations(_ToTensorCode().visit(ast.parse(expr, mode="eval")))
    code = compile(tree, f"<rule {expr}>", "eval")
    return lambda **env: eval(code, NS, env)  # noqa: S307 - our own rule strings


def _rules():
    """op name -> [(operand index, names read, compiled VJP)], plus the scalar attr side."""
    out = {}
    for name, (_, _, vjp) in UNARY.items():
        out[name] = ("x", [(0, compile_rule(vjp, ()), vjp)])
    for name, (_, _, da, db) in BINARY.items():
        fa, fb = compile_rule(da, ()), compile_rule(db, ())
        out[name] = ("tt", [(0, fa, da), (1, fb, db)])
        out[name + "_ts"] = ("ts", [(0, fa, da)])
        out[name + "_st"] = ("st", [(0, fb, db)])
    return out


RULES = _rules()


def _env(row, kind, exprs):
    """The rule's variables for this row: saved values as Tensors, scalars as floats."""
    env = {}
    used = lambda v: any(uses(e, v) for e in exprs)  # noqa: E731
    if used("y"):
        env["y"] = row.y()
    if kind == "x":
        if used("x"):
            env["x"] = row.x()
        return env
    c = float(row.fattrs[0]) if kind != "tt" else None
    if used("a"):
        env["a"] = c if kind == "st" else row.x(0)
    if used("b"):
        env["b"] = c if kind == "ts" else row.x(1 if kind == "tt" else 0)
    return env


def _full(v, like):
    """A rule result that did not involve g (a constant) as a tensor of g's shape."""
    if isinstance(v, Tensor) and tuple(v.shape) == tuple(like.shape):
        return v
    return like * 0.0 + v


def vjp(row, g):
    kind, rules = RULES[row.name]
    env = _env(row, kind, [e for _, _, e in rules])
    grads = [None] * len(row.ins)
    for j, fn, _ in rules:
        if not row.wants(j):
            continue
        v = fn(**env, g=g)
        grads[j] = row.sum_to(_full(v, g), row.ins[j])
    return tuple(grads)


def jvp(row, tangents):
    """Output tangent from input tangents (None: zero), by the VJP rules with g := t."""
    kind, rules = RULES[row.name]
    env = _env(row, kind, [e for _, _, e in rules])
    out = None
    nd = len(row.shape(row.outs[0]))
    for j, fn, _ in rules:
        t = tangents[j]
        if t is None:
            continue
        shape = row.shape(row.ins[j])
        if row.nb and len(shape) < nd:  # batch dim first, then align the rest on the right
            t = t.reshape(row.bshape + (1,) * (nd - len(shape)) + shape)
        v = _full(fn(**env, g=t), t)
        out = v if out is None else out + v
    return out


for _name in RULES:
    defvjp(_name)(vjp)
