"""The op table: every differentiable op nbgrad exports, with the inputs to test it on and
what it supports. One entry tests an op in every mode (tests/opinfo/test_*.py): gradients
against finite differences, second derivatives, forward mode, PyTorch, `nbgrad.compile`
and the CUDA backend.

An entry's `op(m, *args, **kwargs)` is written once for `m = nbgrad` and `m = torch` (the
same code: nbgrad speaks PyTorch's API); by default it is the function named by the entry
(`"nn.functional.softmax"`: `m.nn.functional.softmax`). Its samples are `Sample`s whose
float NumPy arrays become the differentiable inputs (float64 or float32); `C(value)` is a
constant tensor (indices, masks, fixed weights), anything else is passed as it is.

An entry that does not support a mode says so in `unsupported`, with the reason, and the
error the mode must raise (`raises=(type, message regex)`) where the op refuses it.
"""

import zlib

import numpy as np

F32, F64 = np.float32, np.float64
MODES = ("grad", "gradgrad", "fwad", "torch", "compile", "cuda")


class C:
    """A constant tensor argument: integer indices, a mask, or float data that takes no
    gradient (cast to the sample's float dtype)."""

    def __init__(self, value):
        self.value = np.asarray(value)


class Sample:
    """One call: `args`, `kwargs`; the float inputs at positions `t` are passed transposed
    (a non-contiguous view of their leaf); `method` calls the entry's method on args[0]."""

    def __init__(self, *args, t=(), method=False, **kwargs):
        # arithmetic on a 0-d array gives a NumPy scalar: make it an input again
        args = tuple(np.asarray(a) if isinstance(a, np.floating) else a for a in args)
        self.args, self.kwargs, self.t, self.method = args, kwargs, t, method

    def __repr__(self):
        def show(a):
            if isinstance(a, np.ndarray):
                return "x" + "x".join(map(str, a.shape)) if a.ndim else "0-d"
            return f"C{list(a.value.shape)}" if isinstance(a, C) else repr(a)

        parts = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kwargs.items()]
        return "(" + ", ".join(parts) + (", transposed" if self.t else "") + ")"


class Unsupported:
    def __init__(self, reason, raises=None):
        self.reason, self.raises = reason, raises


def _is_float(a):
    return isinstance(a, np.ndarray) and a.dtype.kind == "f"


def _const(m, a, dtype, device):
    if isinstance(a, C):
        v = a.value.astype(dtype) if a.value.dtype.kind == "f" else a.value
        return m.tensor(v, device=device) if device != "cpu" else m.tensor(v)
    if isinstance(a, (list, tuple)):
        return type(a)(_const(m, b, dtype, device) for b in a)
    return a


class OpInfo:
    def __init__(
        self,
        name,
        samples,
        op=None,
        method=None,
        dtypes=(F32, F64),
        unsupported=None,
        tol=None,
        cuda_samples=1,
        compile_samples=1,
        eps=1e-6,
    ):
        self.name, self.samples_of, self.method = name, samples, method
        self.op = op or _named(name)
        self.dtypes = dtypes
        self.unsupported = dict(unsupported or {})  # entries share the dicts they are given
        self.tol = tol or {}  # mode -> (rtol, atol)
        self.cuda_samples = cuda_samples  # the simulator runs a thread per element: few
        self.compile_samples = compile_samples  # each signature is a program to compile
        self.eps = eps  # the finite-difference step

    def __repr__(self):
        return self.name

    def samples(self):
        return self.samples_of(Draw(zlib.crc32(self.name.encode())))

    def bind(self, sample, m, dtype=F64, device="cpu", index_args=False):
        """(f(*leaves), the leaves' values): f calls the op on module m with the sample's
        float inputs replaced by leaves (transposed back where the sample says so). With
        `index_args`, f also takes the integer constants as trailing arguments (a compiled
        program reads index values from its arguments), and `f.index_args` holds them."""
        arrays = [
            (a.swapaxes(-1, -2) if i in sample.t else a).astype(
                dtype if a.dtype == F64 else a.dtype
            )
            for i, a in enumerate(sample.args)
            if _is_float(a)
        ]

        # constants are made once: a compiled program reads them as captured tensors
        consts = [None if _is_float(a) else _const(m, a, dtype, device) for a in sample.args]
        kw = {k: _const(m, v, dtype, device) for k, v in sample.kwargs.items()}

        def is_index(a):
            return index_args and isinstance(a, C) and a.value.dtype.kind in "iub"

        def f(*leaves):
            it = iter(leaves)
            rest = iter(leaves[len(arrays) :])
            args = []
            for i, (a, c) in enumerate(zip(sample.args, consts)):
                if _is_float(a):
                    x = next(it)
                    args.append(x.transpose(-1, -2) if i in sample.t else x)
                else:
                    args.append(next(rest) if is_index(a) else c)
            if sample.method and self.method:
                return getattr(args[0], self.method)(*args[1:], **kw)
            return self.op(m, *args, **kw)

        f.index_args = [c for a, c in zip(sample.args, consts) if is_index(a)]
        return f, arrays


def _named(path):
    def op(m, *args, **kwargs):
        fn = m
        for part in path.split("."):
            fn = getattr(fn, part)
        return fn(*args, **kwargs)

    return op


