"""nbgrad.distributions against torch.distributions: values, gradients, KL divergences,
reparameterised samples, sample moments and validation errors (float64)."""

import math

import numpy as np
import pytest
from scipy import special as sp

import nbgrad as nb

torch = pytest.importorskip("torch")
ND = nb.distributions
TD = torch.distributions
rng = np.random.default_rng(0)


def _pos(*s):
    return rng.uniform(0.4, 2.5, s)


def _spd(n, batch=()):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _simplex(*s):
    p = rng.uniform(0.1, 1.0, s)
    return p / p.sum(-1, keepdims=True)


LOWER = np.linalg.cholesky(_spd(3, (2,)))
# name: (constructor(D, params), params, value, methods beyond log_prob/entropy/moments)
CASES = {
    "normal": (
        lambda D, p: D.Normal(p["loc"], p["scale"]),
        {"loc": rng.standard_normal((2, 3)), "scale": _pos(2, 3)},
        rng.standard_normal((4, 2, 3)),
        ("cdf", "icdf"),
    ),
    "bernoulli-probs": (
        lambda D, p: D.Bernoulli(probs=p["probs"]),
        {"probs": rng.uniform(0.05, 0.95, (5,))},
        rng.integers(0, 2, (3, 5)).astype(float),
        (),
    ),
    "bernoulli-logits": (
        lambda D, p: D.Bernoulli(logits=p["logits"]),
        {"logits": np.array([-30.0, -2.0, 0.0, 0.5, 8.0])},
        rng.integers(0, 2, (3, 5)).astype(float),
        (),
    ),
    "categorical-probs": (
        lambda D, p: D.Categorical(probs=p["probs"]),
        {"probs": rng.uniform(0.1, 1.0, (3, 4))},
        rng.integers(0, 4, (2, 3)),
        (),
    ),
    "categorical-logits": (
        lambda D, p: D.Categorical(logits=p["logits"]),
        {"logits": rng.standard_normal((3, 4))},
        rng.integers(0, 4, (3,)),
        (),
    ),
    "onehot": (
        lambda D, p: D.OneHotCategorical(logits=p["logits"]),
        {"logits": rng.standard_normal((2, 4))},
        np.eye(4)[rng.integers(0, 4, (3, 2))],
        (),
    ),
    "uniform": (
        lambda D, p: D.Uniform(p["low"], p["high"]),
        {"low": np.array([-1.0, 0.0, 2.0]), "high": np.array([1.0, 0.5, 5.0])},
        np.array([[0.3, 0.1, 2.5], [-0.9, 0.4, 4.9]]),
        ("cdf", "icdf"),
    ),
    "mvn-cov": (
        lambda D, p: D.MultivariateNormal(p["loc"], covariance_matrix=p["cov"]),
        {"loc": rng.standard_normal((2, 3)), "cov": _spd(3, (2,))},
        rng.standard_normal((4, 2, 3)),
        (),
    ),
    "mvn-prec": (
        lambda D, p: D.MultivariateNormal(p["loc"], precision_matrix=p["prec"]),
        {"loc": rng.standard_normal(3), "prec": _spd(3)},
        rng.standard_normal((4, 3)),
        (),
    ),
    "mvn-tril": (
        lambda D, p: D.MultivariateNormal(p["loc"], scale_tril=p["tril"]),
        {"loc": rng.standard_normal(3), "tril": LOWER},  # batch from the matrix only
        rng.standard_normal((4, 2, 3)),
        (),
    ),
    "independent": (
        lambda D, p: D.Independent(D.Normal(p["loc"], p["scale"]), 1),
        {"loc": rng.standard_normal((2, 3)), "scale": _pos(2, 3)},
        rng.standard_normal((4, 2, 3)),
        (),
    ),
    "exponential": (
        lambda D, p: D.Exponential(p["rate"]),
        {"rate": _pos(4)},
        _pos(3, 4),
        ("cdf", "icdf"),
    ),
    "laplace": (
        lambda D, p: D.Laplace(p["loc"], p["scale"]),
        {"loc": rng.standard_normal(4), "scale": _pos(4)},
        rng.standard_normal((3, 4)) * 2,
        ("cdf", "icdf"),
    ),
    "lognormal": (
        lambda D, p: D.LogNormal(p["loc"], p["scale"]),
        {"loc": rng.standard_normal(4) * 0.3, "scale": _pos(4) * 0.5},
        _pos(3, 4),
        ("cdf", "icdf"),
    ),
    "gamma": (
        lambda D, p: D.Gamma(p["concentration"], p["rate"]),
        {"concentration": _pos(4) * 2, "rate": _pos(4)},
        _pos(3, 4),
        ("cdf",),
    ),
    "beta": (
        lambda D, p: D.Beta(p["c1"], p["c0"]),
        {"c1": _pos(4) * 2, "c0": _pos(4) * 2},
        rng.uniform(0.05, 0.95, (3, 4)),
        (),
    ),
    "dirichlet": (
        lambda D, p: D.Dirichlet(p["concentration"]),
        {"concentration": _pos(2, 3) * 2},
        _simplex(4, 2, 3),
        (),
    ),
}
# grads through digamma's derivative: torch's trigamma is accurate to ~5e-10 only
LOOSE = {"gamma", "beta", "dirichlet"}
NO_MODE = {"uniform", "categorical-probs", "categorical-logits"}  # nan or integer modes


