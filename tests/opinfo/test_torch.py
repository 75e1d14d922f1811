"""Every op of the table against PyTorch, in each dtype it takes: output shape, dtype and
values, and the gradients for one random cotangent. Skipped without torch."""

import warnings

import numpy as np
import pytest

import nbgrad

from .harness import run_mode
from .table import OPS

torch = pytest.importorskip("torch")

# (values rtol, atol), (gradients rtol, atol)
TOL = {"float32": ((1e-4, 1e-5), (1e-4, 1e-4)), "float64": ((1e-10, 1e-12), (1e-8, 1e-10))}


def _np(t):
    return t.detach().numpy()


def _dtype_name(t):
    return str(t.dtype).split(".")[-1]


def compare(op, s, dtype):
    fn, arrays = op.bind(s, nbgrad, dtype)
    ft, _ = op.bind(s, torch, dtype)
    ours = [nbgrad.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. torch's deprecation of .T on non-2-D tensors
        on, ot = fn(*ours), ft(*theirs)
    what = f"{op.name}{s} {np.dtype(dtype).name}"
    assert tuple(on.shape) == tuple(ot.shape), what
    assert _dtype_name(on) == _dtype_name(ot), what
    (vr, va), (gr, ga) = op.tol.get("torch_" + _dtype_name(on), TOL[_dtype_name(on)])
    np.testing.assert_allclose(_np(on), _np(ot), rtol=vr, atol=va, err_msg=what)
    if "grad" in op.unsupported:
        return
    g = np.random.default_rng(2).standard_normal(tuple(ot.shape)).astype(_np(ot).dtype)
    on.backward(nbgrad.tensor(g))
    ot.backward(torch.tensor(g))
    for j, (x, y) in enumerate(zip(ours, theirs)):
        assert (x.grad is None) == (y.grad is None), f"{what}: input {j}"
        if y.grad is None:
            continue
        assert tuple(x.grad.shape) == tuple(y.grad.shape), what
        assert _dtype_name(x.grad) == _dtype_name(y.grad), what
        np.testing.assert_allclose(
            x.grad.numpy(), y.grad.numpy(), rtol=gr, atol=ga, err_msg=f"{what}: grad {j}"
        )


@pytest.mark.parametrize(
    "op, dtype",
    [pytest.param(op, dt, id=f"{op.name}-{np.dtype(dt).name}") for op in OPS for dt in op.dtypes],
)
def test_matches_torch(op, dtype):
    def run():
        for s in op.samples():
            compare(op, s, dtype)

    run_mode(op, "torch", run)
