"""Property tests over broadcast shapes: values and gradients against NumPy.

Shapes come from hypothesis (`mutually_broadcastable_shapes`, sides 0-4, ranks 0-4);
values from a seeded NumPy generator. Runs are derandomized, so the suite is
deterministic.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import nbgrad

SETTINGS = settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
DTYPES = st.sampled_from([np.float32, np.float64])
TWO_SHAPES = hnp.mutually_broadcastable_shapes(
    num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=4
)


def sum_to(g, shape):
    """Reduce a broadcast gradient back to `shape` (what a broadcast's VJP must do)."""
    lead = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(lead))) if lead else g
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


def tol(dt):
    return {"rtol": 1e-5, "atol": 1e-5} if dt == np.float32 else {"rtol": 1e-12, "atol": 1e-12}


OPS = {
    "add": (lambda a, b: a + b, lambda a, b, g: (g, g)),
    "sub": (lambda a, b: a - b, lambda a, b, g: (g, -g)),
    "mul": (lambda a, b: a * b, lambda a, b, g: (g * b, g * a)),
    "div": (lambda a, b: a / b, lambda a, b, g: (g / b, -g * a / (b * b))),
    "pow": (lambda a, b: a**b, lambda a, b, g: (g * b * a ** (b - 1), g * a**b * np.log(a))),
}


@pytest.mark.parametrize("op", list(OPS))
@SETTINGS
@given(shapes=TWO_SHAPES, dtype=DTYPES, seed=st.integers(0, 2**16))
def test_binary_broadcast_values_and_grads(op, shapes, dtype, seed):
    f, vjp = OPS[op]
    (sa, sb), out_shape = shapes.input_shapes, shapes.result_shape
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.5, 2.0, sa).astype(dtype)  # positive: a valid base for pow
    b = (rng.uniform(0.5, 2.0, sb) * rng.choice([-1, 1], sb)).astype(dtype)
    ta = nbgrad.tensor(a, requires_grad=True)
    tb = nbgrad.tensor(b, requires_grad=True)
    out = f(ta, tb)
    with np.errstate(all="ignore"):
        want = f(a, b)
    assert tuple(out.shape) == out_shape == want.shape
    assert out.detach().numpy().dtype == dtype
    np.testing.assert_allclose(out.detach().numpy(), want, **tol(dtype))

    g = rng.standard_normal(out_shape).astype(dtype)
    out.backward(nbgrad.tensor(g))
    with np.errstate(all="ignore"):
        ga, gb = vjp(a, b, g)
    ga = sum_to(np.broadcast_to(ga, out_shape), sa)
    gb = sum_to(np.broadcast_to(gb, out_shape), sb)
    assert tuple(ta.grad.shape) == sa and tuple(tb.grad.shape) == sb
    assert ta.grad.dtype is ta.dtype and tb.grad.dtype is tb.dtype
    np.testing.assert_allclose(ta.grad.numpy(), ga, **tol(dtype))
    np.testing.assert_allclose(tb.grad.numpy(), gb, **tol(dtype))


