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
from ...ops.elementwise import BINARY, UNARY, binary_saves, unary_saves
from ...tensor import Tensor
from ..function import Function
from ..grad_mode import STATE
from . import defvjp, handle


def _special():
    """scipy.special, imported on first use: it costs ~70 ms, and `import nbgrad` loads
    this module (the autograd docs reach it) though few programs need these rules."""
    from scipy import special

    return special


def _lift(name):
    """A scalar helper that takes Tensors, NumPy arrays or Python numbers."""
    tfn = getattr(F, name)
    mfn = getattr(math, name)

    def fn(v):
        if isinstance(v, Tensor):
            return tfn(v)
        if isinstance(v, np.ndarray):
            return getattr(_special() if name == "erf" else np, name)(v)
        return mfn(v)

    return fn


def _where(c, p, q):
    if _is_bool(c):
        return p if c else q
    return np.where(c, p, q) if isinstance(c, np.ndarray) else F.where(c, p, q)


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
    return not p if _is_bool(p) else ~p


def _bc(v, g):
    """v expanded to g's shape when it broadcasts to it (the rule's saved values have the
    operand's shape, g may have more, e.g. batch dims): an expanded operand takes the
    same-shape kernels, much faster than the strided broadcasting ones."""
    if isinstance(v, Tensor) and isinstance(g, Tensor):
        vs, gs = v._data.shape, g._data.shape
        if vs != gs and len(vs) <= len(gs):
            if all(m == 1 or m == n for m, n in zip(reversed(vs), reversed(gs))):
                return v.expand(gs)
    return v


def _sign(v):
    if isinstance(v, Tensor):
        return F.sign(v)
    return np.sign(v) if isinstance(v, np.ndarray) else float(np.sign(v))


def _sigmoid(v):
    if isinstance(v, Tensor):
        return F.sigmoid(v)
    return 1.0 / (1.0 + np.exp(-v)) if isinstance(v, np.ndarray) else 1.0 / (1.0 + math.exp(-v))


def _ncdf(v):
    return 0.5 * (1.0 + _lift("erf")(v * 0.7071067811865476))


def _npdf(v):
    return 0.3989422804014327 * _lift("exp")(-0.5 * v * v)


def _gelu_tanh_grad(v):
    k = 0.7978845608028654
    t = _lift("tanh")(k * (v + 0.044715 * v * v * v))
    return 0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * v * v)


def _digamma(v):
    if isinstance(v, Tensor):
        return F.digamma(v)
    return _special().digamma(v)


class _Trigamma(Function):
    """polygamma(1, x) recorded as the value of digamma's derivative, when that derivative
    is itself recorded (create_graph): differentiating it further is refused."""

    @staticmethod
    def forward(ctx, x):
        a = x._data.host() if x.is_cuda else x._data
        v = _special().polygamma(1, a).astype(a.dtype)
        out = Tensor._make(np.ascontiguousarray(v), -1, False)
        return out.to(x.device) if x.is_cuda else out

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError(
            "the derivative of digamma is not differentiable in nbgrad (it would need "
            "polygamma(2, x)): the third derivative of lgamma is not supported"
        )


def _trigamma(v):
    if isinstance(v, Tensor):
        return _Trigamma.apply(v)
    return _special().polygamma(1, v)


NS = {
    **{n: _lift(n) for n in ("cos", "sin", "exp", "log", "sqrt", "cosh", "sinh", "tanh")},
    "fabs": lambda v: F.abs(v) if isinstance(v, Tensor) else abs(v),
    "sign": _sign,
    "sigmoid": _sigmoid,
    "ncdf": _ncdf,
    "npdf": _npdf,
    "gelu_tanh_grad": _gelu_tanh_grad,
    "digamma": _digamma,
    "trigamma": _trigamma,
    "pow_": lambda a, b: a if isinstance(b, float) and b == 1.0 else a**b,  # x**2's VJP: 2 x
    "fdiv": lambda a, b: a / b,
    "_where": _where,
    "_and": _and,
    "_or": _or,
    "_not": _not,
    "_bc": _bc,
}


def _has_g(node):
    return any(isinstance(n, ast.Name) and n.id == "g" for n in ast.walk(node))


class _ToTensorCode(ast.NodeTransformer):
    def __init__(self, bc):
        self.bc = bc  # wrap g's co-operands in `_bc` (Tensors only: NumPy broadcasts alone)

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

    def visit_BinOp(self, node):  # noqa: N802
        """`g op e` (e free of g): e goes through `_bc`, so the op runs at g's shape."""
        self.generic_visit(node)
        lg, rg = _has_g(node.left), _has_g(node.right)
        if self.bc and lg != rg:
            side = "right" if lg else "left"
            e = getattr(node, side)
            if not isinstance(e, ast.Constant):
                setattr(
                    node,
                    side,
                    ast.Call(ast.Name("_bc", ast.Load()), [e, ast.Name("g", ast.Load())], []),
                )
        return node

    def visit_UnaryOp(self, node):  # noqa: N802
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.Call(ast.Name("_not", ast.Load()), [node.operand], [])
        return node