def _build(case, lib, requires_grad=True):
    make, params, value, extra = CASES[case]
    if lib is torch:
        ps = {k: torch.tensor(v, requires_grad=requires_grad) for k, v in params.items()}
        return make(TD, ps), ps, torch.tensor(value), extra
    ps = {k: nb.tensor(v, requires_grad=requires_grad) for k, v in params.items()}
    return make(ND, ps), ps, nb.tensor(value), extra


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("case", list(CASES))
def test_values_and_gradients_match_torch(case):
    dt, pt, vt, extra = _build(case, torch)
    dn, pn, vn, _ = _build(case, nb)
    assert tuple(dn.batch_shape) == tuple(dt.batch_shape)
    assert tuple(dn.event_shape) == tuple(dt.event_shape)
    tol = dict(rtol=1e-12, atol=1e-12)
    outs_t, outs_n = [], []
    for name in ("mean", "variance", "stddev") + (() if case in NO_MODE else ("mode",)):
        a, b = getattr(dt, name), getattr(dn, name)
        np.testing.assert_allclose(_np(b), _np(a), err_msg=name, equal_nan=True, **tol)
    for name in ("log_prob", "entropy") + tuple(m for m in extra if m == "cdf"):
        a = getattr(dt, name)(vt) if name != "entropy" else dt.entropy()
        b = getattr(dn, name)(vn) if name != "entropy" else dn.entropy()
        assert tuple(b.shape) == tuple(a.shape), name
        np.testing.assert_allclose(_np(b), _np(a), err_msg=name, **tol)
        if not (case == "gamma" and name == "cdf"):  # torch: no derivative in concentration
            outs_t.append(a)
            outs_n.append(b)
    if "icdf" in extra:
        q = rng.uniform(0.05, 0.95, tuple(dt.batch_shape))
        a, b = dt.icdf(torch.tensor(q)), dn.icdf(nb.tensor(q))
        np.testing.assert_allclose(_np(b), _np(a), **tol)
        outs_t.append(a)
        outs_n.append(b)
    # gradients of every output above, each weighted by a fixed random cotangent
    lt = sum((o * torch.tensor(w)).sum() for o, w in zip(outs_t, _weights(outs_t)))
    ln = sum((o * nb.tensor(w)).sum() for o, w in zip(outs_n, _weights(outs_t)))
    gt = torch.autograd.grad(lt, list(pt.values()))
    gn = nb.autograd.grad(ln, list(pn.values()))
    gtol = dict(rtol=1e-8, atol=1e-10) if case in LOOSE else dict(rtol=1e-10, atol=1e-12)
    for k, a, b in zip(pt, gt, gn):
        np.testing.assert_allclose(b.numpy(), a.numpy(), err_msg=k, **gtol)