@SETTINGS
@given(shapes=TWO_SHAPES, seed=st.integers(0, 2**16))
def test_add_gradient_sums_count_the_broadcast(shapes, seed):
    """With a ones cotangent, each input's gradient entry counts how often it was used, so
    the gradients sum to the output's size."""
    (sa, sb), out_shape = shapes.input_shapes, shapes.result_shape
    ta = nbgrad.zeros(*sa, requires_grad=True)
    tb = nbgrad.zeros(*sb, requires_grad=True)
    out = ta + tb
    out.backward(nbgrad.ones_like(out))
    n_out = int(np.prod(out_shape))
    na, nb = int(np.prod(sa)), int(np.prod(sb))
    assert ta.grad.numpy().sum() == (n_out if na else 0)
    assert tb.grad.numpy().sum() == (n_out if nb else 0)
    if na and n_out:
        np.testing.assert_array_equal(ta.grad.numpy(), np.full(sa, n_out // na))
    if nb and n_out:
        np.testing.assert_array_equal(tb.grad.numpy(), np.full(sb, n_out // nb))


@SETTINGS
@given(shapes=TWO_SHAPES, dtype=DTYPES, seed=st.integers(0, 2**16))
def test_mixed_dtypes_promote_and_cast_back(shapes, dtype, seed):
    (sa, sb), out_shape = shapes.input_shapes, shapes.result_shape
    rng = np.random.default_rng(seed)
    other = np.float64 if dtype == np.float32 else np.float32
    a = rng.standard_normal(sa).astype(dtype)
    b = rng.standard_normal(sb).astype(other)
    ta = nbgrad.tensor(a, requires_grad=True)
    tb = nbgrad.tensor(b, requires_grad=True)
    out = ta * tb
    # PyTorch: a 0-d operand does not promote a dimensioned one of the same category
    if len(sa) == 0 and len(sb) > 0:
        want_dt = other
    elif len(sb) == 0 and len(sa) > 0:
        want_dt = dtype
    else:
        want_dt = np.float64
    assert out.detach().numpy().dtype == want_dt
    assert tuple(out.shape) == out_shape
    out.backward(nbgrad.ones_like(out))
    assert ta.grad.numpy().dtype == dtype and tb.grad.numpy().dtype == other
    lo = {"rtol": 1e-5, "atol": 1e-5}
    np.testing.assert_allclose(ta.grad.numpy(), sum_to(np.broadcast_to(b, out_shape), sa), **lo)
    np.testing.assert_allclose(tb.grad.numpy(), sum_to(np.broadcast_to(a, out_shape), sb), **lo)


@SETTINGS
@given(shapes=TWO_SHAPES, seed=st.integers(0, 2**16))
def test_expand_is_broadcast(shapes, seed):
    (sa, _), out_shape = shapes.input_shapes, shapes.result_shape
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(sa)
    ta = nbgrad.tensor(a, requires_grad=True)
    y = ta.expand(*out_shape) if out_shape else ta.expand(())
    np.testing.assert_array_equal(y.detach().numpy(), np.broadcast_to(a, out_shape))
    g = rng.standard_normal(out_shape)
    y.backward(nbgrad.tensor(g))
    np.testing.assert_allclose(ta.grad.numpy(), sum_to(g, sa), rtol=1e-12, atol=1e-12)


@st.composite
def reductions(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4))
    nd = len(shape)
    dims = draw(
        st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd, unique_by=lambda d: d % nd)
    )
    keep = draw(st.booleans())
    return shape, tuple(dims), keep


@SETTINGS
@given(spec=reductions(), mean=st.booleans(), seed=st.integers(0, 2**16))
def test_sum_mean_over_dims(spec, mean, seed):
    shape, dims, keep = spec
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    ta = nbgrad.tensor(a, requires_grad=True)
    axes = tuple(d % len(shape) for d in dims)
    if mean:
        y = ta.mean(dims, keepdim=keep)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # mean of an empty slice: nan
            want = a.mean(axis=axes, keepdims=keep)
    else:
        y = ta.sum(dims, keepdim=keep)
        want = a.sum(axis=axes, keepdims=keep)
    assert tuple(y.shape) == want.shape
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-12, atol=1e-12, equal_nan=True)
    g = rng.standard_normal(want.shape)
    y.backward(nbgrad.tensor(g))
    gk = g if keep else np.expand_dims(g, axes)
    count = int(np.prod([shape[d] for d in axes]))
    want_g = np.broadcast_to(gk, shape) / (count if mean else 1)
    np.testing.assert_allclose(ta.grad.numpy(), want_g, rtol=1e-12, atol=1e-12)


@st.composite
def matmul_shapes(draw):
    batch = draw(
        hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3)
    )
    m, k, n = (draw(st.integers(1, 4)) for _ in range(3))
    ba, bb = batch.input_shapes
    a_vec, b_vec = draw(st.booleans()), draw(st.booleans())
    sa = (k,) if a_vec and not ba else ba + (m, k)
    sb = (k,) if b_vec and not bb else bb + (k, n)
    return sa, sb


@SETTINGS
@given(shapes=matmul_shapes(), dtype=DTYPES, seed=st.integers(0, 2**16))
def test_matmul_broadcast(shapes, dtype, seed):
    sa, sb = shapes
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(sa).astype(dtype)
    b = rng.standard_normal(sb).astype(dtype)
    ta = nbgrad.tensor(a, requires_grad=True)
    tb = nbgrad.tensor(b, requires_grad=True)
    out = ta @ tb
    want = a @ b
    assert tuple(out.shape) == want.shape
    lo = {"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else tol(dtype)
    np.testing.assert_allclose(out.detach().numpy(), want, **lo)
    g = rng.standard_normal(want.shape).astype(dtype)
    out.backward(nbgrad.tensor(g))
    a2 = a[None] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g2 = g.reshape((a2 @ b2).shape)
    ga = sum_to(g2 @ np.swapaxes(b2, -1, -2), a2.shape).reshape(sa)
    gb = sum_to(np.swapaxes(a2, -1, -2) @ g2, b2.shape).reshape(sb)
    np.testing.assert_allclose(ta.grad.numpy(), ga, **lo)
    np.testing.assert_allclose(tb.grad.numpy(), gb, **lo)