class Draw:
    """Random inputs in an op's domain (seeded per entry)."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def any(self, *shape):
        return np.asarray(self.rng.uniform(-2.0, 2.0, shape))

    def pos(self, *shape):  # log, sqrt, bases of real powers: away from 0
        return np.asarray(self.rng.uniform(0.5, 2.0, shape))

    def nonzero(self, *shape):  # kinks and poles: away from 0
        return np.asarray(self.rng.uniform(0.3, 2.0, shape) * self.rng.choice([-1.0, 1.0], shape))

    def unit(self, *shape):  # asin, acos, tan: inside (-0.8, 0.8)
        return np.asarray(self.rng.uniform(-0.8, 0.8, shape))

    def prob(self, *shape):  # probabilities, away from 0 and 1
        return np.asarray(self.rng.uniform(0.2, 0.8, shape))

    def distinct(self, *shape):  # values at least 0.1 apart: sorting, max, kinks
        n = int(np.prod(shape))
        return np.asarray((self.rng.permutation(n) - n // 2) * 0.1 + 0.02).reshape(shape)

    def shifted(self, *shape):  # distinct, and 0.05 away from every `distinct` value
        return self.distinct(*shape) + 0.05

    def index(self, hi, *shape):
        return C(self.rng.integers(0, hi, shape))


# -- sample sets ---------------------------------------------------------------------------


def unary(domain="any"):
    """1-D, 0-d, a transposed (non-contiguous) 2-D input called as a method, and 3-D."""

    def samples(r):
        d = getattr(r, domain)
        return [
            Sample(d(5)),
            Sample(d()),
            Sample(d(3, 4), t=(0,), method=True),
            Sample(d(2, 3, 2)),
        ]

    return samples


def binary(da="any", db="any"):
    """Same shapes, broadcasting both ways, 0-d with 1-D, an empty input, a transposed
    operand."""

    def samples(r):
        a, b = getattr(r, da), getattr(r, db)
        return [
            Sample(a(3, 4), b(3, 4)),
            Sample(a(3, 1), b(1, 4)),
            Sample(a(2, 3, 4), b(4)),
            Sample(a(4), b(2, 3, 4)),
            Sample(a(2, 1, 4), b(3, 1)),
            Sample(a(), b(3)),
            Sample(a(3), b()),
            Sample(a(0, 3), b(3)),
            Sample(a(3, 4), b(3, 4), t=(0,)),
        ]

    return samples


def one(*samples_of):
    """Samples given as functions of the Draw."""
    return lambda r: [s(r) for s in samples_of]


def _ops(table, names, make):
    for n in names:
        table.append(make(n))


# -- ops that need a wrapper ------------------------------------------------------------


def _sym(a):
    return (a + a.mT) / 2


def _spd(m, a):
    n = a.shape[-1]
    return a @ a.mT + n * m.eye(n, dtype=a.dtype, device=a.device)


def _setitem(m, x, w, index):
    y = x * 1
    y[index] = w
    return y * y  # nonlinear, so the overwritten entries matter


_CUSTOM = {}


def custom(m, kind):
    """A user-defined Function for module m (one class per module and kind)."""
    key = (m.__name__, kind)
    if key not in _CUSTOM:
        if kind == "cube":

            class Cube(m.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x)
                    return x * x * x

                @staticmethod
                def backward(ctx, g):
                    (x,) = ctx.saved_tensors
                    return g * 3 * x * x

            _CUSTOM[key] = Cube
        else:

            class RowScale(m.autograd.Function):
                """x * w with a non-tensor argument; the gradient of w is returned at x's
                shape and summed down by autograd."""

                @staticmethod
                def forward(ctx, x, alpha, w):
                    ctx.save_for_backward(x, w)
                    ctx.alpha = alpha
                    return alpha * x * w

                @staticmethod
                def backward(ctx, g):
                    x, w = ctx.saved_tensors
                    return g * ctx.alpha * w, None, g * ctx.alpha * x

            _CUSTOM[key] = RowScale
    return _CUSTOM[key]


NO_FWAD_CUSTOM = Unsupported(
    "custom Functions have no jvp (docs/api.md: forward mode not through custom Functions)",
    raises=(NotImplementedError, "needs its jvp"),
)
NO_FWAD_LINALG = Unsupported(
    "the factorizations are custom Functions with a backward only (docs/api.md)",
    raises=(NotImplementedError, "needs its jvp"),
)
CPU_ONLY_LINALG = Unsupported(
    "LAPACK runs on the host: linalg factorizations refuse CUDA tensors (docs/api.md)",
    raises=(NotImplementedError, "not implemented for CUDA tensors"),
)
NO_CUDA_KERNEL = Unsupported(
    "no CUDA kernel yet (CUDA tensors are never computed on the host)",
    raises=(NotImplementedError, "has no CUDA kernel yet"),
)

# -- the table -----------------------------------------------------------------------------

OPS: list = []

UNARY = {
    "any": [
        "neg", "exp", "sin", "cos", "tanh", "sigmoid", "square", "exp2", "expm1", "sinh",
        "cosh", "atan", "erf",
    ],
    "pos": ["log", "sqrt", "log2", "log10", "log1p", "rsqrt", "lgamma"],
    "nonzero": ["abs", "relu", "reciprocal"],
    "unit": ["tan", "asin", "acos"],
}  # fmt: skip
for _dom, _names in UNARY.items():
    _ops(OPS, _names, lambda n, d=_dom: OpInfo(n, unary(d), method=n))

OPS.append(
    OpInfo(
        "digamma",
        unary("pos"),
        method="digamma",
        unsupported={
            "gradgrad": Unsupported(
                "the derivative of digamma needs polygamma(2, x)",
                raises=(NotImplementedError, "polygamma"),
            )
        },
    )
)
_ops(OPS, ["floor", "ceil", "round", "sign"], lambda n: OpInfo(n, unary("nonzero"), method=n))
for _n in ["silu", "gelu", "selu", "celu", "elu", "logsigmoid", "softplus", "relu6"]:
    OPS.append(OpInfo("nn.functional." + _n, unary("nonzero")))
OPS += [
    OpInfo(
        "nn.functional.gelu_tanh",
        unary(),
        op=lambda m, x: m.nn.functional.gelu(x, approximate="tanh"),
    ),
    OpInfo(
        "nn.functional.leaky_relu",
        one(lambda r: Sample(r.nonzero(3, 4), 0.2), lambda r: Sample(r.nonzero(5))),
    ),
    OpInfo(
        "nn.functional.elu_alpha",
        one(lambda r: Sample(r.nonzero(3, 4) * 3, 1.5)),
        op=lambda m, x, a: m.nn.functional.elu(x, a),
    ),
    OpInfo(
        "nn.functional.softplus_beta",
        one(lambda r: Sample(r.nonzero(3, 4) * 5, beta=2.0, threshold=5.0)),
        op=lambda m, x, **kw: m.nn.functional.softplus(x, **kw),
    ),
    OpInfo(
        "nn.functional.hardtanh",
        one(lambda r: Sample(r.distinct(3, 4) * 1.1, -0.5, 0.6), lambda r: Sample(r.nonzero(5))),
    ),
    OpInfo(
        "clamp",
        one(
            lambda r: Sample(r.distinct(3, 4), -0.5, 0.45, method=True),
            lambda r: Sample(r.distinct(3, 4), min=0.15),
            lambda r: Sample(r.distinct(5), max=0.25),
            lambda r: Sample(r.distinct(3, 4), r.distinct(3, 4) - 0.333, r.distinct(4) + 0.366),
        ),
        method="clamp",
    ),
    OpInfo("clamp_min", one(lambda r: Sample(r.distinct(3, 4), 0.15))),
    OpInfo("clamp_max", one(lambda r: Sample(r.distinct(3, 4), 0.15))),
    OpInfo("nan_to_num", unary(), unsupported={"cuda": NO_CUDA_KERNEL}),
]

# binary ops: tensors with broadcasting, then Python numbers on either side
OPS += [
    OpInfo("add", binary(), method="add", cuda_samples=3),
    OpInfo("sub", binary(), method="sub", cuda_samples=3),
    OpInfo("mul", binary(), method="mul", cuda_samples=3),
    OpInfo("div", binary("any", "nonzero"), method="div", cuda_samples=3),
    OpInfo("pow", binary("pos", "any"), method="pow", cuda_samples=3),
    OpInfo("atan2", binary("any", "nonzero"), method="atan2", cuda_samples=3),
    OpInfo("maximum", binary("distinct", "shifted"), cuda_samples=3),
    OpInfo("minimum", binary("distinct", "shifted"), cuda_samples=3),
    OpInfo(
        "add_alpha",
        one(lambda r: Sample(r.any(3), r.any(3), alpha=2)),
        op=lambda m, a, b, alpha: m.add(a, b, alpha=alpha),
    ),
    OpInfo(
        "sub_alpha",
        one(lambda r: Sample(r.any(3, 1), r.any(4), alpha=0.5)),
        op=lambda m, a, b, alpha: m.sub(a, b, alpha=alpha),
    ),
    OpInfo(
        "remainder",
        one(lambda r: Sample(r.any(3, 4), r.pos(4) + 0.5)),
        unsupported={"cuda": NO_CUDA_KERNEL},
    ),
    OpInfo(
        "fmod",
        one(lambda r: Sample(r.any(3, 4), r.pos(4) + 0.5)),
        unsupported={"cuda": NO_CUDA_KERNEL},
    ),
    OpInfo(
        "floor_divide",
        one(lambda r: Sample(r.any(3, 4), r.pos(4) + 0.5)),
        unsupported={
            m: Unsupported(
                "PyTorch has no derivative for floor_divide",
                raises=(RuntimeError, "derivative for aten::floor_divide is not implemented"),
            )
            for m in ("grad", "gradgrad")
        }
        | {
            # PyTorch: "Trying to use forward AD with aten::floor_divide that does not
            # support it."; nbgrad names custom Functions (floor_divide is one inside)
            "fwad": Unsupported("no derivative", raises=(NotImplementedError, "forward AD")),
            "cuda": NO_CUDA_KERNEL,
        },
    ),
]

_SCALAR = {
    "add_scalar": lambda m, x: x + 2,
    "radd_scalar": lambda m, x: 2 + x,
    "sub_scalar": lambda m, x: x - 2,
    "rsub_scalar": lambda m, x: 2 - x,
    "mul_scalar": lambda m, x: x * 2.5,
    "rmul_scalar": lambda m, x: -1.5 * x,
    "div_scalar": lambda m, x: x / 3,
    "rdiv_scalar": lambda m, x: 2 / x,
    "pow_scalar_2": lambda m, x: x**2,
    "pow_scalar_3": lambda m, x: x**3,
    "pow_scalar_0": lambda m, x: x**0,
    "pow_scalar_2.5": lambda m, x: x**2.5,
    "pow_scalar_-1.5": lambda m, x: x**-1.5,
    "rpow_scalar": lambda m, x: 0.7**x,
    "rpow_int": lambda m, x: 2**x,
    "mul_div_pow_fn": lambda m, x: m.pow(m.div(m.mul(x, x + 3), x + 3), 2),
    "atan2_0d": lambda m, x: m.atan2(x, m.tensor(0.5, dtype=x.dtype)),
    "maximum_0d": lambda m, x: m.maximum(x, m.tensor(0.11, dtype=x.dtype)),
    "minimum_0d": lambda m, x: m.minimum(m.tensor(0.13, dtype=x.dtype), x),
}
# nbgrad also takes a Python number where PyTorch wants a tensor
_TORCH_WANTS_TENSOR = Unsupported(
    "PyTorch takes tensors only here", raises=(TypeError, "must be Tensor, not float")
)
OPS.append(
    OpInfo(
        "atan2_number",
        one(lambda r: Sample(r.nonzero(3, 4), 0.15), lambda r: Sample(0.15, r.nonzero(3, 4))),
        op=lambda m, a, b: m.atan2(a, b),
        unsupported={"torch": _TORCH_WANTS_TENSOR},
    )
)
_SCALAR_DOMAIN = {"rdiv_scalar": "nonzero", "pow_scalar_2.5": "pos", "pow_scalar_-1.5": "pos"}
for _n, _f in _SCALAR.items():
    OPS.append(
        OpInfo(
            _n, one(lambda r, d=_SCALAR_DOMAIN.get(_n, "any"): Sample(getattr(r, d)(3, 4))), op=_f
        )
    )

OPS += [
    OpInfo(
        "where",
        one(
            lambda r: Sample(C(r.rng.uniform(size=(3, 1)) > 0.5), r.any(3, 4), r.any(4)),
            lambda r: Sample(C([True, False, True]), r.any(3), r.any()),
        ),
    ),
    OpInfo(
        "lerp",
        one(lambda r: Sample(r.any(3, 4), r.any(4), r.any(3, 1) * 0.3)),
        unsupported={"cuda": NO_CUDA_KERNEL},
    ),
    OpInfo(
        "lerp_scalar",
        one(lambda r: Sample(r.any(3, 4), r.any(4), 0.7)),
        op=lambda m, a, b, w: m.lerp(a, b, w),
    ),
    OpInfo("addcmul", one(lambda r: Sample(r.any(3, 4), r.any(4), r.any(3, 1), value=0.5))),
    OpInfo("addcdiv", one(lambda r: Sample(r.any(3, 4), r.any(4), r.nonzero(3, 1), value=0.5))),
    OpInfo("same_tensor_twice", unary(), op=lambda m, x: x * x + x / (x * x + 1)),
    OpInfo(
        "chain",
        unary(),
        op=lambda m, x: ((x * 2).sin() + x.exp()).tanh() * x.sigmoid(),
    ),
]

# dtype casts: float32 leaves read as float64, float64 ones through float32 and back (a
# finite-difference step float32 resolves)
_F32_STEP = {m: (1e-3, 1e-3) for m in ("grad", "gradgrad", "fwad")}


def _f32(r):
    return [Sample(r.any(3, 4).astype(F32)), Sample(r.any().astype(F32))]


OPS += [
    OpInfo("double", _f32, op=lambda m, x: x.double() ** 2, dtypes=(F64,), eps=1e-2, tol=_F32_STEP),
    OpInfo(
        "to_float64",
        _f32,
        op=lambda m, x: x.to(m.float64).exp(),
        dtypes=(F64,),
        eps=1e-2,
        tol=_F32_STEP,
    ),
    OpInfo(
        "float",
        unary(),
        op=lambda m, x: (x.float() * 3).double(),
        dtypes=(F64,),
        eps=1e-2,  # a step float32 resolves
        tol=_F32_STEP,
    ),
]

# mixed float32 and float64 operands: float32 inputs stay float32
OPS += [
    OpInfo(
        "mixed_f32_f64",
        one(lambda r: Sample(r.any(3).astype(F32), r.any(3))),
        op=lambda m, a, b: a * b + a,
        dtypes=(F64,),
        eps=1e-2,
        tol=_F32_STEP,
    ),
    OpInfo(
        "mixed_bcast",
        one(lambda r: Sample(r.any(2, 1).astype(F32), r.any(3))),
        op=lambda m, a, b: a - b,
        dtypes=(F64,),
        eps=1e-2,
        tol=_F32_STEP,
    ),
]

# -- reductions ------------------------------------------------------------------------------


def reduce_samples(domain="any"):
    def samples(r):
        d = getattr(r, domain)
        return [
            Sample(d(3, 4), method=True),
            Sample(d(2, 3, 4), 1),
            Sample(d(2, 3, 4), -2, keepdim=True),
            Sample(d(2, 3, 4), (0, 2)),
            Sample(d(2, 3, 4), (-1, 0), keepdim=True, t=(0,)),
            Sample(d(), 0),
            Sample(d(3, 4), dim=1),
        ]

    return samples


OPS += [
    OpInfo("sum", reduce_samples(), method="sum"),
    OpInfo("mean", reduce_samples(), method="mean"),
    OpInfo(
        "logsumexp",
        one(
            lambda r: Sample(r.any(3, 4), 1), lambda r: Sample(r.any(2, 3, 2), (0, 2), keepdim=True)
        ),
    ),
    OpInfo(
        "amax",
        one(
            lambda r: Sample(r.distinct(3, 4), 1),
            lambda r: Sample(r.distinct(2, 3, 4), (0, 2), keepdim=True),
        ),
    ),
    OpInfo(
        "amin",
        one(lambda r: Sample(r.distinct(3, 4), 0), lambda r: Sample(r.distinct(2, 3, 4), (-1,))),
    ),
    OpInfo("amax_ties", unary(), op=lambda m, x: m.amax(x.unsqueeze(0).expand(2, *x.shape), dim=0)),
    OpInfo(
        "amin_ties",
        one(lambda r: Sample(r.any(3, 4))),
        op=lambda m, x: m.amin(x.expand(2, 3, 4), dim=(0, 2), keepdim=True),
    ),
    OpInfo(
        "max_all",
        one(lambda r: Sample(r.distinct(3, 4)), lambda r: Sample(r.any(3, 4))),
        op=lambda m, x: x.expand(2, 3, 4).max() * x,
    ),
    OpInfo("min_all", one(lambda r: Sample(r.distinct(3, 4))), op=lambda m, x: x.min()),
    OpInfo(
        "max_dim",
        one(
            lambda r: Sample(r.distinct(3, 4), -1),
            lambda r: Sample(r.distinct(2, 3, 4), 1, keepdim=True),
        ),
        op=lambda m, x, d, **kw: m.max(x, d, **kw).values,
    ),
    OpInfo(
        "min_dim",
        one(lambda r: Sample(r.distinct(3, 4), 0, keepdim=True)),
        op=lambda m, x, d, **kw: x.min(dim=d, **kw).values,
    ),
    OpInfo(
        "prod",
        one(
            lambda r: Sample(r.any(2, 3)),
            lambda r: Sample(np.array([[0.7, 0.0, 0.0], [1.3, 1.1, 0.0], [-0.9, 0.8, 0.6]]), 0),
            lambda r: Sample(
                np.array([[0.7, 0.0, 0.0], [1.3, 1.1, 0.0], [-0.9, 0.8, 0.6]]), 1, keepdim=True
            ),
            lambda r: Sample(np.array([[0.7, 0.0, 0.0], [1.3, 1.1, 0.0], [-0.9, 0.8, 0.6]])),
        ),
        tol={"gradgrad": (1e-4, 1e-4)},
    ),
    OpInfo(
        "var",
        one(
            lambda r: Sample(r.any(3, 4)),
            lambda r: Sample(r.any(3, 4), 1),
            lambda r: Sample(r.any(3, 4), (0, 1), keepdim=True, correction=0),
        ),
        method="var",
    ),
    OpInfo(
        "std", one(lambda r: Sample(r.any(3, 4)), lambda r: Sample(r.any(3, 4), 0, keepdim=True))
    ),
    OpInfo(
        "norm",
        one(
            lambda r: Sample(r.nonzero(3, 4)),
            lambda r: Sample(r.nonzero(3, 4), dim=1),
            lambda r: Sample(r.nonzero(3, 4), dim=0, keepdim=True),
            lambda r: Sample(r.nonzero(3, 4), p=3, dim=1),
            lambda r: Sample(r.nonzero(3, 4), p=1, dim=0),
            lambda r: Sample(r.nonzero(3, 4), p=0.5),
            lambda r: Sample(r.distinct(3, 4), p=float("inf"), dim=1),
            lambda r: Sample(r.distinct(3, 4), p=-float("inf"), dim=1, keepdim=True),
        ),
    ),
    OpInfo(
        "norm_inf_ties",  # ties across the copies x, -x: they persist under perturbation
        one(lambda r: Sample(r.any(3, 4))),
        op=lambda m, x: m.stack([x, -x]).norm(p=float("inf"), dim=(0, 2)),
    ),
    OpInfo(
        "norm_p0",
        one(lambda r: Sample(r.nonzero(3, 4))),
        op=lambda m, x: x.norm(p=0, dim=1) * x.sum(1),
    ),
    OpInfo(
        "cumsum",
        one(
            lambda r: Sample(r.any(3, 4), 1),
            lambda r: Sample(r.any(2, 2, 3), 0),
            lambda r: Sample(r.any(4), 0),
        ),
    ),
    OpInfo(
        "cumprod",
        one(
            lambda r: Sample(r.any(3, 4), 1),
            lambda r: Sample(np.array([[0.5, 0.0, -1.2], [0.0, 0.0, 2.0]]), 1),
        ),
    ),
    OpInfo(
        "cummax", one(lambda r: Sample(r.any(3, 4), 1)), op=lambda m, x, d: m.cummax(x, d).values
    ),
    OpInfo(
        "logcumsumexp",
        one(lambda r: Sample(r.any(3, 4), 1), lambda r: Sample(r.any(2, 2, 3), 0)),
    ),
    OpInfo(
        "cummin", one(lambda r: Sample(r.any(3, 4), 0)), op=lambda m, x, d: m.cummin(x, d).values
    ),
]

# -- softmax ----------------------------------------------------------------------------

for _n in ("softmax", "log_softmax", "softmin"):
    OPS.append(
        OpInfo(
            "nn.functional." + _n,
            one(
                lambda r: Sample(r.any(3, 4), 1),
                lambda r: Sample(r.any(2, 3, 2), 0),
                lambda r: Sample(r.any(2, 3, 2), -2, t=(0,)),
                lambda r: Sample(r.any(5), -1),
                lambda r: Sample(r.any(3, 4), 0),
                lambda r: Sample(r.any(2, 3, 2), -1),
            ),
        )
    )

# -- views, joins, indexing --------------------------------------------------------------

OPS += [
    OpInfo(
        "transpose",
        one(lambda r: Sample(r.any(3, 4), 0, 1), lambda r: Sample(r.any(2, 3, 4), -1, 0)),
    ),
    OpInfo("t", one(lambda r: Sample(r.any(3, 4)), lambda r: Sample(r.any(3)))),
    OpInfo("T", one(lambda r: Sample(r.any(3, 4))), op=lambda m, x: x.T),
    OpInfo("mT", one(lambda r: Sample(r.any(2, 3, 4))), op=lambda m, x: x.mT),
    OpInfo(
        "permute",
        one(
            lambda r: Sample(r.any(2, 3, 4), (2, 0, 1)),
            lambda r: Sample(r.any(2, 3, 4), (-1, -3, -2)),
        ),
    ),
    OpInfo("movedim", one(lambda r: Sample(r.any(2, 2, 3), 0, -1))),
    OpInfo(
        "reshape",
        one(
            lambda r: Sample(r.any(2, 3, 4), (6, -1)),
            lambda r: Sample(r.any(3, 4), (12,), t=(0,)),
            lambda r: Sample(r.any(), (1, 1)),
        ),
    ),
    OpInfo(
        "view",
        one(lambda r: Sample(r.any(2, 3, 4), 4, 6)),
        op=lambda m, x, *s: x.view(*s) * x.view(*s),
    ),
    OpInfo(
        "view_as", one(lambda r: Sample(r.any(3, 4))), op=lambda m, x: x.view(12).view_as(x) * x
    ),
    OpInfo("flatten", one(lambda r: Sample(r.any(2, 3, 4)), lambda r: Sample(r.any(2, 3, 4), 1))),
    OpInfo("squeeze", one(lambda r: Sample(r.any(3, 1, 4)), lambda r: Sample(r.any(3, 1, 4), 1))),
    OpInfo(
        "unsqueeze",
        one(
            lambda r: Sample(r.any(3, 4), 0),
            lambda r: Sample(r.any(3, 4), -1),
            lambda r: Sample(r.any(), 0),
        ),
    ),
    OpInfo(
        "expand",
        one(lambda r: Sample(r.any(3, 1), 2, 3, 4), lambda r: Sample(r.any(3, 1), -1, 5)),
        op=lambda m, x, *s: x.expand(*s),
    ),
    OpInfo(
        "expand_as",
        one(lambda r: Sample(r.any(1, 4), r.any(3, 4))),
        op=lambda m, x, y: x.expand_as(y) * y,
    ),
    OpInfo("clone", unary(), op=lambda m, x: x.clone() * x),
    OpInfo(
        "contiguous", one(lambda r: Sample(r.any(3, 4), t=(0,))), op=lambda m, x: x.contiguous()
    ),
    OpInfo("narrow", one(lambda r: Sample(r.any(3, 4), -1, 1, 2))),
    OpInfo(
        "flip", one(lambda r: Sample(r.any(3, 4), (0, -1)), lambda r: Sample(r.any(2, 3, 2), (1,)))
    ),
    OpInfo("fliplr", one(lambda r: Sample(r.any(3, 4)))),
    OpInfo("flipud", one(lambda r: Sample(r.any(3, 4)))),
    OpInfo("repeat", one(lambda r: Sample(r.any(2, 3), 2, 1, 2)), op=lambda m, x, *s: x.repeat(*s)),
    OpInfo("tile", one(lambda r: Sample(r.any(2, 3), (2, 2)))),
    OpInfo(
        "roll",
        one(
            lambda r: Sample(r.any(3, 4), 1, 1),
            lambda r: Sample(r.any(3, 4), (2, -1), (0, 1)),
            lambda r: Sample(r.any(3, 4), 5),
        ),
    ),
    OpInfo(
        "repeat_interleave",
        one(
            lambda r: Sample(r.any(3, 2), 2, dim=0),
            lambda r: Sample(r.any(3, 2), C([1, 0, 2]), dim=0),
        ),
    ),
    OpInfo(
        "split",
        one(lambda r: Sample(r.any(3, 4), 3, -1)),
        op=lambda m, x, s, d: m.split(x, s, dim=d)[0] * m.split(x, s, d)[1].sum(),
    ),
    OpInfo(
        "split_sizes",
        one(lambda r: Sample(r.any(3, 4), [1, 3], 1)),
        op=lambda m, x, s, d: m.split(x, s, dim=d)[1] * x[:, :1],
    ),
    OpInfo(
        "chunk",
        one(lambda r: Sample(r.any(5, 3), 2)),
        op=lambda m, x, n: m.chunk(x, n)[1] * m.chunk(x, n)[0][:2],
    ),
    OpInfo(
        "unbind",
        one(lambda r: Sample(r.any(3, 4), -2)),
        op=lambda m, x, d: m.unbind(x, dim=d)[2] * m.unbind(x, 1)[0].sum(),
    ),
    OpInfo(
        "cat",
        one(
            lambda r: Sample(r.any(3, 2), r.any(3, 4), dim=-1),
            lambda r: Sample(r.any(2, 3), r.any(1, 3), dim=0),
        ),
        op=lambda m, a, b, dim: m.cat([a, b * b], dim=dim),
    ),
    OpInfo(
        "stack",
        one(
            lambda r: Sample(r.any(2, 4), r.any(2, 4), dim=1),
            lambda r: Sample(r.any(), r.any(), dim=0),
        ),
        op=lambda m, a, b, dim: m.stack([a, b], dim=dim) * a.sum(),
    ),
    OpInfo(
        "hstack",
        one(lambda r: Sample(r.any(3, 2), r.any(3, 1))),
        op=lambda m, a, b: m.hstack([a, b]),
    ),
    OpInfo(
        "vstack", one(lambda r: Sample(r.any(3), r.any(2, 3))), op=lambda m, a, b: m.vstack([a, b])
    ),
    OpInfo("gather", one(lambda r: Sample(r.any(3, 4), -1, C([[0, 0], [3, 1], [2, 2]])))),
    OpInfo("index_select", one(lambda r: Sample(r.any(3, 4), -2, C([2, 0, 2])))),
    OpInfo(
        "take_along_dim", one(lambda r: Sample(r.any(3, 4), C([[1, 1], [0, 3], [2, 0]]), dim=1))
    ),
    OpInfo(
        "scatter_add",
        one(lambda r: Sample(r.any(3, 4), -1, C([[0, 0], [3, 1], [2, 2]]), r.any(3, 2))),
    ),
    OpInfo(
        "index_add", one(lambda r: Sample(r.any(3, 4), 0, C([2, 0, 2]), r.any(3, 4), alpha=2.0))
    ),
    OpInfo(
        "masked_select",
        one(lambda r: Sample(r.any(3, 4), C([[True, False, True, True]]), method=True)),
        method="masked_select",
    ),
    OpInfo(
        "masked_fill",
        one(lambda r: Sample(r.any(3, 4), C([[True, False, True, True]]), 0.5)),
        op=lambda m, x, k, v: x.masked_fill(k, v) * x,
    ),
    OpInfo(
        "index_put",
        one(
            lambda r: Sample(r.any(3, 4), (C([2, 0, 2]), C([1, 3, 1])), r.any(3), accumulate=True),
            # distinct rows: with duplicates only the last write lands, but every write gets
            # the cotangent at its destination (PyTorch too), which no difference can check
            lambda r: Sample(r.any(3, 4), (C([2, 0]),), r.any(1, 4)),
        ),
        op=lambda m, x, idx, v, **kw: x.index_put(idx, v, **kw) * x,
    ),
    OpInfo(
        "setitem_slice",
        one(
            lambda r: Sample(r.any(4, 3), r.any(2, 3), (slice(1, 3),)),
            lambda r: Sample(r.any(4, 3), r.any(3), (slice(0, 2),)),
        ),
        op=_setitem,
    ),
    OpInfo("setitem_int", one(lambda r: Sample(r.any(4, 3), r.any(3), (1,))), op=_setitem),
    OpInfo(
        "setitem_column",
        one(lambda r: Sample(r.any(4, 3), r.any(4), (slice(None), 1))),
        op=_setitem,
    ),
    OpInfo(
        "setitem_step",
        one(
            lambda r: Sample(r.any(5, 2), r.any(3), (slice(None, None, 2), 0)),
            lambda r: Sample(r.any(3, 4), r.any(2, 1), (slice(1, None), slice(None, None, 2))),
        ),
        op=_setitem,
    ),
]

_INDEX = {
    "int": (1,),
    "neg_int": (-1,),
    "2ints": (1, 2),
    "slice": (slice(1, 3),),
    "slice_neg": (slice(-3, -1),),
    "step": (slice(None, None, 2),),
    "start_step": (slice(1, None, 2), slice(None, None, 3)),
    "ellipsis": (Ellipsis, 1),
    "ellipsis_mid": (0, Ellipsis, slice(1, None)),
    "none": (None,),
    "none_mid": (slice(None), None, 1),
    "combo": (slice(-2, None), None, slice(None, None, 2), 1),
    "full": (slice(None),),
    "combo2": (1, Ellipsis, None, slice(0, 3, 2)),
}
for _n, _ix in _INDEX.items():
    _shape = (3, 4, 5) if _n in ("ellipsis", "ellipsis_mid", "combo", "combo2") else (4, 5)
    OPS.append(
        OpInfo(
            f"getitem_{_n}",
            one(lambda r, s=_shape: Sample(r.any(*s))),
            op=lambda m, x, ix=_ix: x[ix],
        )
    )
OPS += [
    OpInfo(
        "getitem_chain",
        one(lambda r: Sample(r.any(3, 4))),
        op=lambda m, x: x[1][2:] * x[1:, ::2][0, 1],
    ),
    OpInfo("getitem_overlap", one(lambda r: Sample(r.any(3, 4))), op=lambda m, x: x[0:2] * x[1:3]),
    OpInfo(
        "getitem_tensor",
        one(
            lambda r: Sample(r.any(3, 4), C([2, 0, 2])),
            lambda r: Sample(r.any(3, 4), C([1, 1, -1])),
        ),
        op=lambda m, x, i: x[i] * x[:, i].sum(),
    ),
    OpInfo(
        "getitem_mask",
        one(lambda r: Sample(r.any(3, 4), C(r.rng.uniform(size=(3, 4)) > 0.4))),
        op=lambda m, x, k: x[k],
    ),
]

# -- triangles and diagonals ------------------------------------------------------------------

OPS += [
    OpInfo(
        "tril",
        one(
            lambda r: Sample(r.any(3, 4)),
            lambda r: Sample(r.any(2, 3, 3), -1),
            lambda r: Sample(r.any(3, 4), 1, t=(0,)),
        ),
    ),
    OpInfo("triu", one(lambda r: Sample(r.any(3, 4)), lambda r: Sample(r.any(2, 3, 3), 1))),
    OpInfo(
        "diagonal",
        one(
            lambda r: Sample(r.any(3, 4)),
            lambda r: Sample(r.any(3, 4), 1),
            lambda r: Sample(r.any(2, 3, 3), 0, 1, 2),
        ),
    ),
    OpInfo("diag", one(lambda r: Sample(r.any(3, 4)), lambda r: Sample(r.any(3), 1))),
    OpInfo("diag_embed", one(lambda r: Sample(r.any(2, 3)), lambda r: Sample(r.any(3), -1))),
    OpInfo("trace", one(lambda r: Sample(r.any(3, 4)))),
]

# -- sorting and selection ---------------------------------------------------------------

OPS += [
    OpInfo(
        "sort",
        one(
            lambda r: Sample(r.distinct(3, 4), 1),
            lambda r: Sample(r.distinct(3, 4), 0, descending=True),
        ),
        op=lambda m, x, *a, **kw: m.sort(x, *a, **kw).values,
    ),
    OpInfo("msort", one(lambda r: Sample(r.distinct(3, 4)))),
    OpInfo(
        "topk",
        one(
            lambda r: Sample(r.distinct(3, 4), 2),
            lambda r: Sample(r.distinct(3, 4), 2, dim=0, largest=False),
        ),
        op=lambda m, x, k, **kw: m.topk(x, k, **kw).values,
    ),
    OpInfo(
        "kthvalue",
        one(lambda r: Sample(r.distinct(3, 4), 2), lambda r: Sample(r.distinct(3, 4), 1, 0, True)),
        op=lambda m, x, *a: m.kthvalue(x, *a).values,
    ),
]

# -- products ------------------------------------------------------------------------------

_MATMUL = [
    ((4,), (4,)), ((3, 4), (4,)), ((3,), (3, 4)), ((3, 4), (4, 2)), ((2, 3, 4), (2, 4, 2)),
    ((2, 3, 4), (4, 2)), ((3, 4), (2, 4, 2)), ((2, 3, 4), (4,)), ((3,), (2, 3, 4)),
    ((2, 1, 3, 4), (5, 4, 2)), ((1, 3, 4), (2, 4, 2)),
]  # fmt: skip
OPS += [
    OpInfo(
        "matmul",
        lambda r: (
            [Sample(r.any(*a), r.any(*b)) for a, b in _MATMUL]
            + [
                Sample(r.any(3, 4), r.any(4, 2), t=(0,)),
                Sample(r.any(3, 4), r.any(4, 2), method=True),
            ]
        ),
        method="matmul",
    ),
    OpInfo("matmul_operator", one(lambda r: Sample(r.any(3, 4))), op=lambda m, a: a @ a.T),
    OpInfo(
        "mm",
        one(
            lambda r: Sample(r.any(3, 4), r.any(4, 2)),
            lambda r: Sample(r.any(3, 4), r.any(4, 2), t=(1,)),
        ),
    ),
    OpInfo("bmm", one(lambda r: Sample(r.any(2, 3, 4), r.any(2, 4, 2)))),
    OpInfo("dot", one(lambda r: Sample(r.any(4), r.any(4)))),
    OpInfo(
        "outer",
        one(
            lambda r: Sample(r.any(3), r.any(4), method=True), lambda r: Sample(r.any(3), r.any(4))
        ),
        method="outer",
    ),
    OpInfo(
        "nn.functional.linear",
        one(
            lambda r: Sample(r.any(3, 4), r.any(2, 4), r.any(2)),
            lambda r: Sample(r.any(2, 3, 4), r.any(2, 4)),
            lambda r: Sample(r.any(4), r.any(2, 4), r.any(2)),
            lambda r: Sample(r.any(3, 4), r.any(2, 4), r.any(1)),
            lambda r: Sample(r.any(0, 4), r.any(2, 4), r.any(2)),
        ),
    ),
    OpInfo(
        "addmm",
        one(
            lambda r: Sample(r.any(3, 2), r.any(3, 4), r.any(4, 2)),
            lambda r: Sample(r.any(2), r.any(3, 4), r.any(4, 2), beta=0.5, alpha=2.0),
        ),
    ),
    OpInfo(
        "baddbmm", one(lambda r: Sample(r.any(2, 3, 2), r.any(2, 3, 4), r.any(2, 4, 2), alpha=0.5))
    ),
    OpInfo(
        "tensordot",
        one(
            lambda r: Sample(r.any(2, 3, 4), r.any(3, 4, 2), dims=2),
            lambda r: Sample(r.any(2, 3), r.any(3, 2), dims=([1], [0])),
        ),
    ),
    OpInfo("kron", one(lambda r: Sample(r.any(2, 2), r.any(2, 3)))),
    OpInfo(
        "cdist",
        one(
            lambda r: Sample(r.distinct(3, 2), r.distinct(4, 2) + 0.05),
            lambda r: Sample(r.distinct(3, 2), r.distinct(2, 2) + 0.05, p=1.0),
        ),
    ),
]

_EINSUM = {
    "ij,jk->ik": ((3, 4), (4, 2)),
    "ij,kj->ki": ((2, 3), (3, 3)),
    "bij,bjk->bik": ((2, 2, 3), (2, 3, 2)),
    "ii,i->i": ((2, 2), (2,)),
    "ij,j->j": ((2, 3), (3,)),
    "iij->ji": ((2, 2, 3),),
    "ij,jk,k->i": ((2, 3), (3, 2), (2,)),
    "...i,i": ((2, 4), (4,)),
    "ij,ij->": ((3, 4), (3, 4)),
}
OPS.append(
    OpInfo(
        "einsum",
        lambda r: [Sample(eq, *[r.any(*s) for s in shapes]) for eq, shapes in _EINSUM.items()],
        op=lambda m, eq, *xs: m.einsum(eq, *xs),
    )
)

# -- losses -------------------------------------------------------------------------------

_W = C([0.5, 2.0, 1.0, 1.5])
_W5 = C([0.7, 1.3, 0.2, 1.0, 0.5])
# cross-entropy options over 5 classes (target 4 is ignored where ignore_index=4)
_CE5 = [
    dict(label_smoothing=0.2),
    dict(weight=_W5),
    dict(weight=_W5, label_smoothing=0.1),
    dict(reduction="sum", label_smoothing=0.1),
    dict(reduction="none", weight=_W5, label_smoothing=0.3),
    dict(ignore_index=4),
    dict(ignore_index=4, weight=_W5, label_smoothing=0.2),
]
_NLL5 = [dict(), dict(weight=_W5), dict(ignore_index=2), dict(reduction="none", weight=_W5)]


def _plus(samples, more):
    return lambda r: samples(r) + more(r)


def _reductions(a, b, **kw):
    """A pointwise loss's samples in the three reductions."""
    return lambda r: [
        Sample(getattr(r, a)(3, 4), getattr(r, b)(3, 4), reduction=red, **kw)
        for red in ("mean", "sum", "none")
    ]


