"""Broadcasting binary kernels and sum/mean VJPs walked by rows (backends/cpu/broadcast.py)
on the layouts that take each branch: an operand along the row or one value per row,
merged dims, reductions over outer and inner dims, and arrays large enough for the
parallel forward. Values and gradients against NumPy closed forms (tests/
test_broadcast_props.py covers small random shapes)."""

import numpy as np
import pytest

import nbgrad

rng = np.random.default_rng(5)

SHAPES = [
    ((4096, 100), (4096, 1)),  # one value per row (x - x.mean(-1, keepdim=True))
    ((4096, 100), (100,)),  # a bias along the row, summed over rows
    ((64, 16, 8, 8), (1, 16, 1, 1)),  # a conv bias: (64, 16, 64) after merging dims
    ((3, 1, 5), (1, 4, 1)),  # both operands broadcast
    ((1, 7), (6, 1)),
    ((2, 3, 4), (4,)),
]


def _sum_to(g, shape):
    """Sum g down to `shape` (the reverse of broadcasting)."""
    lead = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(lead))) if lead else g
    axes = tuple(d for d, n in enumerate(shape) if n == 1 and g.shape[d] != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


RULES = {  # forward, d/da, d/db
    "add": (np.add, lambda a, b: np.ones_like(a + b), lambda a, b: np.ones_like(a + b)),
    "sub": (np.subtract, lambda a, b: np.ones_like(a + b), lambda a, b: -np.ones_like(a + b)),
    "mul": (np.multiply, lambda a, b: b + 0 * a, lambda a, b: a + 0 * b),
    "div": (np.divide, lambda a, b: 1 / b + 0 * a, lambda a, b: -a / (b * b)),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", list(RULES))
@pytest.mark.parametrize("sa,sb", SHAPES)
@pytest.mark.parametrize("swap", [False, True])
def test_values_and_gradients(sa, sb, op, dtype, swap):
    if swap:
        sa, sb = sb, sa
    a = rng.uniform(0.5, 1.5, sa).astype(dtype)
    b = rng.uniform(0.5, 1.5, sb).astype(dtype)
    f, da, db = RULES[op]
    ta, tb = nbgrad.tensor(a, requires_grad=True), nbgrad.tensor(b, requires_grad=True)
    y = getattr(nbgrad, op)(ta, tb)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(y.detach().numpy(), f(a, b), **tol)
    g = rng.standard_normal(y.shape).astype(dtype)
    y.backward(nbgrad.tensor(g))
    a64, b64, g64 = a.astype(np.float64), b.astype(np.float64), g.astype(np.float64)
    rt = dict(rtol=1e-4, atol=1e-3) if dtype == np.float32 else tol
    np.testing.assert_allclose(ta.grad.numpy(), _sum_to(g64 * da(a64, b64), sa), **rt)
    np.testing.assert_allclose(tb.grad.numpy(), _sum_to(g64 * db(a64, b64), sb), **rt)


def test_empty_output_zeroes_gradients():
    a = nbgrad.tensor(np.ones((1, 3)), requires_grad=True)
    b = nbgrad.tensor(np.ones((0, 1)), requires_grad=True)
    y = a * b
    assert y.shape == (0, 3)
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros((1, 3)))
    assert b.grad.shape == (0, 1)


@pytest.mark.parametrize("dims", [(-1,), (0,), (1,), (0, 2), (1, 2)])
def test_mean_over_dims_gradient(dims):
    x = rng.standard_normal((40, 30, 20))
    t = nbgrad.tensor(x, requires_grad=True)
    y = t.mean(dims, keepdim=True)
    g = rng.standard_normal(y.shape)
    y.backward(nbgrad.tensor(g))
    count = np.prod([x.shape[d] for d in dims])
    np.testing.assert_allclose(t.grad.numpy(), np.broadcast_to(g / count, x.shape), rtol=1e-14)


def test_accumulates_into_a_gradient_written_before():
    """A second use of an operand adds to what its first use wrote."""
    x = nbgrad.tensor(rng.standard_normal((50, 40)), requires_grad=True)
    mu = x.mean(-1, keepdim=True)
    y = (x - mu) * x
    g = rng.standard_normal(y.shape)
    y.backward(nbgrad.tensor(g))
    xd = x.detach().numpy()
    c = xd - xd.mean(-1, keepdims=True)
    want = g * c + g * xd - (g * xd).sum(-1, keepdims=True) / 40
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-10, atol=1e-12)