def _weights(outs):
    r = np.random.default_rng(7)
    return [r.standard_normal(tuple(o.shape)) for o in outs]


def test_repr_and_lazy_parameters():
    d = ND.Bernoulli(logits=nb.tensor([0.0, 1.0]))
    assert "probs" not in d.__dict__
    np.testing.assert_allclose(d.probs.numpy(), 1 / (1 + np.exp(-np.array([0.0, 1.0]))))
    assert repr(ND.Normal(0.0, 1.0)) == repr(TD.Normal(0.0, 1.0))
    assert (
        repr(ND.Normal(nb.zeros(2), nb.ones(2)))
        == "Normal(loc: nbgrad.Size([2]), scale: nbgrad.Size([2]))"
    )
    assert (
        repr(ND.Independent(ND.Normal(0.0, 1.0), 0))
        == "Independent(Normal(loc: 0.0, scale: 1.0), 0)"
    )
    assert repr(ND.Uniform(nb.zeros(2), nb.ones(2)).support).startswith("Interval(lower_bound=")


def test_enumerate_support_matches_torch():
    pb, pc = rng.uniform(0.1, 0.9, (2, 3)), rng.uniform(0.1, 1, (2, 4))
    for t, n in (
        (TD.Bernoulli(torch.tensor(pb)), ND.Bernoulli(nb.tensor(pb))),
        (TD.Categorical(torch.tensor(pc)), ND.Categorical(nb.tensor(pc))),
        (TD.OneHotCategorical(torch.tensor(pc)), ND.OneHotCategorical(nb.tensor(pc))),
    ):
        for expand in (True, False):
            a, b = t.enumerate_support(expand), n.enumerate_support(expand)
            np.testing.assert_array_equal(b.numpy(), a.numpy())


# -- KL divergence ------------------------------------------------------------------------

KL_PAIRS = {
    "normal": ("normal", {"loc": rng.standard_normal((2, 3)), "scale": _pos(2, 3)}),
    "bernoulli": ("bernoulli-probs", {"probs": np.array([0.0, 0.3, 0.5, 0.9, 1.0])}),
    "bernoulli-logits": ("bernoulli-logits", {"logits": rng.standard_normal(5) * 3}),
    "categorical": ("categorical-probs", {"probs": rng.uniform(0.1, 1.0, (3, 4))}),
    "onehot": ("onehot", {"logits": rng.standard_normal((2, 4))}),
    "uniform": ("uniform", {"low": np.array([-2.0, 0.1, 2.5]), "high": np.array([2.0, 0.4, 6.0])}),
    "mvn": ("mvn-cov", {"loc": rng.standard_normal((2, 3)), "cov": _spd(3, (2,))}),
    "mvn-tril": ("mvn-tril", {"loc": rng.standard_normal(3), "tril": np.linalg.cholesky(_spd(3))}),
    "independent": ("independent", {"loc": rng.standard_normal((2, 3)), "scale": _pos(2, 3)}),
    "exponential": ("exponential", {"rate": _pos(4)}),
    "laplace": ("laplace", {"loc": rng.standard_normal(4), "scale": _pos(4)}),
    "lognormal": ("lognormal", {"loc": rng.standard_normal(4), "scale": _pos(4)}),
    "gamma": ("gamma", {"concentration": _pos(4), "rate": _pos(4)}),
    "beta": ("beta", {"c1": _pos(4), "c0": _pos(4)}),
    "dirichlet": ("dirichlet", {"concentration": _pos(2, 3)}),
}


