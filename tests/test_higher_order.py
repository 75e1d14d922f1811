"""create_graph, batched cotangents and double backward through every op (tests/higher.py).

Each case is one op family; `test_every_op_has_a_differentiable_vjp` checks that the cases
below, with those of test_higher_ops.py, put every op of the op table on the tape.
"""

import numpy as np
import pytest
from higher import check_higher

import nbgrad

rng = np.random.default_rng(0)
X = rng.uniform(-1, 1, (3, 4))
Y = rng.uniform(-1, 1, (3, 4))
P = rng.uniform(0.5, 2, (3, 4))
ROW = rng.uniform(-1, 1, (1, 4))

UNARY = [
    "neg",
    "exp",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "sinh",
    "cosh",
    "atan",
    "erf",
    "silu",
    "square",
    "expm1",
    "reciprocal",
]
POSITIVE = ["log", "sqrt", "log2", "log10", "log1p", "rsqrt", "exp2"]
BOUNDED = ["asin", "acos", "tan"]  # |x| < 1


@pytest.mark.parametrize("name", UNARY + POSITIVE + BOUNDED)
def test_unary(name):
    a = P if name in POSITIVE else X * 0.8 if name in BOUNDED else X
    check_higher(lambda x: getattr(nbgrad, name)(x), a)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: a + b,
        lambda a, b: a - b,
        lambda a, b: a * b,
        lambda a, b: a / (b + 3),
        lambda a, b: (a + 2) ** b,
        lambda a, b: nbgrad.atan2(a, b),
        lambda a, b: nbgrad.maximum(a, b) * a,
        lambda a, b: nbgrad.minimum(a, b) * b,
    ],
    ids=["add", "sub", "mul", "div", "pow", "atan2", "maximum", "minimum"],
)
def test_binary_broadcast(fn):
    check_higher(fn, X, ROW)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: a * 2.5 - 1.0,
        lambda a: 2.0 / (a + 3) + 1.0 - a,
        lambda a: (a + 2) ** 1.5 + 1.7**a,
        lambda a: nbgrad.atan2(a, 0.5) + nbgrad.atan2(0.5, a),
        lambda a: (
            nbgrad.maximum(a, nbgrad.tensor(0.1)) * a + nbgrad.minimum(nbgrad.tensor(0.2), a) * a
        ),
        lambda a: nbgrad.relu(a) * a + nbgrad.abs(a) * a,
        lambda a: nbgrad.nn.functional.gelu(a) + nbgrad.nn.functional.gelu(a, approximate="tanh"),
        lambda a: (nbgrad.floor(a) + nbgrad.ceil(a) + nbgrad.round(a) + nbgrad.sign(a)) * a,
    ],
    ids=[
        "scalar-mul-sub",
        "scalar-div",
        "scalar-pow",
        "scalar-atan2",
        "scalar-max-min",
        "relu-abs",
        "gelu",
        "rounding",
    ],
)
def test_scalar_operands(fn):
    check_higher(fn, X, atol=1e-6)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: (a * a).sum(),
        lambda a: (a * a).sum(1),
        lambda a: (a * a).sum((0, 1), keepdim=True),
        lambda a: (a * a).mean(),
        lambda a: (a * a).mean(0, keepdim=True),
    ],
    ids=["sum", "sum_dim", "sum_keep", "mean", "mean_dim"],
)
def test_reductions(fn):
    check_higher(fn, X)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: a.reshape(4, 3) * a.reshape(4, 3),
        lambda a: a.unsqueeze(1).squeeze() * a.flatten().view(3, 4),
        lambda a: a.unsqueeze(0).squeeze(0) * a.clone(),
        lambda a: a[1:, ::2] * a[:2, 1:3],
        lambda a: a[1] * a[:, 0:4][0],
        lambda a: a.t() @ a.transpose(0, 1).T,
        lambda a: a.permute(1, 0) * a.T,
        lambda a: a[:1].expand(3, 4) * a,
        lambda a: a[None, :, None] * a[:, None],
    ],
    ids=["view", "squeeze", "clone", "slice", "select", "t", "permute", "expand", "index"],
)
def test_views(fn):
    check_higher(fn, X)