_T = C([2, 0, 3])
_T_IGN = C([1, -1, 3])
_T3 = C([[2, 0], [1, 1]])
FN = "nn.functional."
OPS += [
    OpInfo(
        FN + "cross_entropy",
        _plus(
            one(
                lambda r: Sample(r.any(3, 4), _T),
                lambda r: Sample(r.any(3, 4), _T, weight=_W, reduction="sum"),
                lambda r: Sample(r.any(3, 4), _T_IGN, ignore_index=-1, reduction="none"),
                lambda r: Sample(r.any(3, 4), _T_IGN, _W, ignore_index=-1, label_smoothing=0.2),
                lambda r: Sample(r.any(2, 3, 2), _T3, reduction="none", label_smoothing=0.3),
                lambda r: Sample(r.any(4), C(2)),
                lambda r: Sample(r.any(3, 4), r.rng.dirichlet(np.ones(4), 3)),
                lambda r: Sample(
                    r.any(3, 4),
                    r.rng.dirichlet(np.ones(4), 3),
                    _W,
                    reduction="sum",
                    label_smoothing=0.1,
                ),
            ),
            lambda r: (
                [Sample(r.any(3, 5), C([0, 4, 2]), **kw) for kw in _CE5]
                + [Sample(r.any(3, 5), r.prob(3, 5), **kw) for kw in _CE5[:5]]
                + [Sample(r.any(2, 3, 4), C([[0, 2, 1, 2], [2, 2, 0, 1]]), ignore_index=2)]
            ),
        ),
    ),
    OpInfo(
        FN + "nll_loss",
        _plus(
            one(
                lambda r: Sample(r.any(3, 4), _T, _W),
                lambda r: Sample(r.any(3, 4), _T_IGN, ignore_index=-1, reduction="sum"),
                lambda r: Sample(r.any(2, 3, 2), _T3, reduction="none"),
            ),
            lambda r: [Sample(r.any(3, 5), C([0, 4, 2]), **kw) for kw in _NLL5],
        ),
    ),
    OpInfo(FN + "mse_loss", _reductions("any", "any")),
    OpInfo(FN + "l1_loss", _reductions("distinct", "shifted")),
    OpInfo(
        FN + "smooth_l1_loss", _plus(_reductions("any", "any", beta=0.5), _reductions("any", "any"))
    ),
    OpInfo(
        FN + "huber_loss",
        _plus(_reductions("any", "any", delta=0.5), _reductions("any", "any", delta=0.3)),
    ),
    OpInfo(
        FN + "binary_cross_entropy",
        _plus(
            _reductions("prob", "prob"),
            one(lambda r: Sample(r.prob(3, 4), r.prob(3, 4), weight=_W, reduction="none")),
        ),
    ),
    OpInfo(
        FN + "binary_cross_entropy_with_logits",
        _plus(
            _reductions("any", "prob"),
            one(
                lambda r: Sample(
                    r.any(3, 4),
                    r.prob(3, 4),
                    weight=_W,
                    pos_weight=C([1.0, 4.0, 2.0, 3.0]),
                    reduction="none",
                )
            ),
        ),
    ),
    OpInfo(
        FN + "kl_div",
        one(
            lambda r: Sample(r.any(3, 4), r.prob(3, 4), reduction="batchmean"),
            lambda r: Sample(r.any(3, 4), r.any(3, 4), reduction="sum", log_target=True),
        ),
    ),
    OpInfo(
        FN + "cosine_similarity",
        one(
            lambda r: Sample(r.any(3, 4), r.any(3, 4)),
            lambda r: Sample(r.any(3, 4), r.any(4), dim=-1),
        ),
    ),
    OpInfo(
        FN + "normalize",
        one(lambda r: Sample(r.any(3, 4)), lambda r: Sample(r.any(3, 4), p=1.0, dim=0)),
    ),
]