@pytest.mark.parametrize("pair", list(KL_PAIRS))
def test_kl_divergence_matches_torch(pair):
    case, q_params = KL_PAIRS[pair]
    make = CASES[case][0]
    dpt, ppt, _, _ = _build(case, torch)
    dpn, ppn, _, _ = _build(case, nb)
    qt = {k: torch.tensor(v, requires_grad=True) for k, v in q_params.items()}
    qn = {k: nb.tensor(v, requires_grad=True) for k, v in q_params.items()}
    kt, kn = TD.kl_divergence(dpt, make(TD, qt)), ND.kl_divergence(dpn, make(ND, qn))
    assert tuple(kn.shape) == tuple(kt.shape)
    np.testing.assert_allclose(_np(kn), _np(kt), rtol=1e-12, atol=1e-12)
    # the reverse direction as well
    kt2, kn2 = TD.kl_divergence(make(TD, qt), dpt), ND.kl_divergence(make(ND, qn), dpn)
    np.testing.assert_allclose(_np(kn2), _np(kt2), rtol=1e-12, atol=1e-12)
    finite = np.isfinite(_np(kt)) & np.isfinite(_np(kt2))
    w = np.where(finite, np.random.default_rng(3).standard_normal(finite.shape), 0.0)
    lt = ((torch.where(torch.tensor(finite), kt + kt2, 0.0)) * torch.tensor(w)).sum()
    ln = ((nb.where(nb.tensor(finite), kn + kn2, nb.tensor(0.0))) * nb.tensor(w)).sum()
    vt = list(ppt.values()) + list(qt.values())
    vn = list(ppn.values()) + list(qn.values())
    gt = torch.autograd.grad(lt, vt, allow_unused=True)
    gn = nb.autograd.grad(ln, vn, allow_unused=True)
    tol = dict(rtol=1e-8, atol=1e-10) if case in LOOSE else dict(rtol=1e-10, atol=1e-12)
    for a, b in zip(gt, gn):
        if a is None:
            assert b is None or not np.any(b.numpy())
            continue
        np.testing.assert_allclose(b.numpy(), a.numpy(), **tol)


def test_kl_infinite_and_errors():
    u1, u2 = ND.Uniform(0.0, 1.0), ND.Uniform(0.5, 2.0)
    assert float(ND.kl_divergence(u1, u2)) == math.inf
    with pytest.raises(
        NotImplementedError,
        match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type Gamma",
    ):
        ND.kl_divergence(ND.Normal(0.0, 1.0), ND.Gamma(1.0, 1.0))
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        ND.register_kl(int, ND.Normal)
    mvn2 = ND.MultivariateNormal(nb.zeros(2), nb.eye(2))
    mvn3 = ND.MultivariateNormal(nb.zeros(3), nb.eye(3))
    with pytest.raises(ValueError, match="different event shapes"):
        ND.kl_divergence(mvn2, mvn3)


def test_register_kl_dispatch_to_subclass():
    class MyNormal(ND.Normal):
        pass

    p, q = MyNormal(0.0, 1.0), ND.Normal(1.0, 2.0)
    base = ND.kl_divergence(ND.Normal(0.0, 1.0), q)
    assert float(ND.kl_divergence(p, q)) == float(base)  # falls back to (Normal, Normal)

    @ND.register_kl(MyNormal, ND.Normal)
    def _kl(p, q):
        return nb.tensor(-1.0)

    assert float(ND.kl_divergence(p, q)) == -1.0
    assert float(ND.kl_divergence(q, p)) == float(ND.kl_divergence(q, ND.Normal(0.0, 1.0)))


# -- sampling -----------------------------------------------------------------------------


def _t(v, grad=True):
    return nb.tensor(v, dtype=nb.float64, requires_grad=grad)


