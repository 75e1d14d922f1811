"""The elementwise ops of issue 3: gradcheck, torch parity, integer behaviour."""

import numpy as np
import pytest
from test_ops_helpers import T, gradcheck, needs_torch, parity, torch

import nbgrad

rng = np.random.default_rng(1)
X = rng.uniform(-0.9, 0.9, (3, 4))
POS = rng.uniform(0.2, 2.0, (3, 4))

UNARY = [
    ("square", X),
    ("exp2", X),
    ("log2", POS),
    ("log10", POS),
    ("log1p", POS),
    ("expm1", X),
    ("reciprocal", POS),
    ("rsqrt", POS),
    ("sinh", X),
    ("cosh", X),
    ("tan", X),
    ("asin", X),
    ("acos", X),
    ("atan", X),
    ("erf", X),
    ("sign", X),
    ("floor", X * 3),
    ("ceil", X * 3),
    ("round", X * 3),
    ("silu", X),
]


@pytest.mark.parametrize("name,x", UNARY, ids=[u[0] for u in UNARY])
def test_unary_gradcheck(name, x):
    gradcheck(getattr(nbgrad, name), x)
    if name != "silu":  # torch has no Tensor.silu
        gradcheck(lambda t: getattr(t, name)(), x)


@needs_torch
@pytest.mark.parametrize("name,x", UNARY, ids=[u[0] for u in UNARY])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_parity(name, x, dtype):
    tol = 2e-6 if dtype == np.float32 else 1e-12
    ft = torch.nn.functional.silu if name == "silu" else getattr(torch, name)
    parity(getattr(nbgrad, name), ft, x.astype(dtype), rtol=tol, atol=tol)


def test_atan2_maximum_minimum_gradcheck():
    b = rng.uniform(0.1, 1, (3, 4))
    gradcheck(nbgrad.atan2, X, b)
    gradcheck(nbgrad.atan2, X, b[:1])
    gradcheck(nbgrad.maximum, X, b * 0.3)
    gradcheck(nbgrad.minimum, X[:, :1], b * 0.3)


@needs_torch
def test_binary_parity_with_ties():
    a = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 5.0]])
    b = np.array([[1.0, 3.0, 2.0], [0.0, 0.0, 5.0]])
    for name in ("maximum", "minimum", "atan2"):
        parity(getattr(nbgrad, name), getattr(torch, name), a, b, rtol=1e-12)
    parity(nbgrad.maximum, torch.maximum, a, b[:1], rtol=1e-12)


@needs_torch
def test_integer_inputs():
    i = np.array([-3, 0, 2])
    for name in ("square", "sign", "floor", "ceil", "round", "exp2", "log1p", "sqrt"):
        got = getattr(nbgrad, name)(T(i))
        want = getattr(torch, name)(torch.tensor(i))
        assert got.dtype.name == str(want.dtype).split(".")[-1], name
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(
        nbgrad.maximum(T(i), T(i[::-1].copy())).numpy(), np.maximum(i, i[::-1])
    )
    with pytest.raises(RuntimeError, match="floating point"):
        T(i).requires_grad_(True)


@needs_torch
def test_round_decimals_and_half_even():
    x = np.array([0.5, 1.5, 2.5, -0.5, 1.2345])
    np.testing.assert_array_equal(nbgrad.round(T(x)).numpy(), torch.round(torch.tensor(x)))
    np.testing.assert_allclose(
        nbgrad.round(T(x), decimals=2).numpy(), torch.round(torch.tensor(x), decimals=2).numpy()
    )


def test_dtype_promotion():
    a32 = T(X.astype(np.float32), True)
    b64 = T(X, True)
    assert (a32 * b64).dtype is nbgrad.float64
    assert (a32 * 2.5).dtype is nbgrad.float32
    assert nbgrad.atan2(a32, b64).dtype is nbgrad.float64
    assert (T(np.array([1, 2])) * 1.5).dtype is nbgrad.get_default_dtype()
    (nbgrad.atan2(a32, b64)).sum().backward()
    assert a32.grad.dtype is nbgrad.float32 and b64.grad.dtype is nbgrad.float64
