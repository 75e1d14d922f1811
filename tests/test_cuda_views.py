"""CUDA tensors' view methods are Tensor's own: one validation for every device, so a CUDA
tensor gets the same results and PyTorch's errors, and the functional forms
(`nbgrad.permute(x, ...)`, `nbgrad.transpose`, ...) work on it too. Runs on a GPU when
present, else on Numba's CUDA simulator (tests/conftest.py)."""

import numpy as np
import pytest

import nbgrad as nb

pytestmark = pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")

X = np.arange(24.0).reshape(2, 3, 4)

# each raises on the CPU with PyTorch's message (tests/test_views*.py check those against
# PyTorch); the CUDA tensor must raise the same
BAD = {
    "permute duplicate": lambda t: t.permute(0, 0, 1),
    "permute length": lambda t: t.permute(0, 1),
    "expand smaller": lambda t: t.expand(3, 4),
    "expand mismatch": lambda t: t.expand(2, 5, 4),
    "expand leading -1": lambda t: t.expand(-1, 2, 3, 4),
    "flatten start after end": lambda t: t.flatten(2, 1),
    "reshape numel": lambda t: t.reshape(5, 5),
    "view two -1": lambda t: t.view(-1, -1),
    "transpose dim": lambda t: t.transpose(0, 3),
    "t of 3-d": lambda t: t.t(),
    "unsqueeze dim": lambda t: t.unsqueeze(4),
}


@pytest.mark.parametrize("name", list(BAD))
def test_view_errors_are_the_cpu_ones(name):
    fn = BAD[name]
    with pytest.raises(Exception) as cpu:
        fn(nb.tensor(X))
    with pytest.raises(type(cpu.value)) as gpu:
        fn(nb.tensor(X, device="cuda"))
    assert str(gpu.value) == str(cpu.value)


GOOD = {
    "reshape": lambda t: t.reshape(4, -1),
    "view_as": lambda t: t.view_as(nb.zeros(6, 4)),
    "flatten": lambda t: t.flatten(1),
    "squeeze tuple": lambda t: t.unsqueeze(0).unsqueeze(3).squeeze((0, 3)),
    "permute": lambda t: nb.permute(t, (2, 0, 1)),
    "transpose": lambda t: nb.transpose(t, 0, 2),
    "mT": lambda t: t.mT,
    "T of 2-d": lambda t: t[0].T,
    "expand": lambda t: t[:, :1].expand(2, 5, 4),
    "expand_as": lambda t: t[:1].expand_as(t),
}


@pytest.mark.parametrize("name", list(GOOD))
def test_views_match_the_cpu(name):
    fn = GOOD[name]
    xc = nb.tensor(X, requires_grad=True)
    xg = nb.tensor(X, device="cuda", requires_grad=True)
    yc, yg = fn(xc), fn(xg)
    assert yg.is_cuda and yg.shape == yc.shape
    np.testing.assert_array_equal(yg.detach().cpu().numpy(), yc.detach().numpy())
    assert type(yg.grad_fn).__name__ == type(yc.grad_fn).__name__
    w = np.random.default_rng(3).standard_normal(yc.shape)
    (yc * nb.tensor(w)).sum().backward()
    (yg * nb.tensor(w, device="cuda")).sum().backward()
    np.testing.assert_allclose(xg.grad.cpu().numpy(), xc.grad.numpy(), rtol=1e-12)


def test_a_write_through_a_cuda_view_reaches_its_base():
    """The views are recorded as views of their base (viewbase.py) on every device."""
    for device in ("cpu", "cuda"):
        x = nb.tensor(X, device=device)
        v = x.permute(2, 0, 1)
        v[0] = -1.0  # x[..., 0]
        f = x.reshape(6, 4)
        f[1, 1] = 100.0  # x[0, 1, 1]
        got = x.cpu().numpy()
        assert (got[..., 0] == -1.0).all() and got[0, 1, 1] == 100.0, device
