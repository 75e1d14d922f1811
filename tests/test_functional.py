"""autograd.functional, autograd.forward_ad, nbgrad.func and gradcheck.

Expected values: PyTorch's own functional API where torch is installed, and closed forms
or finite differences otherwise (each test says which).
"""

import numpy as np
import pytest
from test_ops_helpers import needs_torch, torch

import nbgrad
from nbgrad.autograd import forward_ad as fwAD
from nbgrad.autograd import functional as AF

rng = np.random.default_rng(0)
W = rng.standard_normal((5, 5)) * 0.5
X = rng.standard_normal(5)


def f_nb(x):
    w = nbgrad.tensor(W)
    return nbgrad.tanh(w @ nbgrad.tanh(w @ x)) * x


def f_t(x):
    w = torch.tensor(W)
    return torch.tanh(w @ torch.tanh(w @ x)) * x


def scalar_nb(x):
    return (nbgrad.sin(x) * x.exp()).sum() + (f_nb(x) ** 2).sum()


def scalar_t(x):
    return (torch.sin(x) * x.exp()).sum() + (f_t(x) ** 2).sum()


def num_jac(f, x, eps=1e-6):
    """Central-difference Jacobian of a NumPy-valued f."""
    cols = []
    for e in range(x.size):
        d = np.zeros_like(x)
        d.flat[e] = eps
        cols.append((f(x + d) - f(x - d)) / (2 * eps))
    return np.stack(cols, -1)


def f_np(x):
    return f_nb(nbgrad.tensor(x)).numpy()


def grad_np(x):
    t = nbgrad.tensor(x, requires_grad=True)
    (g,) = nbgrad.autograd.grad(scalar_nb(t), t)
    return g.numpy()


J_REF = num_jac(f_np, X)
H_REF = num_jac(grad_np, X)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"vectorize": True},
        {"vectorize": True, "strategy": "forward-mode"},
        {"create_graph": True},
        {"create_graph": True, "vectorize": True},
    ],
    ids=["loop", "vectorized", "forward", "create-graph", "create-graph-vectorized"],
)
def test_jacobian_strategies_agree_with_finite_differences(kw):
    J = AF.jacobian(f_nb, nbgrad.tensor(X), **kw)
    assert tuple(J.shape) == (5, 5)
    np.testing.assert_allclose(J.detach().numpy(), J_REF, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    "kw",
    [{}, {"vectorize": True}, {"vectorize": True, "outer_jacobian_strategy": "forward-mode"}],
    ids=["loop", "vectorized", "forward-over-reverse"],
)
def test_hessian_strategies_agree_with_finite_differences(kw):
    H = AF.hessian(scalar_nb, nbgrad.tensor(X), **kw)
    np.testing.assert_allclose(H.numpy(), H_REF, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(H.numpy(), H.numpy().T, rtol=1e-10, atol=1e-12)


def test_jacobian_create_graph_is_differentiable():
    """d/dx sum(J(x)) against finite differences of sum(J)."""
    x = nbgrad.tensor(X, requires_grad=True)
    J = AF.jacobian(f_nb, x, create_graph=True, vectorize=True)
    (g,) = nbgrad.autograd.grad(J.sum(), x)
    ref = num_jac(lambda v: np.array(num_jac(f_np, v, 1e-4).sum()), X, 1e-4)
    np.testing.assert_allclose(g.numpy(), ref, rtol=1e-4, atol=1e-5)


@needs_torch
def test_tuples_of_inputs_and_outputs_match_torch():
    A, B = rng.standard_normal((2, 3)), rng.standard_normal(3)

    def g(mod):
        return lambda a, b: ((a * b).sum(1), mod.sin(a) + b)

    for kw in ({}, {"vectorize": True}, {"vectorize": True, "strategy": "forward-mode"}):
        got = AF.jacobian(g(nbgrad), (nbgrad.tensor(A), nbgrad.tensor(B)), **kw)
        want = torch.autograd.functional.jacobian(
            g(torch), (torch.tensor(A), torch.tensor(B)), **kw
        )
        assert len(got) == len(want) == 2
        for gr, wr in zip(got, want):
            assert len(gr) == len(wr) == 2
            for a, b in zip(gr, wr):
                np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-12)
    Hn = AF.hessian(lambda a, b: (a.exp() * b).sum(), (nbgrad.tensor(A), nbgrad.tensor(B)))
    Ht = torch.autograd.functional.hessian(
        lambda a, b: (a.exp() * b).sum(), (torch.tensor(A), torch.tensor(B))
    )
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(Hn[i][j].numpy(), Ht[i][j].numpy(), rtol=1e-12)


@needs_torch
@pytest.mark.parametrize("name", ["vjp", "jvp", "vhp", "hvp"])
def test_products_match_torch(name):
    v = rng.standard_normal(5)
    fn = scalar_nb if name in ("vhp", "hvp") else f_nb
    ft = scalar_t if name in ("vhp", "hvp") else f_t
    out, prod = getattr(AF, name)(fn, nbgrad.tensor(X), nbgrad.tensor(v))
    out_t, prod_t = getattr(torch.autograd.functional, name)(ft, torch.tensor(X), torch.tensor(v))
    np.testing.assert_allclose(out.numpy(), out_t.numpy(), rtol=1e-12)
    np.testing.assert_allclose(prod.numpy(), prod_t.numpy(), rtol=1e-10, atol=1e-12)


def test_functional_errors_match_torch_messages():
    x = nbgrad.tensor(X)
    with pytest.raises(RuntimeError, match='Expected strategy to be either "forward-mode"'):
        AF.jacobian(f_nb, x, strategy="sideways")
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        AF.jacobian(f_nb, x, strategy="forward-mode")
    with pytest.raises(RuntimeError, match="v has invalid size"):
        AF.vjp(f_nb, x, nbgrad.ones(3, dtype=nbgrad.float64))
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        AF.jacobian(f_nb, [x])
    with pytest.raises(RuntimeError, match="independent of input 1"):
        AF.jacobian(lambda a, b: a * 2, (x, x), strict=True)


