"""lgamma and digamma (elementwise rules) and nbgrad.special against torch and SciPy."""

import numpy as np
import pytest
from scipy import special as sp

import nbgrad as nb

X = np.array([1e-3, 0.1, 0.5, 1.0, 1.4616321449683622, 2.5, 7.3, 9.99, 10.0, 15.0, 120.0, 1e5])
NEG = np.array([-0.5, -2.3, -7.9, -0.01, -10.5])
EDGES = np.array([0.0, -0.0, -1.0, -3.0, np.inf, -np.inf, np.nan, 1e-300])


@pytest.mark.parametrize("name", ["lgamma", "digamma"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_values_match_torch(name, dtype):
    torch = pytest.importorskip("torch")
    x = np.concatenate([X, NEG, EDGES]).astype(dtype)
    got = getattr(nb, name)(nb.tensor(x)).numpy()
    want = getattr(torch, name)(torch.tensor(x)).numpy()
    assert got.dtype == want.dtype
    tol = 1e-14 if dtype == np.float64 else 1e-6
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(getattr(nb.tensor(x), name)().numpy(), got)


def test_gradients():
    """lgamma' = digamma (vs torch); digamma' = trigamma (vs SciPy: torch's own trigamma
    is accurate to about 5e-10 only, so it is compared more loosely)."""
    torch = pytest.importorskip("torch")
    x = np.concatenate([X[:-1], NEG])
    for name, want_np in (("lgamma", sp.digamma(x)), ("digamma", sp.polygamma(1, x))):
        t = nb.tensor(x, requires_grad=True)
        getattr(nb, name)(t).sum().backward()
        np.testing.assert_allclose(t.grad.numpy(), want_np, rtol=1e-13, atol=1e-15)
        tt = torch.tensor(x, requires_grad=True)
        getattr(torch, name)(tt).sum().backward()
        np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy(), rtol=1e-8)
    assert nb.lgamma(nb.tensor(x, requires_grad=True)).grad_fn.name() == "LgammaBackward0"
    assert nb.digamma(nb.tensor(x, requires_grad=True)).grad_fn.name() == "DigammaBackward0"


def test_second_derivative_and_gradcheck():
    x = nb.tensor(np.array([0.3, 1.7, 4.2, -1.5]), requires_grad=True)
    (g,) = nb.autograd.grad(nb.lgamma(x).sum(), x, create_graph=True)
    (h,) = nb.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), sp.polygamma(1, x.detach().numpy()), rtol=1e-12)
    assert nb.autograd.gradcheck(nb.lgamma, (x,))
    assert nb.autograd.gradcheck(nb.digamma, (x,))
    (g2,) = nb.autograd.grad(nb.digamma(x).sum(), x, create_graph=True)
    with pytest.raises(NotImplementedError, match="third derivative of lgamma"):
        nb.autograd.grad(g2.sum(), x)


def test_special_module():
    torch = pytest.importorskip("torch")
    x = np.array([0.2, 1.5, 3.0])
    for name in ("gammaln", "digamma", "psi", "erf", "expit", "ndtr"):
        got = getattr(nb.special, name)(nb.tensor(x)).numpy()
        want = getattr(torch.special, name)(torch.tensor(x)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-14, err_msg=name)


def test_forward_mode_and_hessian():
    import nbgrad.autograd.forward_ad as fwad
    from nbgrad.autograd.functional import hessian

    x = np.array([0.5, 2.0, -1.3])
    with fwad.dual_level():
        d = fwad.make_dual(nb.tensor(x), nb.ones(3, dtype=nb.float64))
        t1 = fwad.unpack_dual(nb.lgamma(d)).tangent.numpy()
        t2 = fwad.unpack_dual(nb.digamma(d)).tangent.numpy()
    np.testing.assert_allclose(t1, sp.digamma(x), rtol=1e-13)
    np.testing.assert_allclose(t2, sp.polygamma(1, x), rtol=1e-12)
    h = hessian(lambda t: nb.lgamma(t).sum(), nb.tensor(x)).numpy()
    np.testing.assert_allclose(h, np.diag(sp.polygamma(1, x)), rtol=1e-12, atol=1e-15)
