"""Every op of the table on CUDA tensors against the CPU backend: values and gradients
for one cotangent (float64). On a GPU when present, else on Numba's CUDA simulator
(tests/conftest.py), which runs a Python thread per CUDA thread: only an entry's first
`cuda_samples` samples run, and they are small."""

import numpy as np
import pytest

import nbgrad

from .harness import run_mode
from .table import OPS

pytestmark = pytest.mark.skipif(not nbgrad.cuda.is_available(), reason="no GPU and no simulator")


def compare(op, s):
    what = f"{op.name}{s}"
    outs, grads = [], []
    for device in ("cpu", "cuda"):
        f, arrays = op.bind(s, nbgrad, device=device)
        ts = [nbgrad.tensor(a, device=device, requires_grad=True) for a in arrays]
        y = f(*ts)
        assert y.device.type == device, what
        g = np.random.default_rng(5).standard_normal(tuple(y.shape))
        outs.append(y.detach().cpu().numpy())
        if "grad" not in op.unsupported:
            y.backward(nbgrad.tensor(g, device=device))
            assert all(t.grad is None or t.grad.device.type == device for t in ts), what
            grads.append([None if t.grad is None else t.grad.cpu().numpy() for t in ts])
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-9, atol=1e-9, err_msg=what)
    if not grads:
        return
    for j, (a, b) in enumerate(zip(*grads)):
        assert (a is None) == (b is None), f"{what}: grad {j}"
        if a is not None:
            np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-9, err_msg=f"{what}: grad {j}")


@pytest.mark.parametrize("op", OPS, ids=repr)
def test_cuda_matches_cpu(op):
    def run():
        for s in op.samples()[: op.cuda_samples]:
            compare(op, s)

    run_mode(op, "cuda", run)
