"""Reductions and selection: max/min/amax/amin/argmax/argmin/clamp/where/prod/var/std/
norm/logsumexp/cumsum."""

import numpy as np
import pytest
from test_ops_helpers import T, gradcheck, needs_torch, parity, same_error, torch

import nbgrad

rng = np.random.default_rng(2)
X = rng.standard_normal((3, 4, 2))
TIES = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])


def test_max_min_gradcheck_and_ties():
    for f in (
        lambda x: x.max(),
        lambda x: x.min(),
        lambda x: x.amax(1),
        lambda x: x.amin(0),
        lambda x: x.max(1)[0],
        lambda x: nbgrad.min(x, 0, keepdim=True).values,
        lambda x: x.amax((0, 1)),
        lambda x: nbgrad.amax(x),
    ):
        gradcheck(f, X)
    # ties: amax / whole-tensor max share evenly, max over a dim picks the returned index
    x = T(TIES, True)
    x.amax(1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.5, 0.5], [0.5, 0.5, 0]])
    x = T(TIES, True)
    x.max().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.5, 0.5], [0, 0, 0]])
    x = T(TIES, True)
    v, i = x.max(1)
    v.sum().backward()
    np.testing.assert_array_equal(i.numpy(), [1, 0])
    np.testing.assert_allclose(x.grad.numpy(), [[0, 1, 0], [1, 0, 0]])


@needs_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_selection_parity(dtype):
    x = X.astype(dtype)
    cases = [
        (lambda t: t.max(), None),
        (lambda t: t.max(2)[0], None),
        (lambda t: t.min(1)[0], None),
        (lambda t: t.amax((0, 2), keepdim=True), None),
        (lambda t: t.amin(-1), None),
        (lambda t: t.clamp(-0.5, 0.5), None),
        (lambda t: t.clamp(min=0.1), None),
        (lambda t: t.clip(max=0.2), None),
        (lambda t: t.prod(1), None),
        (lambda t: t.prod(), None),
        (lambda t: t.var(1), None),
        (lambda t: t.std(), None),
        (lambda t: t.var((0, 2), correction=0, keepdim=True), None),
        (lambda t: t.std(1, unbiased=False), None),
        (lambda t: t.logsumexp(1), None),
        (lambda t: t.logsumexp((0, 2)), None),
        (lambda t: t.cumsum(1), None),
        (lambda t: t.cumsum(0), None),
    ]
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for f, _ in cases:
        parity(f, f, x, rtol=tol, atol=tol)
    for p in (1, 2, 3, 0.5, float("inf"), -float("inf"), 0):
        parity(lambda t, p=p: t.norm(p, 1), lambda t, p=p: t.norm(p, 1), x, rtol=tol, atol=tol)
    xt = TIES.astype(dtype)
    parity(lambda t: t.amax(1), lambda t: t.amax(1), xt)
    parity(lambda t: t.max(), lambda t: t.max(), xt)
    parity(lambda t: t.min(1)[0], lambda t: t.min(1)[0], xt)
    for f in (
        lambda t: t.argmax(),
        lambda t: t.argmin(1),
        lambda t: t.argmax(0, keepdim=True),
        lambda t: t.max(1)[1],
        lambda t: t.min(0).indices,
    ):
        np.testing.assert_array_equal(f(T(xt)).numpy(), f(torch.tensor(xt)).numpy())


def test_reductions_gradcheck():
    z = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0], [1.5, 2.0, -1.0]])
    for f in (lambda x: x.prod(), lambda x: x.prod(1), lambda x: x.prod(0, keepdim=True)):
        gradcheck(f, z)  # one zero, two zeros, none
        gradcheck(f, X[:, :, 0])
    for f in (
        lambda x: x.var(),
        lambda x: x.std(1),
        lambda x: x.var((0, 2), correction=2),
        lambda x: x.std(0, keepdim=True, unbiased=False),
        lambda x: x.logsumexp(1),
        lambda x: x.logsumexp((0, 1), keepdim=True),
        lambda x: x.cumsum(1),
        lambda x: x.cumsum(-1),
        lambda x: x.norm(),
        lambda x: x.norm(1, 1),
        lambda x: x.norm(3, (0, 2)),
        lambda x: x.norm(float("inf"), 1),
    ):
        gradcheck(f, X)


def test_clamp_where_gradcheck():
    gradcheck(lambda x: x.clamp(-0.5, 0.5), X + 0.013)
    gradcheck(lambda x, lo: nbgrad.clamp(x, lo), X[:, :, 0], rng.standard_normal(4) * 0.1)
    gradcheck(lambda a, b: nbgrad.where(a > 0, a, b), X[:, :, 0], rng.standard_normal(4))
    gradcheck(lambda a: nbgrad.where(a > 0, a, 1.0), X)
    gradcheck(lambda a: a.masked_fill(a < 0, 0.0), X)


@needs_torch
def test_clamp_where_parity():
    lo, hi = rng.standard_normal(2) * 0.1, rng.standard_normal(2) * 0.1 + 0.5
    parity(
        lambda x, lo, hi: x.clamp(lo, hi), lambda x, lo, hi: x.clamp(lo, hi), X, lo, hi, rtol=1e-12
    )
    c = rng.random((3, 1, 2)) > 0.5
    parity(
        lambda a, b: nbgrad.where(T(c), a, b),
        lambda a, b: torch.where(torch.tensor(c), a, b),
        X,
        rng.standard_normal((4, 1)),
        rtol=1e-12,
    )
    x32 = X.astype(np.float32)
    parity(
        lambda a, b: nbgrad.where(T(c), a, b),
        lambda a, b: torch.where(torch.tensor(c), a, b),
        x32,
        X,
        rtol=1e-6,
    )


@needs_torch
def test_clamp_integer_tensor_keeps_dtype():
    """Integer tensors with integer bounds stay integer (class targets are clamped so)."""
    v = [0, -3, 5, -100]
    for dt in ("int64", "int32"):
        for f in (
            lambda x: x.clamp(min=0),
            lambda x: x.clamp(0, 2),
            lambda x: x.clamp_max(1),
            lambda x: x.clip(-1, 3),
            lambda x: x.clamp(min=0.5),  # a float bound: the default float dtype, as torch
        ):
            got, want = (
                f(nbgrad.tensor(v, dtype=getattr(nbgrad, dt))),
                f(torch.tensor(v, dtype=getattr(torch, dt))),
            )
            assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    x = nbgrad.tensor(v)
    x.clamp_(min=0)
    assert x.dtype == nbgrad.int64 and x.tolist() == [0, 0, 5, 0]


@needs_torch
def test_selection_errors():
    e = np.zeros((0, 3))
    same_error(lambda x: x.max(), lambda x: x.max(), e)
    same_error(lambda x: x.max(0), lambda x: x.max(0), e)
    same_error(lambda x: x.amax(3), lambda x: x.amax(3), X)
    same_error(lambda x: x.logsumexp(5), lambda x: x.logsumexp(5), X)
    same_error(lambda x: x.cumsum(3), lambda x: x.cumsum(3), X)
    same_error(lambda x: nbgrad.where(x, x, x), lambda x: torch.where(x, x, x), X)
    same_error(lambda x: nbgrad.clamp(x), lambda x: torch.clamp(x), X)
    with pytest.raises(RuntimeError, match="duplicate|multiple"):
        T(X).amax((0, 0))


def test_max_with_nan():
    x = T(np.array([[1.0, np.nan, 3.0]]), True)
    v, i = x.max(1)
    assert np.isnan(v.item()) and i.item() == 1