def test_rsample_gradients_closed_form():
    n = 50
    loc = _t([0.5, -1.0])
    scale = _t([2.0, 0.3])
    x = ND.Normal(loc, scale).rsample((n,))
    gl, gs = nb.autograd.grad(x.sum(), [loc, scale])
    np.testing.assert_allclose(gl.numpy(), [n, n])  # d/dloc of rsample().sum() = n
    eps = (x.detach().numpy() - [0.5, -1.0]) / [2.0, 0.3]
    np.testing.assert_allclose(gs.numpy(), eps.sum(0), rtol=1e-12)

    low = _t([0.0, 1.0])
    high = _t([1.0, 4.0])
    x = ND.Uniform(low, high).rsample((n,))
    u = (x.detach().numpy() - [0.0, 1.0]) / [1.0, 3.0]
    gl, gh = nb.autograd.grad(x.sum(), [low, high])
    np.testing.assert_allclose(gl.numpy(), (1 - u).sum(0), rtol=1e-10)
    np.testing.assert_allclose(gh.numpy(), u.sum(0), rtol=1e-10)

    rate = _t([0.5, 3.0])
    x = ND.Exponential(rate).rsample((n,))
    (g,) = nb.autograd.grad(x.sum(), [rate])
    np.testing.assert_allclose(g.numpy(), (-x.detach().numpy() / [0.5, 3.0]).sum(0), rtol=1e-12)

    for D in (ND.Laplace, ND.LogNormal):
        loc = _t([0.2, -0.4])
        x = D(loc, _t([0.7, 1.1], False)).rsample((n,))
        (g,) = nb.autograd.grad(x.sum(), [loc])
        want = [n, n] if D is ND.Laplace else x.detach().numpy().sum(0)
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-12)

    loc = _t([0.2, -0.4, 1.0])
    tril = nb.tensor(np.linalg.cholesky(_spd(3)), requires_grad=True)
    x = ND.MultivariateNormal(loc, scale_tril=tril).rsample((n,))
    gl, gt = nb.autograd.grad(x.sum(), [loc, tril])
    np.testing.assert_allclose(gl.numpy(), [n, n, n])
    eps = np.linalg.solve(tril.detach().numpy(), (x.detach().numpy() - loc.detach().numpy()).T)
    np.testing.assert_allclose(gt.numpy(), np.ones((3, 1)) * eps.sum(1), rtol=1e-9)  # L @ eps