# -- layers (nn.functional) -------------------------------------------------------------
OPS += [
    OpInfo(
        FN + "layer_norm",
        one(
            lambda r: Sample(r.any(2, 3, 4), (4,), r.any(4), r.any(4)),
            lambda r: Sample(r.any(3, 4), (3, 4)),
        ),
    ),
    OpInfo(FN + "group_norm", one(lambda r: Sample(r.any(2, 4, 3), 2, r.any(4), r.any(4)))),
    OpInfo(FN + "rms_norm", one(lambda r: Sample(r.any(2, 3, 4), (4,), r.any(4)))),
    OpInfo(
        FN + "conv1d", one(lambda r: Sample(r.any(2, 2, 5), r.any(3, 2, 3), r.any(3), padding=1))
    ),
    OpInfo(
        FN + "conv2d",
        one(lambda r: Sample(r.any(1, 2, 4, 4), r.any(3, 2, 2, 2), r.any(3), stride=2)),
    ),
    OpInfo(FN + "avg_pool2d", one(lambda r: Sample(r.any(1, 2, 4, 4), 2))),
    OpInfo(
        FN + "scaled_dot_product_attention",
        one(
            lambda r: Sample(r.any(1, 2, 3, 4), r.any(1, 2, 5, 4), r.any(1, 2, 5, 4)),
            lambda r: Sample(
                r.any(2, 1, 4, 3), r.any(2, 1, 4, 3), r.any(2, 1, 4, 2), is_causal=True
            ),
        ),
    ),
    OpInfo(FN + "max_pool2d", one(lambda r: Sample(r.distinct(1, 2, 4, 4), 2))),
    OpInfo(
        FN + "pad",
        one(
            lambda r: Sample(r.any(2, 3), (1, 2)),
            lambda r: Sample(r.any(1, 2, 3), (1, 0, 0, 1), value=0.5),
        ),
    ),
    OpInfo(FN + "pairwise_distance", one(lambda r: Sample(r.any(3, 4), r.any(3, 4)))),
    OpInfo(FN + "embedding", one(lambda r: Sample(C([[0, 2], [1, 2]]), r.any(3, 4)))),
    OpInfo(
        FN + "gaussian_nll_loss",
        one(lambda r: Sample(r.any(3, 4), r.any(3, 4), r.pos(3, 4))),
        # a bug: it reads its CUDA arguments as NumPy arrays
        unsupported={"cuda": Unsupported("computes on the host", raises=(TypeError, "cuda"))},
    ),
    OpInfo(FN + "poisson_nll_loss", one(lambda r: Sample(r.any(3, 4), r.pos(3, 4)))),
    OpInfo(
        FN + "margin_ranking_loss",
        one(lambda r: Sample(r.distinct(5), r.shifted(5), C([1.0, -1.0, 1.0, 1.0, -1.0]))),
    ),
]