@pytest.mark.parametrize(
    "shapes",
    [
        ((4,), (4,)),
        ((3, 4), (4,)),
        ((4,), (4, 2)),
        ((3, 4), (4, 2)),
        ((2, 3, 4), (2, 4, 2)),
        ((2, 3, 4), (4, 2)),
        ((4,), (2, 4, 3)),
        ((2, 1, 3, 4), (3, 4, 2)),
    ],
    ids=["dot", "mv", "vm", "mm", "bmm", "batched", "v-bmm", "broadcast"],
)
def test_matmul(shapes):
    a, b = (rng.uniform(-1, 1, s) for s in shapes)
    check_higher(lambda x, y: nbgrad.tanh(x @ y), a, b)


def test_bmm_and_linear():
    a, b = rng.uniform(-1, 1, (2, 3, 4)), rng.uniform(-1, 1, (2, 4, 2))
    check_higher(lambda x, y: nbgrad.sin(nbgrad.bmm(x, y)), a, b)
    F = nbgrad.nn.functional
    w, bias = rng.uniform(-1, 1, (2, 4)), rng.uniform(-1, 1, 2)
    check_higher(lambda x, w, b: nbgrad.tanh(F.linear(x, w, b)), X, w, bias)
    check_higher(lambda x, w: nbgrad.tanh(F.linear(x, w)), rng.uniform(-1, 1, (2, 3, 4)), w)


def test_dtype_cast_double_backward():
    """d2/dx2 sum((x as float64)^3) = 6x, through the float32 -> float64 cast row."""
    x32 = rng.uniform(-1, 1, 5).astype(np.float32)
    x = nbgrad.tensor(x32, requires_grad=True)
    (g,) = nbgrad.autograd.grad((x.to(nbgrad.float64) ** 3).sum(), x, create_graph=True)
    assert g.dtype == nbgrad.float32
    np.testing.assert_allclose(g.detach().numpy(), 3 * x32.astype(np.float64) ** 2, rtol=1e-6)
    (h,) = nbgrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6 * x32.astype(np.float64), rtol=1e-6)


def test_every_op_has_a_differentiable_vjp():
    """create_graph, batched VJPs and forward mode need a differentiable VJP for each op of
    the op table (their behaviour is checked per op here and in test_higher_ops_*.py)."""
    from nbgrad.autograd.graph import _ensure_loaded
    from nbgrad.ops.registry import OPS

    _ensure_loaded()
    from nbgrad.autograd.derivatives import DVJP

    # custom: the user's backward; device moves: the Python sweep refuses GPU graphs
    # (test_cuda.py::test_higher_order_refused)
    skip = ("custom", "to_cuda", "to_cpu")
    missing = [o.name for o in OPS if o.name not in skip and o.name not in DVJP]
    assert not missing, missing


def test_pure_python_subpackages_hold_no_compiled_code():
    """Editing nbgrad/autograd, nn or func must not need recompiled kernels (_cache.py
    leaves them out of the cache key), so they may not define Numba code."""
    from pathlib import Path

    from nbgrad import _cache

    root = Path(nbgrad.__file__).parent
    for sub in _cache.PURE_PYTHON:
        for p in (root / sub).rglob("*.py"):
            text = p.read_text()
            assert "numba" not in text and "njit" not in text, p


def test_backward_create_graph_leaves_a_differentiable_grad():
    """x.grad from backward(create_graph=True) has a graph: d/dx sum(d/dx sum x^3) = 6x."""
    x = nbgrad.tensor(X, requires_grad=True)
    (x**3).sum().backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.grad_fn is not None
    np.testing.assert_allclose(x.grad.detach().numpy(), 3 * X**2)
    g = x.grad
    x.grad = None
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * X)


def test_double_backward_after_freeing_raises_torch_error():
    x = nbgrad.tensor(X, requires_grad=True)
    y = nbgrad.sin(x).sum()
    nbgrad.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        nbgrad.autograd.grad(y, x, create_graph=True)
