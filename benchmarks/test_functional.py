"""Functional-API benchmarks: nbgrad against torch in the same groups.

Groups:

  jacobian-64       autograd.functional.jacobian(f, x, vectorize=True) of
                    f(x) = tanh(W @ tanh(W @ x)) * x, x in R^64 (float64)
  hessian-64        autograd.functional.hessian(g, x, vectorize=True) of the scalar
                    g(x) = sum(f(x)^2) + sum(sin(x) * exp(x)), x in R^64
  per-sample-grads  per-sample gradients of a 16-32-1 tanh MLP's squared error over a
                    batch of 256: func.vmap(func.grad(loss)) over the batch in both
                    (nbgrad's: one batched forward, one compiled sweep of the summed
                    losses and per-sample rules where the parameters enter); variant
                    "nbgrad-batched-vjp": one batched VJP
                    (is_grads_batched, seeded with eye(B): the diagonal-cotangent path)

Each benchmark checks its result against a reference (finite differences or torch).
Thread pools are left at the libraries' defaults. On a shared, loaded machine torch's idle
OpenMP workers spin against other processes and its times swing by tens of times; run
with OMP_NUM_THREADS=1 for a stable comparison (these graphs are too small to gain from
threads; nbgrad runs them on one thread, except the per-sample case's big arrays).
"""

import numpy as np
import pytest

from benchmarks.conftest import Peer

N = 64
rng = np.random.default_rng(0)
W = rng.standard_normal((N, N)) / np.sqrt(N)
X = rng.standard_normal(N)


@pytest.fixture(params=("nbgrad", "torch"))
def tpeer(request):
    return Peer(request.param)


def tag(benchmark, group, peer):
    benchmark.group = group
    benchmark.extra_info["peer"] = peer


def f(mod, w):
    return lambda x: mod.tanh(w @ mod.tanh(w @ x)) * x


def g(mod, w):
    fx = f(mod, w)
    return lambda x: (fx(x) ** 2).sum() + (mod.sin(x) * mod.exp(x)).sum()


def num_jac(fn, x, eps=1e-6):
    return np.stack([(fn(x + e) - fn(x - e)) / (2 * eps) for e in np.eye(x.size) * eps], -1)


def _np_f(x):
    return np.tanh(W @ np.tanh(W @ x)) * x


def test_jacobian(benchmark, tpeer):
    tag(benchmark, "jacobian-64", tpeer.name)
    mod = tpeer.mod
    fn, x = f(mod, mod.tensor(W)), mod.tensor(X)

    def run():
        return mod.autograd.functional.jacobian(fn, x, vectorize=True)

    np.testing.assert_allclose(tpeer.to_numpy(run()), num_jac(_np_f, X), rtol=1e-6, atol=1e-8)
    benchmark(run)


def test_hessian(benchmark, tpeer):
    tag(benchmark, "hessian-64", tpeer.name)
    mod = tpeer.mod
    fn, x = g(mod, mod.tensor(W)), mod.tensor(X)

    def run():
        return mod.autograd.functional.hessian(fn, x, vectorize=True)

    H = tpeer.to_numpy(run())
    np.testing.assert_allclose(H, H.T, rtol=1e-9, atol=1e-10)
    if tpeer.name == "nbgrad":
        torch = pytest.importorskip("torch")
        ref = torch.autograd.functional.hessian(g(torch, torch.tensor(W)), torch.tensor(X))
        np.testing.assert_allclose(H, ref.numpy(), rtol=1e-9, atol=1e-10)
    benchmark(run)


B, D, HID = 256, 16, 32


def _per_sample_data():
    r = np.random.default_rng(1)
    w1, w2 = r.standard_normal((HID, D)) / 4, r.standard_normal((1, HID)) / 6
    xb, yb = r.standard_normal((B, D)), r.standard_normal((B, 1))
    return w1, w2, xb, yb


def _check_per_sample(peer, out, w1, w2, xb, yb):
    g1, g2 = (peer.to_numpy(t) for t in out)
    assert g1.shape == (B, HID, D) and g2.shape == (B, 1, HID)
    # sample 3 by the closed form: e = w2 tanh(w1 x) - y; d/dw2 = 2e h, d/dw1 = 2e (w2*(1-h^2))^T x
    h = np.tanh(w1 @ xb[3])
    e = (w2 @ h - yb[3, 0]).item()
    np.testing.assert_allclose(g2[3], 2 * e * h[None, :], rtol=1e-10)
    np.testing.assert_allclose(g1[3], 2 * e * np.outer(w2[0] * (1 - h * h), xb[3]), rtol=1e-10)


def test_per_sample_grads(benchmark, tpeer):
    tag(benchmark, "per-sample-grads", tpeer.name)
    mod = tpeer.mod
    w1, w2, xb, yb = _per_sample_data()
    fn = mod.func

    def loss(params, x, y):
        a, b = params
        return ((b @ mod.tanh(a @ x) - y) ** 2).sum()

    params = (mod.tensor(w1), mod.tensor(w2))
    per = fn.vmap(fn.grad(loss), in_dims=(None, 0, 0))
    xt, yt = mod.tensor(xb), mod.tensor(yb)

    def run():
        return per(params, xt, yt)

    _check_per_sample(tpeer, run(), w1, w2, xb, yb)
    benchmark(run)


def test_per_sample_grads_batched_vjp(benchmark):
    """nbgrad's other route: one batched VJP seeded with eye(B) (informational)."""
    import nbgrad as mod
    from benchmarks.conftest import Peer

    tag(benchmark, "per-sample-grads", "nbgrad-batched-vjp")
    w1, w2, xb, yb = _per_sample_data()
    p1, p2 = mod.tensor(w1, requires_grad=True), mod.tensor(w2, requires_grad=True)
    xt, yt, eye = mod.tensor(xb), mod.tensor(yb), mod.eye(B, dtype=mod.float64)
    F = mod.nn.functional

    def run():
        losses = ((F.linear(mod.tanh(F.linear(xt, p1)), p2) - yt) ** 2).reshape(B)
        return mod.autograd.grad(losses, (p1, p2), eye, is_grads_batched=True)

    _check_per_sample(Peer("nbgrad"), run(), w1, w2, xb, yb)
    benchmark(run)