# -- linear algebra (LAPACK on the host: CPU only) -------------------------------------------


def _well(r, *shape):
    """Well-conditioned square matrices."""
    n = shape[-1]
    return r.any(*shape) * 0.3 + np.eye(n) * 1.5


_LA = {"cuda": CPU_ONLY_LINALG, "fwad": NO_FWAD_LINALG}
OPS += [
    OpInfo(
        "linalg.det",
        one(lambda r: Sample(_well(r, 3, 3)), lambda r: Sample(_well(r, 2, 2, 2))),
        unsupported=_LA,
    ),
    OpInfo("logdet", one(lambda r: Sample(_well(r, 3, 3))), unsupported=_LA),
    OpInfo(
        "linalg.slogdet",
        one(lambda r: Sample(_well(r, 3, 3))),
        op=lambda m, a: m.linalg.slogdet(a).logabsdet,
        unsupported=_LA,
    ),
    OpInfo(
        "linalg.inv",
        one(lambda r: Sample(_well(r, 3, 3)), lambda r: Sample(_well(r, 2, 2, 2), t=(0,))),
        unsupported=_LA,
    ),
    OpInfo(
        "linalg.solve",
        one(
            lambda r: Sample(_well(r, 3, 3), r.any(3, 2)),
            lambda r: Sample(_well(r, 3, 3), r.any(3)),
            lambda r: Sample(_well(r, 3, 3), r.any(2, 3), left=False),
        ),
        unsupported=_LA,
    ),
    OpInfo(
        "linalg.cholesky",
        one(lambda r: Sample(r.any(3, 3))),
        op=lambda m, a: m.linalg.cholesky(_spd(m, a)),
        unsupported=_LA,
    ),
    OpInfo(
        "linalg.eigvalsh",
        one(lambda r: Sample(r.distinct(3, 3))),
        op=lambda m, a: m.linalg.eigvalsh(_sym(a)),
        unsupported=_LA,
    ),
    OpInfo(
        "linalg.eigh",
        one(lambda r: Sample(r.distinct(3, 3))),
        op=lambda m, a: m.linalg.eigh(_sym(a)).eigenvalues,
        unsupported=_LA,
    ),
    OpInfo("linalg.svdvals", one(lambda r: Sample(r.distinct(3, 2))), unsupported=_LA),
    OpInfo(
        "linalg.qr",
        one(lambda r: Sample(_well(r, 3, 3))),
        op=lambda m, a: m.linalg.qr(a).R,
        unsupported=_LA,
    ),
    OpInfo("linalg.pinv", one(lambda r: Sample(_well(r, 3, 3)[:, :2])), unsupported=_LA),
    OpInfo(
        "linalg.vector_norm",
        one(lambda r: Sample(r.nonzero(3, 4)), lambda r: Sample(r.nonzero(3, 4), 3, dim=1)),
    ),
    OpInfo(
        "linalg.matrix_norm",
        one(lambda r: Sample(r.any(3, 4)), lambda r: Sample(r.distinct(3, 4), 1)),
    ),
]