# -- forward mode ---------------------------------------------------------------------
def test_forward_ad_matches_jacobian_vector_product():
    t = rng.standard_normal(5)
    with fwAD.dual_level():
        d = fwAD.make_dual(nbgrad.tensor(X), nbgrad.tensor(t))
        y = f_nb(d)
        p, tan = fwAD.unpack_dual(y)
    np.testing.assert_allclose(p.numpy(), f_np(X), rtol=1e-12)
    np.testing.assert_allclose(tan.numpy(), J_REF @ t, rtol=1e-6, atol=1e-8)


def test_forward_ad_through_non_elementwise_ops():
    """softmax, sum over a dim, transpose, matmul: tangent = finite-difference J t."""
    A = rng.standard_normal((3, 4))
    T = rng.standard_normal((3, 4))

    def f(a):
        return (nbgrad.softmax(a, 1).t() @ a).sum(0) * a.mean()

    with fwAD.dual_level():
        _, tan = fwAD.unpack_dual(f(fwAD.make_dual(nbgrad.tensor(A), nbgrad.tensor(T))))
    ref = num_jac(lambda v: f(nbgrad.tensor(v.reshape(3, 4))).numpy(), A.reshape(-1))
    np.testing.assert_allclose(tan.numpy(), ref @ T.reshape(-1), rtol=1e-6, atol=1e-8)


def test_forward_ad_errors():
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(nbgrad.ones(2), nbgrad.ones(2))
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="different size than that of the original"):
            fwAD.make_dual(nbgrad.ones(2), nbgrad.ones(3))
        p, t = fwAD.unpack_dual(nbgrad.ones(2))
        assert t is None


# -- nbgrad.func ----------------------------------------------------------------------
def test_func_grad_argnums_has_aux_and_nesting():
    F = nbgrad.func
    x, y = nbgrad.tensor(X), nbgrad.tensor(X[::-1].copy())

    def f(a, b):
        return (a * a * b).sum(), "aux"

    g, aux = F.grad(f, argnums=(0, 1), has_aux=True)(x, y)
    assert aux == "aux"
    np.testing.assert_allclose(g[0].numpy(), 2 * X * X[::-1])
    np.testing.assert_allclose(g[1].numpy(), X * X)
    (gv, (val, _)) = F.grad_and_value(f, has_aux=True)(x, y)
    np.testing.assert_allclose(val.numpy(), (X * X * X[::-1]).sum())
    # grad of grad: d/dx sum(d/dx sum(sin x)) = -sin x
    gg = F.grad(lambda a: F.grad(lambda b: nbgrad.sin(b).sum())(a).sum())(x)
    np.testing.assert_allclose(gg.numpy(), -np.sin(X), rtol=1e-12)


def test_func_jacobians_and_hessian():
    F = nbgrad.func
    x = nbgrad.tensor(X)
    np.testing.assert_allclose(F.jacrev(f_nb)(x).numpy(), J_REF, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(F.jacfwd(f_nb)(x).numpy(), J_REF, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(F.hessian(scalar_nb)(x).numpy(), H_REF, rtol=1e-5, atol=1e-6)
    out, vjp_fn = F.vjp(f_nb, x)
    v = rng.standard_normal(5)
    (gv,) = vjp_fn(nbgrad.tensor(v))
    np.testing.assert_allclose(gv.numpy(), v @ J_REF, rtol=1e-6, atol=1e-8)
    out2, jv = F.jvp(f_nb, (x,), (nbgrad.tensor(v),))
    np.testing.assert_allclose(jv.numpy(), J_REF @ v, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(out2.numpy(), out.numpy())


@needs_torch
def test_per_sample_gradients_match_torch_func():
    """Per-sample gradients by a batched VJP vs torch.func.vmap(torch.func.grad)."""
    Xb, Yb = rng.standard_normal((6, 4)), rng.standard_normal(6)
    w0 = rng.standard_normal(4)
    w = nbgrad.tensor(w0, requires_grad=True)
    losses = (nbgrad.tanh(nbgrad.tensor(Xb) @ w) - nbgrad.tensor(Yb)) ** 2
    (per,) = nbgrad.autograd.grad(
        losses, w, nbgrad.eye(6, dtype=nbgrad.float64), is_grads_batched=True
    )

    def loss(wt, xt, yt):
        return (torch.tanh(xt @ wt) - yt) ** 2

    ref = torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))(
        torch.tensor(w0), torch.tensor(Xb), torch.tensor(Yb)
    )
    np.testing.assert_allclose(per.numpy(), ref.numpy(), rtol=1e-12, atol=1e-14)


# -- gradcheck ------------------------------------------------------------------------
def test_gradcheck_and_gradgradcheck():
    x = nbgrad.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    w = nbgrad.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    f = lambda a, b: nbgrad.tanh(a @ b).exp()  # noqa: E731
    assert nbgrad.autograd.gradcheck(f, (x, w), check_batched_grad=True)
    assert nbgrad.autograd.gradgradcheck(f, (x, w))


def test_gradcheck_catches_a_wrong_derivative():
    class Wrong(nbgrad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 3 * a  # should be 2a

    x = nbgrad.tensor(rng.standard_normal(3), requires_grad=True)
    with pytest.raises(
        RuntimeError, match="Jacobian mismatch for output 0 with respect to input 0"
    ):
        nbgrad.autograd.gradcheck(Wrong.apply, (x,))
    assert nbgrad.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False) is False