def test_gamma_rsample_implicit_gradient():
    """dx/dalpha of a Gamma(alpha, rate) draw equals the derivative of the quantile
    function at the draw's CDF level (a finite difference of SciPy's gammaincinv)."""
    alpha = _t([0.3, 1.0, 4.5, 30.0])
    rate = _t([1.0, 2.0, 0.5, 1.5])
    nb.manual_seed(3)
    x = ND.Gamma(alpha, rate).rsample()
    ga, gr = nb.autograd.grad(x.sum(), [alpha, rate])
    a, r, xv = alpha.detach().numpy(), rate.detach().numpy(), x.detach().numpy()
    u = sp.gammainc(a, xv * r)
    h = 1e-6 * a
    want = (sp.gammaincinv(a + h, u) - sp.gammaincinv(a - h, u)) / (2 * h) / r
    np.testing.assert_allclose(ga.numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(gr.numpy(), -xv / r, rtol=1e-12)


def test_beta_dirichlet_rsample_gradients_unbiased():
    """E[dx/dc] = d E[x] / dc: the mean of the reparameterised gradients over many draws
    matches the derivative of the mean."""
    nb.manual_seed(1)
    c1 = nb.tensor([1.5], requires_grad=True)
    c0 = nb.tensor([3.0], requires_grad=True)
    x = ND.Beta(c1, c0).rsample((20000,))
    g1, g0 = nb.autograd.grad(x.mean(), [c1, c0])
    np.testing.assert_allclose(g1.numpy(), 3.0 / 4.5**2, rtol=0.05)
    np.testing.assert_allclose(g0.numpy(), -1.5 / 4.5**2, rtol=0.05)
    c = nb.tensor([0.8, 2.0, 3.2], requires_grad=True)
    x = ND.Dirichlet(c).rsample((20000,))
    (g,) = nb.autograd.grad(x[:, 0].mean(), [c])
    s = 6.0
    np.testing.assert_allclose(
        g.numpy(), [(s - 0.8) / s**2, -0.8 / s**2, -0.8 / s**2], rtol=0.05, atol=2e-3
    )


SAMPLED = {
    "normal": lambda D: D.Normal(nb.tensor([0.5, -2.0]), nb.tensor([1.0, 0.3])),
    "bernoulli": lambda D: D.Bernoulli(nb.tensor([0.2, 0.7])),
    "categorical": lambda D: D.Categorical(nb.tensor([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])),
    "onehot": lambda D: D.OneHotCategorical(nb.tensor([0.1, 0.6, 0.3])),
    "uniform": lambda D: D.Uniform(nb.tensor([0.0, -3.0]), nb.tensor([1.0, 5.0])),
    "mvn": lambda D: D.MultivariateNormal(
        nb.tensor([1.0, -1.0]), nb.tensor([[2.0, 0.5], [0.5, 1.0]])
    ),
    "exponential": lambda D: D.Exponential(nb.tensor([0.5, 2.0])),
    "laplace": lambda D: D.Laplace(nb.tensor([0.5, -1.0]), nb.tensor([1.0, 2.0])),
    "lognormal": lambda D: D.LogNormal(nb.tensor([0.0, 0.3]), nb.tensor([0.25, 0.5])),
    "gamma": lambda D: D.Gamma(nb.tensor([0.5, 3.0]), nb.tensor([1.0, 2.0])),
    "beta": lambda D: D.Beta(nb.tensor([0.5, 3.0]), nb.tensor([2.0, 2.0])),
    "dirichlet": lambda D: D.Dirichlet(nb.tensor([0.5, 1.0, 3.0])),
}


@pytest.mark.parametrize("name", list(SAMPLED))
def test_sample_moments_and_reproducibility(name):
    d = SAMPLED[name](ND)
    nb.manual_seed(12)
    s = d.sample((40000,))
    assert tuple(s.shape) == (40000,) + tuple(d.batch_shape) + tuple(d.event_shape)
    assert not s.requires_grad
    x = s.numpy().astype(np.float64)
    if name == "categorical":
        probs = d.probs.numpy()
        freq = np.stack([(x == k).mean(0) for k in range(3)], -1)
        np.testing.assert_allclose(freq, probs, atol=0.01)
    else:
        mean, var = d.mean.numpy(), d.variance.numpy()
        se = np.sqrt(var / x.shape[0])
        assert np.all(np.abs(x.mean(0) - mean) < 5 * se + 1e-6), (x.mean(0), mean)
        np.testing.assert_allclose(x.var(0), var, rtol=0.1)
        assert bool(d.support.check(s).numpy().all())
    nb.manual_seed(12)
    np.testing.assert_array_equal(d.sample((40000,)).numpy(), s.numpy())


# -- validation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda D, T: D.Normal(T(0.0), T(-1.0)),
        lambda D, T: D.Normal(T([0.0, 1.0]), T([1.0, 0.0])),
        lambda D, T: D.Bernoulli(probs=T(1.5)),
        lambda D, T: D.Categorical(probs=T([0.5, -0.1, 0.6])),
        lambda D, T: D.Uniform(T(1.0), T(0.0)),
        lambda D, T: D.Exponential(T(-2.0)),
        lambda D, T: D.Gamma(T(1.0), T(0.0)),
        lambda D, T: D.Beta(T(-1.0), T(1.0)),
        lambda D, T: D.Dirichlet(T([1.0, -1.0])),
        lambda D, T: D.MultivariateNormal(T([0.0, 0.0]), T([[1.0, 2.0], [2.0, 1.0]])),
        lambda D, T: D.MultivariateNormal(T([0.0, 0.0]), scale_tril=T([[1.0, 1.0], [0.0, 1.0]])),
        lambda D, T: D.Bernoulli(T(0.5), T(0.0)),
        lambda D, T: D.Categorical(probs=T(1.0)),
        lambda D, T: D.MultivariateNormal(T(0.0), T([[1.0]])),
        lambda D, T: D.MultivariateNormal(T([0.0]), T([[1.0]]), T([[1.0]])),
        lambda D, T: D.MultivariateNormal(T([0.0]), scale_tril=T([1.0])),
        lambda D, T: D.Independent(D.Normal(T([0.0]), T([1.0])), 2),
    ],
)
def test_bad_parameters_match_torch(make):
    with pytest.raises(ValueError) as et:
        make(TD, lambda v: torch.tensor(v, dtype=torch.float64))
    with pytest.raises(ValueError) as en:
        make(ND, lambda v: nb.tensor(v, dtype=nb.float64))
    want = str(et.value).replace("torch.", "nbgrad.")
    head = want.split("\n")[0]
    assert str(en.value).split("\n")[0] == head
    if "\n" in want and "(Tensor of shape ())" in want:  # the 0-d value is printed as a number
        assert str(en.value) == want