def compile_rule(expr, names, tensors=True):
    """`expr` (a scalar rule) as a Python function of (g, x, y, a, b) that works on
    Tensors (or, with `tensors=False`, on NumPy arrays only)."""
    body = _ToTensorCode(tensors).visit(ast.parse(expr, mode="eval")).body
    args = [ast.arg(v) for v in ("g", "x", "y", "a", "b")]
    none = [ast.Constant(None)] * (len(args) - 1)
    fn = ast.Lambda(ast.arguments([], args, None, [], [], None, none), body)
    tree = ast.fix_missing_locations(ast.Expression(fn))
    return eval(compile(tree, f"<rule {expr}>", "eval"), NS)  # noqa: S307 - our own rules


def _rule(j, expr):
    return j, compile_rule(expr, ()), compile_rule(expr, (), False), expr


_VARS = ("x", "y", "a", "b")  # the rules' operands after g, in their argument order


def _rules():
    """op name -> (kind, [(operand index, VJP on Tensors, VJP on arrays, rule)],
    ((argument position, index among the row's saved arrays, 'y', 'a' or 'b' slot), ...)
    for the values the rules read)."""
    out = {}
    for name, (_, _, vjp) in UNARY.items():
        out[name] = ("x", [_rule(0, vjp)], unary_saves(name))
    for name, (_, _, da, db) in BINARY.items():
        ra, rb = _rule(0, da), _rule(1, db)
        out[name] = ("tt", [ra, rb], binary_saves(name, "tt"))
        out[name + "_ts"] = ("ts", [ra], binary_saves(name, "ts"))
        out[name + "_st"] = ("st", [(0, *rb[1:])], binary_saves(name, "st"))  # b: input 0
    return {
        n: (kind, rs, tuple((_VARS.index(v), i, v) for i, v in enumerate(saves)))
        for n, (kind, rs, saves) in out.items()
    }


RULES = _rules()


def _env(row, kind, saves, arrays):
    """The rules' operands (x, y, a, b) for this row: saved values as Tensors on their
    slots (or their arrays, when nothing is recorded), scalars as floats. The ops save
    exactly what the rules read, in the order `unary_saves`/`binary_saves` give, so each
    is found by its position."""
    env = [None, None, None, None]
    if arrays:  # each saved array is its slot's own value
        sv = row.saved
        for pos, i, _ in saves:
            env[pos] = sv[i]
    else:
        for pos, i, v in saves:
            s = row.outs[0] if v == "y" else row.ins[1 if v == "b" and kind == "tt" else 0]
            env[pos] = handle(row.saved_array(i, s), s)
    if kind == "ts":
        env[3] = row.fattr0()
    elif kind == "st":
        env[2] = row.fattr0()
    return env


def _arrays(g):
    """Whether to evaluate the rules on NumPy arrays: nothing is being recorded (so the
    result need not be differentiable) and g lives on the CPU. A few NumPy calls on the
    arrays cost far less than as many dispatched ops."""
    return not STATE.enabled and type(g._data) is np.ndarray


def _apply(rule, env, g, arrays):
    """The rule's value at g as a Tensor, broadcast with g (a rule that did not involve g
    is a constant)."""
    if not arrays:
        v = rule[1](g, *env)
        if isinstance(v, Tensor) and v._data.shape == g._data.shape:
            return v
        return g * 0.0 + v
    gd = g._data
    v = rule[2](gd, *env)  # the sweeps run these under np.errstate(all="ignore")
    if v is gd:
        return g
    if not (type(v) is np.ndarray and v.shape == gd.shape and v.dtype == gd.dtype):
        v = np.asarray(gd * 0.0 + v, gd.dtype)
    return Tensor._make(v, -1, False)


def vjp(row, g):
    kind, rules, saves = RULES[row.name]
    arrays = not STATE.enabled and type(g._data) is np.ndarray
    env = _env(row, kind, saves, arrays)
    grads = [None] * len(row.ins)
    ins, nb, wants = row.ins, row.nb, row._rg
    for rule in rules:
        j = rule[0]
        if wants[j]:
            v = _apply(rule, env, g, arrays)
            s = ins[j]
            grads[j] = v if v._data.shape[nb:] == row.shape(s) else row.sum_to(v, s)
    return tuple(grads)


def jvp(row, tangents):
    """Output tangent from input tangents (None: zero), by the VJP rules with g := t."""
    kind, rules, saves = RULES[row.name]
    arrays = all(t is None or _arrays(t) for t in tangents)
    env = _env(row, kind, saves, arrays)
    out = None
    nd = len(row.shape(row.outs[0]))
    for rule in rules:
        j = rule[0]
        t = tangents[j]
        if t is None:
            continue
        shape = row.shape(row.ins[j])
        if row.nb and len(shape) < nd:  # batch dim first, then align the rest on the right
            t = t.reshape(row.bshape + (1,) * (nd - len(shape)) + shape)
        v = _apply(rule, env, t, arrays)
        out = v if out is None else out + v
    return out


for _name in RULES:
    defvjp(_name)(vjp)
