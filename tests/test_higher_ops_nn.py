"""The differentiable VJPs of reductions, activations, softmax and losses (each declared
with its op in ops/) in float32, and to third order against PyTorch. Each op's second
derivatives are checked by the op table (tests/opinfo/test_gradgrad.py)."""

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd.derivatives import DVJP, _load

F = nbgrad.nn.functional
rng = np.random.default_rng(1)
X = rng.uniform(-1, 1, (3, 4))
T = nbgrad.tensor(np.array([2, 0, 3]))
W = nbgrad.tensor(np.array([0.5, 2.0, 1.0, 1.5]))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.log_softmax(x, dim=1) * x,
        lambda x: F.cross_entropy(x, T, W, label_smoothing=0.1) * x,
        lambda x: F.elu(x).std(dim=1, keepdim=True) * x,
    ],
    ids=["log_softmax", "cross_entropy", "elu-std"],
)
def test_float32_first_order(fn):
    """The differentiable VJPs keep float32 (constants in the row's dtype) and agree
    with the compiled sweep."""
    x = nbgrad.tensor(X.astype(np.float32), requires_grad=True)
    v = nbgrad.tensor(rng.standard_normal(X.shape).astype(np.float32))
    (ref,) = nbgrad.autograd.grad(fn(x), x, v)
    (got,) = nbgrad.autograd.grad(fn(x), x, v, create_graph=True)
    assert got.dtype == nbgrad.float32
    np.testing.assert_allclose(got.detach().numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)


THIRD = {
    "softmax": lambda L, a: (L.nn.functional.softmax(a, 1) * a).sum(),
    "cross_entropy": lambda L, a: L.nn.functional.cross_entropy(
        a, L.tensor([1, 0, 3]), label_smoothing=0.1
    ),
    "var-std": lambda L, a: a.var(dim=1).sum() * a.std(),
    "elu": lambda L, a: (L.nn.functional.elu(a * 2) ** 2).sum(),
    "softplus": lambda L, a: (L.nn.functional.softplus(a * 3) ** 2).sum(),
    "pnorm": lambda L, a: (a.norm(p=3, dim=0) ** 2).sum(),
    "prod": lambda L, a: a.prod(dim=1).sum(),
    "cumsum": lambda L, a: (a.cumsum(1) ** 3).sum(),
    "bce": lambda L, a: L.nn.functional.binary_cross_entropy(L.sigmoid(a), L.sigmoid(a * 2)),
}
THIRD_NEEDS = {"prod": ["cat", "slice"], "cumsum": ["view_FlipBackward0"]}


@pytest.mark.parametrize("name", list(THIRD))
def test_third_order_matches_torch(name):
    """The VJPs are built of recorded ops that differentiate again: a third derivative
    (create_graph twice) against PyTorch's."""
    torch = pytest.importorskip("torch")
    _load()
    missing = [n for n in THIRD_NEEDS.get(name, []) if n not in DVJP]
    if missing:
        pytest.skip(f"no differentiable VJP yet for {missing}")
    res = []
    for lib in (nbgrad, torch):
        a = lib.tensor(X, requires_grad=True)
        (g,) = lib.autograd.grad(THIRD[name](lib, a), a, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), a, create_graph=True)
        (k,) = lib.autograd.grad((h * a).sum().sin(), a)
        res.append(k.detach().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-9, atol=1e-12)