# -- user-defined Functions ----------------------------------------------------------------------

_CUSTOM_UNSUPPORTED = {"fwad": NO_FWAD_CUSTOM}
OPS += [
    OpInfo(
        "custom_cube",
        unary(),
        op=lambda m, x: custom(m, "cube").apply(x),
        unsupported=_CUSTOM_UNSUPPORTED,
    ),
    OpInfo(
        "custom_in_chain",
        one(lambda r: Sample(r.any(3, 4))),
        op=lambda m, x: custom(m, "cube").apply(x.sin()).sum(0) * 2,
        unsupported=_CUSTOM_UNSUPPORTED,
    ),
    OpInfo(
        "custom_bcast_grad",
        one(lambda r: Sample(r.any(3, 4), r.any(4))),
        op=lambda m, x, w: custom(m, "rowscale").apply(x, 1.5, w),
        unsupported=_CUSTOM_UNSUPPORTED,
    ),
]

# what nbgrad.compile refuses (docs/compile.md), with its reason: a CompileError
_NOT_COMPILED = {
    "tensors made inside the op (masks, constants) are neither arguments nor parameters": (
        "neither an argument nor a parameter",
        "nan_to_num remainder fmod atan2_0d maximum_0d minimum_0d masked_fill tril triu "
        "diag_embed nn.functional.kl_div logdet linalg.cholesky nn.functional.gaussian_nll_loss "
        "nn.functional.margin_ranking_loss",
    ),
    "positions computed on the host from values would be frozen": (
        "positions|an index computed on the host",
        "max_dim min_dim nn.functional.max_pool2d cummax cummin roll repeat_interleave "
        "masked_select index_put sort msort topk kthvalue",
    ),
    "a diagonal's gather row has no compiled replay": (
        "take_TakeBackward0",
        "diagonal diag trace",
    ),
    "where's condition must be an argument of the result's shape": ("condition", "where lerp"),
    "a custom Function's backward is Python": (
        "custom autograd.Function",
        "linalg.det linalg.slogdet linalg.inv linalg.solve linalg.eigvalsh linalg.eigh "
        "linalg.svdvals linalg.qr linalg.pinv custom_cube custom_in_chain custom_bcast_grad",
    ),
}
_BY_NAME = {o.name: o for o in OPS}
for _why, (_match, _names) in _NOT_COMPILED.items():
    for _n in _names.split():
        _BY_NAME[_n].unsupported["compile"] = Unsupported(_why, raises=(RuntimeError, _match))
_BY_NAME["floor_divide"].unsupported["compile"] = _BY_NAME["floor_divide"].unsupported["grad"]

BY_NAME = {o.name: o for o in OPS}
assert len(BY_NAME) == len(OPS), "op names must be unique"
