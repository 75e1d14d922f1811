"""cholesky_solve and linalg.solve_triangular, composed from linalg.solve: PyTorch's values,
gradients and errors; gradchecks in float64."""

import numpy as np
import pytest
from test_ops_helpers import gradcheck, needs_torch, parity, same_error, torch

import nbgrad


def spd_factor(n, batch=(), seed=0, upper=False):
    a = np.random.default_rng(seed).standard_normal(batch + (n, n))
    L = np.linalg.cholesky(a @ np.swapaxes(a, -1, -2) + n * np.eye(n))
    return np.swapaxes(L, -1, -2).copy() if upper else L


@needs_torch
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_cholesky_solve_parity(upper, batch):
    L = spd_factor(4, batch, upper=upper)
    B = np.random.default_rng(1).standard_normal(batch + (4, 3))
    for dt in (np.float64, np.float32):
        parity(
            lambda b, f: nbgrad.cholesky_solve(b, f, upper=upper),
            lambda b, f: torch.cholesky_solve(b, f, upper=upper),
            B.astype(dt),
            L.astype(dt),
            rtol=1e-5 if dt == np.float32 else 1e-10,
            atol=1e-5 if dt == np.float32 else 1e-10,
        )


def test_cholesky_solve_gradcheck():
    L, B = spd_factor(3, seed=2), np.random.default_rng(3).standard_normal((3, 2))
    gradcheck(lambda b, f: nbgrad.cholesky_solve(b, f), B, L)


@needs_torch
@pytest.mark.parametrize("upper,left,unit", [(False, True, False), (True, False, True)])
def test_solve_triangular_parity(upper, left, unit):
    A = np.random.default_rng(4).standard_normal((2, 4, 4)) + 4 * np.eye(4)
    B = np.random.default_rng(5).standard_normal((2, 4, 4))
    kw = dict(upper=upper, left=left, unitriangular=unit)
    parity(
        lambda a, b: nbgrad.linalg.solve_triangular(a, b, **kw),
        lambda a, b: torch.linalg.solve_triangular(a, b, **kw),
        A,
        B,
        rtol=1e-10,
        atol=1e-10,
    )
    gradcheck(lambda a, b: nbgrad.linalg.solve_triangular(a, b, **kw), A[0], B[0])


@needs_torch
def test_errors_as_torch():
    L = spd_factor(2).astype(np.float32)
    same_error(nbgrad.cholesky_solve, torch.cholesky_solve, np.ones(2, np.float32), L)
    same_error(nbgrad.cholesky_solve, torch.cholesky_solve, np.ones((3, 1), np.float32), L)
    same_error(nbgrad.cholesky_solve, torch.cholesky_solve, np.ones((2, 1)), L)
