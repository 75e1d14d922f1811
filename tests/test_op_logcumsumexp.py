"""logcumsumexp, a native op declared once with all its facets (ops/cumulative.py): values
and gradients against PyTorch and an extended-precision reference, edge values, errors,
gradcheck and double backward, forward mode, compiled replay and the CUDA kernels."""

import warnings

import numpy as np
import pytest

import nbgrad as nb
import nbgrad.autograd.forward_ad as fwAD
from nbgrad._compile import CompileWarning
from nbgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(3)
SHAPES = [((3, 5, 4), 0), ((3, 5, 4), 1), ((3, 5, 4), -1), ((6,), 0), ((), 0), ((0, 3), 1)]


def _reference(x, g, dim):
    """y = log(cumsum(exp(x))) and its VJP sum_{i>=r} g_i exp(x_r - y_i) in long double,
    straight from the definition (an O(n^2) sum, independent of the op's recurrence)."""
    X, G = np.moveaxis(x.astype(np.longdouble), dim, -1), np.moveaxis(g, dim, -1)
    Y = np.log(np.cumsum(np.exp(X), axis=-1))
    n = X.shape[-1]
    gx = np.zeros_like(X)
    for r in range(n):
        gx[..., r] = (G[..., r:] * np.exp(X[..., r : r + 1] - Y[..., r:])).sum(-1)
    return np.moveaxis(Y, -1, dim), np.moveaxis(gx, -1, dim)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape,dim", SHAPES)
def test_matches_reference(shape, dim, dtype):
    x = (RNG.normal(size=shape) * 3).astype(dtype)
    g = RNG.normal(size=shape).astype(dtype)
    t = nb.tensor(x, requires_grad=True)
    y = nb.logcumsumexp(t, dim)
    y.backward(nb.tensor(g))
    if x.ndim == 0:  # a 0-d tensor is its own running sum
        ref_y, ref_g = x, g
    else:
        ref_y, ref_g = _reference(x, g, dim)
    tol = 1e-12 if dtype == np.float64 else 2e-5
    assert y.dtype == t.dtype and y.shape == t.shape
    assert y.grad_fn.name() == "LogcumsumexpBackward0"
    np.testing.assert_allclose(y.detach().numpy(), ref_y.astype(float), rtol=tol, atol=tol)
    np.testing.assert_allclose(t.grad.numpy(), ref_g.astype(float), rtol=tol, atol=tol)


def test_matches_torch():
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(4, 6, 3))
    g = RNG.normal(size=x.shape)
    for dim in (0, 1, 2, -2):
        a, b = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ya, yb = nb.logcumsumexp(a, dim), b.logcumsumexp(dim)
        ya.backward(nb.tensor(g))
        yb.backward(torch.tensor(g))
        np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-13)
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize(
    "vals", [[0.5, -1.0, 2.0, -np.inf, 3.0], [-np.inf, -np.inf, 1.0], [np.inf, 1.0], [np.nan, 1.0]]
)
def test_edge_values_as_torch(vals):
    torch = pytest.importorskip("torch")
    x = np.array(vals)
    g = np.linspace(1.0, -1.0, x.size)
    a, b = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ya, yb = nb.logcumsumexp(a, 0), torch.logcumsumexp(b, 0)
    ya.backward(nb.tensor(g))
    yb.backward(torch.tensor(g))
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), equal_nan=True)
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), equal_nan=True)


def test_large_scale_float32_stays_finite():
    """x spanning hundreds: no exp may overflow (the sums are taken relative to y)."""
    x = (RNG.normal(size=(2, 9)) * 200).astype(np.float32)
    g = RNG.normal(size=x.shape).astype(np.float32)
    t = nb.tensor(x, requires_grad=True)
    y = t.logcumsumexp(1)
    y.backward(nb.tensor(g))
    ref_y, ref_g = _reference(x, g, 1)
    np.testing.assert_allclose(y.detach().numpy(), ref_y.astype(float), rtol=1e-5)
    np.testing.assert_allclose(t.grad.numpy(), ref_g.astype(float), rtol=1e-4, atol=1e-5)