@pytest.mark.parametrize(
    "make, value",
    [
        (lambda D, T: D.Bernoulli(T(0.3)), 0.5),
        (lambda D, T: D.Exponential(T(1.0)), -1.0),
        (lambda D, T: D.Uniform(T(0.0), T(1.0)), 1.5),
        (lambda D, T: D.Gamma(T(2.0), T(1.0)), -0.1),
        (lambda D, T: D.Beta(T(2.0), T(1.0)), 1.5),
        (lambda D, T: D.LogNormal(T(0.0), T(1.0)), -1.0),
        (lambda D, T: D.Categorical(T([0.5, 0.5])), 2.0),
        (lambda D, T: D.Normal(T([0.0, 1.0]), T([1.0, 1.0])), [1.0, 2.0, 3.0]),
        (lambda D, T: D.MultivariateNormal(T([0.0, 0.0]), T([[1.0, 0.0], [0.0, 1.0]])), [1.0]),
        (lambda D, T: D.Dirichlet(T([1.0, 1.0])), [0.5, 0.6]),
        (lambda D, T: D.OneHotCategorical(T([0.5, 0.5])), [1.0, 1.0]),
    ],
)
def test_bad_values_match_torch(make, value):
    def run(D, T):
        return make(D, T).log_prob(T(value))

    with pytest.raises(ValueError) as et:
        run(TD, lambda v: torch.tensor(v, dtype=torch.float64))
    with pytest.raises(ValueError) as en:
        run(ND, lambda v: nb.tensor(v, dtype=nb.float64))
    want = str(et.value).replace("torch.Size", "nbgrad.Size")
    assert str(en.value).split("\n")[0] == want.split("\n")[0]


def test_value_must_be_a_tensor_and_validation_switches():
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        ND.Normal(0.0, 1.0).log_prob(1.0)
    d = ND.Normal(nb.tensor(0.0), nb.tensor(-1.0), validate_args=False)  # accepted
    assert math.isnan(float(d.log_prob(nb.tensor(0.0))))
    ND.Distribution.set_default_validate_args(False)
    try:
        ND.Exponential(nb.tensor(-1.0))
        assert float(ND.Exponential(1.0).log_prob(nb.tensor(-1.0))) == 1.0
    finally:
        ND.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        ND.Exponential(nb.tensor(-1.0))
    with pytest.raises(ValueError):
        ND.Distribution.set_default_validate_args(2)
    with pytest.raises(NotImplementedError, match="gammainc with respect to its first"):
        a = nb.tensor(2.0, requires_grad=True)
        ND.Gamma(a, 1.0).cdf(nb.tensor(1.0)).backward()


