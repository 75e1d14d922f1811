"""Elementwise ops, each stated once as scalar rules.

A unary rule gives the forward `f(x)` and the VJP in terms of the input `x`, the output
`y` and the cotangent `g`. A binary rule gives `f(a, b)` and one VJP per operand (`a`,
`b`, `y`, `g`). The generators (`backends/cpu/codegen.py`, `backends/cuda/codegen.py`,
handed this table) turn each rule into forward and VJP kernels; an op saves exactly the
names its VJP expressions read, so `exp` keeps its output and `sin` its input.

Binary ops also get scalar variants (`x * 2.0`, `2.0 - x`) in which the Python number is
a row attr, not a tensor: `_ts` (tensor, scalar) and `_st` (scalar, tensor).
"""

from .._optable import attrs, declare
from ..backends import rules
from ..backends.rules import subst, uses  # noqa: F401 (the rules' language)
from .cuda import launcher

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
    "square": ("PowBackward0", "x * x", "g * 2 * x"),
    "exp2": ("Exp2Backward0", "exp2(x)", "g * y * 0.6931471805599453"),
    "log2": ("Log2Backward0", "log2(x)", "g / (x * 0.6931471805599453)"),
    "log10": ("Log10Backward0", "log10(x)", "g / (x * 2.302585092994046)"),
    "log1p": ("Log1PBackward0", "log1p(x)", "g / (1 + x)"),
    "expm1": ("Expm1Backward0", "expm1(x)", "g * (y + 1)"),
    "reciprocal": ("ReciprocalBackward0", "1 / x", "-g * y * y"),
    "rsqrt": ("RsqrtBackward0", "1 / sqrt(x)", "-0.5 * g * y * y * y"),
    "sinh": ("SinhBackward0", "sinh(x)", "g * cosh(x)"),
    "cosh": ("CoshBackward0", "cosh(x)", "g * sinh(x)"),
    "tan": ("TanBackward0", "tan(x)", "g * (1 + y * y)"),
    "asin": ("AsinBackward0", "asin(x)", "g / sqrt(1 - x * x)"),
    "acos": ("AcosBackward0", "acos(x)", "-g / sqrt(1 - x * x)"),
    "atan": ("AtanBackward0", "atan(x)", "g / (1 + x * x)"),
    "erf": ("ErfBackward0", "erf(x)", "g * 1.1283791670955126 * exp(-x * x)"),
    "sign": ("SignBackward0", "sign(x)", "0.0"),
    "floor": ("FloorBackward0", "floor(x)", "0.0"),
    "ceil": ("CeilBackward0", "ceil(x)", "0.0"),
    "round": ("RoundBackward0", "rint(x)", "0.0"),
    "silu": ("SiluBackward0", "x * sigmoid(x)", "g * sigmoid(x) * (1 + x * (1 - sigmoid(x)))"),
    "gelu": ("GeluBackward0", "x * ncdf(x)", "g * (ncdf(x) + x * npdf(x))"),
    "gelu_tanh": ("GeluBackward0", "gelu_tanh(x)", "g * gelu_tanh_grad(x)"),
    "lgamma": ("LgammaBackward0", "lgamma(x)", "g * digamma(x)"),
    "digamma": ("DigammaBackward0", "digamma(x)", "g * trigamma(x)"),
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
    "atan2": (
        ("Atan2Backward0",) * 3,
        "atan2(a, b)",
        "0.0 if (a == 0 and b == 0) else fdiv(g * b, a * a + b * b)",
        "0.0 if (a == 0 and b == 0) else fdiv(-g * a, a * a + b * b)",
    ),
    # ties share the gradient evenly, as PyTorch's maximum/minimum
    "maximum": (
        ("MaximumBackward0",) * 3,
        "a if (a >= b or a != a) else b",
        "g if a > b else (0.5 * g if a == b else 0.0 * g)",
        "g if b > a else (0.5 * g if a == b else 0.0 * g)",
    ),
    "minimum": (
        ("MinimumBackward0",) * 3,
        "a if (a <= b or a != a) else b",
        "g if a < b else (0.5 * g if a == b else 0.0 * g)",
        "g if b < a else (0.5 * g if a == b else 0.0 * g)",
    ),
}


def unary_saves(name):
    """Which of ('x', 'y') the op keeps for its VJP."""
    return rules.unary_saves(UNARY[name][2])


def binary_saves(name, variant):
    """Which of ('a', 'b', 'y') the op keeps for its VJP; scalars are attrs, not saved."""
    _, _, da, db = BINARY[name]
    return rules.binary_saves(da, db, variant)


# A scalar operand (`x * 2.0`: mul_ts; `2.0 / x`: div_st) is the row's one float
# attribute, which the generated VJPs read as float attr 0.
SCALAR = attrs("c")


def _declare():
    for name, (node, _, _) in UNARY.items():
        cuda_vjp = launcher("cuda.forwards", "vjp_unary", name)
        declare(name, node, vjp=f"@gen:vjp_{name}", rule="unary", cuda_vjp=cuda_vjp)
    for name, (nodes, _, _, _) in BINARY.items():
        for variant, node in zip(("", "_ts", "_st"), nodes):
            f, vjp = SCALAR if variant else None, f"@gen:vjp_{name}{variant}"
            cuda_vjp = (
                launcher("cuda.forwards", "vjp_scalar", name, variant[1:])
                if variant
                else launcher("cuda.forwards", "vjp_binary", name)
            )
            declare(name + variant, node, f=f, vjp=vjp, rule="binary" + variant, cuda_vjp=cuda_vjp)


_declare()