def test_errors_as_torch():
    with pytest.raises(NotImplementedError, match="logcumsumexp_out_cpu.*'Long'"):
        nb.logcumsumexp(nb.tensor([1, 2]), 0)
    with pytest.raises(IndexError, match=r"expected to be in range of \[-1, 0\], but got 1"):
        nb.logcumsumexp(nb.ones(2), 1)
    with pytest.raises(TypeError):
        nb.logcumsumexp([1.0, 2.0], 0)


def test_gradcheck_and_double_backward():
    x = nb.tensor(RNG.normal(size=(2, 5, 3)), requires_grad=True)
    for dim in (0, 1, 2):
        assert gradcheck(lambda t, d=dim: nb.logcumsumexp(t, d), (x,))
        assert gradgradcheck(lambda t, d=dim: nb.logcumsumexp(t, d), (x,))


def test_forward_mode_matches_reference():
    """Forward mode runs through the differentiable VJP; its tangent is checked against
    sum_{j<=i} t_j exp(x_j - y_i) in long double (in float32 at a scale where PyTorch's
    own forward-mode formula loses digits)."""
    for scale, dtype, tol in ((3, np.float64, 1e-12), (60, np.float32, 1e-4)):
        x = (RNG.normal(size=(3, 7, 2)) * scale).astype(dtype)
        v = RNG.normal(size=x.shape).astype(dtype)
        with fwAD.dual_level():
            out = nb.logcumsumexp(fwAD.make_dual(nb.tensor(x), nb.tensor(v)), 1)
            tangent = fwAD.unpack_dual(out).tangent.numpy()
        X, V = x.astype(np.longdouble), v.astype(np.longdouble)
        Y = np.log(np.cumsum(np.exp(X), axis=1))
        ref = np.stack(
            [(V[:, : i + 1] * np.exp(X[:, : i + 1] - Y[:, i : i + 1])).sum(1) for i in range(7)],
            axis=1,
        )
        np.testing.assert_allclose(tangent, ref.astype(float), rtol=tol, atol=tol)


def test_compiled_equals_eager():
    x0 = RNG.normal(size=(4, 6))

    def f(x):
        return (nb.logcumsumexp(x * 2.0, 1) * x).sum()

    cf = nb.compile(f)
    for _ in range(2):  # the trace, then the replay
        a, b = nb.tensor(x0, requires_grad=True), nb.tensor(x0, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error", CompileWarning)  # no fallback to eager
            ya = cf(a)
        yb = f(b)
        ya.backward()
        yb.backward()
        np.testing.assert_allclose(ya.item(), yb.item(), rtol=1e-14)
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-13)
        x0 = x0 + 0.5


@pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_cuda_matches_cpu(dim):
    x = RNG.normal(size=(2, 4, 3)) * 3
    g = RNG.normal(size=x.shape)
    cpu = nb.tensor(x, requires_grad=True)
    gpu = nb.tensor(x, device="cuda", requires_grad=True)
    yc, yg = nb.logcumsumexp(cpu, dim), gpu.logcumsumexp(dim)
    assert yg.is_cuda
    np.testing.assert_allclose(yg.detach().cpu().numpy(), yc.detach().numpy(), rtol=1e-13)
    (gc,) = nb.autograd.grad(yc, cpu, nb.tensor(g), create_graph=True)
    (gg,) = nb.autograd.grad(yg, gpu, nb.tensor(g, device="cuda"), create_graph=True)
    np.testing.assert_allclose(gg.detach().cpu().numpy(), gc.detach().numpy(), rtol=1e-12)
    (hc,) = nb.autograd.grad((gc * gc).sum(), cpu)
    (hg,) = nb.autograd.grad((gg * gg).sum(), gpu)
    assert hg.is_cuda
    np.testing.assert_allclose(hg.cpu().numpy(), hc.numpy(), rtol=1e-10, atol=1e-12)