@pytest.mark.parametrize("case", list(CASES))
def test_float32_dtypes_and_values(case):
    """float32 parameters give float32 results (no silent promotion), close to torch's."""
    make, params, value, extra = CASES[case]
    pt = {k: torch.tensor(v, dtype=torch.float32) for k, v in params.items()}
    pn = {k: nb.tensor(v, dtype=nb.float32) for k, v in params.items()}
    v32 = value.astype(np.float32) if value.dtype.kind == "f" else value
    dt, dn = make(TD, pt), make(ND, pn)
    outs = [
        (dt.log_prob(torch.tensor(v32)), dn.log_prob(nb.tensor(v32))),
        (dt.entropy(), dn.entropy()),
        (dt.mean, dn.mean),
        (dt.variance, dn.variance),
        (dt.sample((2,)), dn.sample((2,))),
    ]
    if "rsample" in dir(dt) and dt.has_rsample:
        outs.append((dt.rsample((2,)), dn.rsample((2,))))
    for name in extra:
        q = torch.tensor(v32) if name == "cdf" else torch.full(dt.batch_shape, 0.3)
        outs.append((getattr(dt, name)(q), getattr(dn, name)(nb.tensor(q.numpy()))))
    for i, (a, b) in enumerate(outs):
        assert str(b.dtype).split(".")[-1] == str(a.dtype).split(".")[-1], i
        assert tuple(b.shape) == tuple(a.shape), i
        if i < 4 or i >= len(outs) - len(extra):
            np.testing.assert_allclose(_np(b), _np(a), rtol=2e-5, atol=2e-5, equal_nan=True)


@pytest.mark.parametrize("case", list(CASES))
def test_expand_matches_torch(case):
    dt, pt, vt, _ = _build(case, torch)
    dn, pn, vn, _ = _build(case, nb)
    shape = (2,) + tuple(dt.batch_shape)
    et, en = dt.expand(torch.Size(shape)), dn.expand(shape)
    assert tuple(en.batch_shape) == tuple(et.batch_shape) == shape
    assert tuple(en.event_shape) == tuple(et.event_shape)
    assert type(en) is type(dn)
    a, b = et.log_prob(vt[0]), en.log_prob(vn[0])  # one value, broadcast over the batch
    assert tuple(b.shape) == tuple(a.shape)
    np.testing.assert_allclose(_np(b), _np(a), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(en.entropy()), _np(et.entropy()), rtol=1e-12, atol=1e-12)
    assert tuple(en.sample((3,)).shape) == tuple(et.sample((3,)).shape)
    # the expanded parameters are views of the originals: gradients flow back
    (b.sum() + en.entropy().sum()).backward()
    assert all(p.grad is not None for p in pn.values())


@pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")
def test_cuda_parameters_match_cpu():
    """The composed families run on CUDA tensors: same values and gradients as on the CPU,
    samples on the device."""
    res = []
    for dev in ("cpu", "cuda"):
        loc = nb.tensor([0.5, -1.0], dtype=nb.float64, device=dev, requires_grad=True)
        sc = nb.tensor([1.5, 0.5], dtype=nb.float64, device=dev, requires_grad=True)
        v = nb.tensor([0.1, 0.2], dtype=nb.float64, device=dev)
        d = ND.Normal(loc, sc)
        b = ND.Bernoulli(logits=loc)
        c = ND.Categorical(logits=nb.stack([loc, sc], -1))
        total = (
            (d.log_prob(v) + d.entropy() + d.cdf(v)).sum()
            + ND.kl_divergence(d, ND.Normal(sc, loc.abs() + 1)).sum()
            + b.log_prob(nb.tensor([1.0, 0.0], dtype=nb.float64, device=dev)).sum()
            + c.log_prob(nb.tensor([0, 1], device=dev)).sum()
            + c.entropy().sum()
        )
        grads = nb.autograd.grad(total, [loc, sc])
        assert d.rsample((3,)).is_cuda == (dev == "cuda") == c.sample((2,)).is_cuda
        res.append([total.item()] + [g.cpu().numpy() for g in grads])
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-13)
    for a, b in zip(res[0][1:], res[1][1:]):
        np.testing.assert_allclose(b, a, rtol=1e-12)
