"""median, nanmedian, quantile, nanquantile (nbgrad/_quantiles.py): PyTorch's values,
indices, gradients and errors; gradchecks in float64."""

import numpy as np
import pytest
from test_ops_helpers import T, gradcheck, needs_torch, parity, same_error, torch

import nbgrad


def distinct(shape, seed=0):  # no ties, so the chosen indices are unambiguous
    n = int(np.prod(shape))
    return np.random.default_rng(seed).permutation(n).reshape(shape).astype(np.float64) / n


def with_nans(shape, seed=1):
    a = distinct(shape, seed)
    a.reshape(-1)[[1, 5, 6, 7]] = np.nan
    return a


MEDIAN_CASES = [
    ("all", lambda lib, x: lib.median(x), {}),
    ("dim1", lambda lib, x: lib.median(x, 1), {}),
    ("dim0-keepdim", lambda lib, x: lib.median(x, 0, keepdim=True), {}),
    ("method", lambda lib, x: x.median(-1), {}),
    ("nan-all", lambda lib, x: lib.nanmedian(x), {}),
    ("nan-dim", lambda lib, x: lib.nanmedian(x, 1), {}),
]


@needs_torch
@pytest.mark.parametrize("name,f,_", MEDIAN_CASES, ids=[c[0] for c in MEDIAN_CASES])
@pytest.mark.parametrize("shape", [(4, 6), (3, 5, 2)])
def test_median_parity(name, f, _, shape):
    for a in (distinct(shape), with_nans(shape)):
        yn, yt = f(nbgrad, T(a)), f(torch, torch.tensor(a))
        if isinstance(yt, tuple):
            np.testing.assert_array_equal(yn.indices.numpy(), yt.indices.numpy())
            yn, yt = yn.values, yt.values
        np.testing.assert_array_equal(yn.numpy(), yt.numpy())
    parity(lambda x: f(nbgrad, x), lambda x: f(torch, x), distinct(shape).astype(np.float32))


@pytest.mark.parametrize("name,f,_", MEDIAN_CASES, ids=[c[0] for c in MEDIAN_CASES])
def test_median_gradcheck(name, f, _):
    def g(x):
        y = f(nbgrad, x)
        return y.values if isinstance(y, tuple) else y

    gradcheck(g, distinct((4, 5)))


@needs_torch
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize(
    "q,dim,keepdim",
    [(0.3, None, False), (0.5, 1, False), ("vec", 0, True), ("vec", None, False), (1.0, -1, True)],
)
def test_quantile_parity(interpolation, q, dim, keepdim):
    a = distinct((4, 6))
    qs = np.array([0.0, 0.25, 0.5, 0.9], np.float32)

    def call(lib, fn, x):
        qq = lib.tensor(qs, dtype=x.dtype) if q == "vec" else q
        return getattr(lib, fn)(x, qq, dim=dim, keepdim=keepdim, interpolation=interpolation)

    for fn in ("quantile", "nanquantile"):
        parity(
            lambda x, fn=fn: call(nbgrad, fn, x),
            lambda x, fn=fn: call(torch, fn, x),
            a.astype(np.float32),
        )
        for arr in (a, with_nans((4, 6))):
            yn, yt = call(nbgrad, fn, T(arr)), call(torch, fn, torch.tensor(arr))
            np.testing.assert_allclose(yn.numpy(), yt.numpy(), rtol=1e-12, atol=1e-12)


def test_quantile_gradcheck():
    q = T(np.array([0.1, 0.5, 0.77]))
    gradcheck(lambda x: nbgrad.quantile(x, q, dim=1), distinct((3, 6)))
    gradcheck(lambda x: x.nanquantile(0.4), distinct((3, 6)))


@needs_torch
def test_errors_as_torch():
    f = np.array([1.0, 2.0], np.float32)
    same_error(lambda x: nbgrad.quantile(x, 1.5), lambda x: torch.quantile(x, 1.5), f)
    same_error(
        lambda x: nbgrad.quantile(x, 0.5, interpolation="foo"),
        lambda x: torch.quantile(x, 0.5, interpolation="foo"),
        f,
    )
    same_error(lambda x: nbgrad.quantile(x, 0.5), lambda x: torch.quantile(x, 0.5), f[:0])
    same_error(lambda x: x.quantile(0.5), lambda x: x.quantile(0.5), np.array([1, 2]))
    same_error(lambda x: x.median(0), lambda x: x.median(0), f[:0])
    with pytest.raises(RuntimeError, match="same dtype"):
        nbgrad.quantile(T(f), nbgrad.tensor(0.5, dtype=nbgrad.float64))
    assert np.isnan(nbgrad.tensor([]).median().item())
