"""Elementwise ops beyond their derivatives: ties, integer inputs, rounding, promotion.
Gradients and parity with PyTorch of every elementwise op: the op table (tests/opinfo/)."""

import numpy as np
import pytest
from test_ops_helpers import T, needs_torch, parity, torch

import nbgrad

rng = np.random.default_rng(1)
X = rng.uniform(-0.9, 0.9, (3, 4))
POS = rng.uniform(0.2, 2.0, (3, 4))


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
