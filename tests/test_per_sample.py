"""Per-sample gradients: grad(losses, params, diag seed, is_grads_batched=True).

A diagonal (B, B) seed over B losses takes the diagonal-cotangent path
(autograd/derivatives/per_sample.py); every case is checked against one compiled backward per
sample (the plain sweep, an independent implementation), seeded with that sample's row.
"""

import numpy as np
import pytest

import nbgrad

B, D, H = 5, 3, 4
rng = np.random.default_rng(7)
XB, YB = rng.standard_normal((B, D)), rng.standard_normal((B, 1))
W1, B1 = rng.standard_normal((H, D)) / 2, rng.standard_normal(H) / 3
W2 = rng.standard_normal((1, H)) / 2
SCALE_ROW, SCALE_VEC = rng.uniform(0.5, 1.5, (1, D)), rng.uniform(0.5, 1.5, D)


def _params():
    return [nbgrad.tensor(a, requires_grad=True) for a in (W1, B1, W2, SCALE_ROW, SCALE_VEC)]


def mlp(ps):
    """Linear with and without bias, tanh, broadcast targets, a square, a reshape, and
    parameters broadcast over the rows both as (1, D) and as (D,)."""
    w1, b1, w2, srow, svec = ps
    x = nbgrad.tensor(XB) * srow + svec * svec
    h = nbgrad.tanh(nbgrad.nn.functional.linear(x, w1, b1))
    return ((nbgrad.nn.functional.linear(h, w2) - nbgrad.tensor(YB)) ** 2).reshape(B)


def softmaxed(ps):
    """A row the diagonal path does not handle (softmax over each row): densified."""
    w1, b1, w2, srow, svec = ps
    z = nbgrad.nn.functional.linear(nbgrad.tensor(XB) * srow, w1, b1)
    return (nbgrad.softmax(z, dim=1) * svec.sum()).sum(dim=1) + (w2 * w2).sum()


def summed(ps):
    """Sums and means over each row's other dims (what vmap's per-sample losses end in):
    the cotangent stays diagonal."""
    w1, b1, w2, srow, svec = ps
    h = nbgrad.tanh(nbgrad.nn.functional.linear(nbgrad.tensor(XB) * srow, w1, b1))
    return (h * w2).sum(1) + (h.reshape(B, 2, 2) ** 2).mean(dim=(1, 2)) * svec.sum()


def per_sample_loop(fn, seed):
    """Row b of the batched result: a plain backward of fn seeded with seed[b]."""
    out = []
    for b in range(seed.shape[0]):
        ps = _params()
        losses = fn(ps)
        gs = nbgrad.autograd.grad(losses, ps, nbgrad.tensor(seed[b]))
        out.append([g.numpy() for g in gs])
    return [np.stack([o[j] for o in out]) for j in range(len(out[0]))]


@pytest.mark.parametrize("fn", [mlp, softmaxed, summed], ids=["mlp", "densified", "summed"])
@pytest.mark.parametrize("seed", ["eye", "scaled-eye", "dense"])
def test_per_sample_grads(fn, seed):
    s = {
        "eye": np.eye(B),
        "scaled-eye": np.diag(rng.uniform(-2, 2, B)),
        "dense": rng.standard_normal((B, B)),
    }[seed]
    ps = _params()
    got = nbgrad.autograd.grad(fn(ps), ps, nbgrad.tensor(s), is_grads_batched=True)
    want = per_sample_loop(fn, s)
    for g, w, p in zip(got, want, ps):
        assert tuple(g.shape) == (B,) + tuple(p.shape)
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-10, atol=1e-12)


def test_per_sample_matches_torch_vmap():
    torch = pytest.importorskip("torch")
    ps = _params()
    got = nbgrad.autograd.grad(
        mlp(ps), ps, nbgrad.eye(B, dtype=nbgrad.float64), True, False, is_grads_batched=True
    )[:3]

    def loss(params, x, y):
        w1, b1, w2 = params
        x = x * torch.tensor(SCALE_ROW[0]) + torch.tensor(SCALE_VEC) ** 2
        return ((w2 @ torch.tanh(w1 @ x + b1) - y) ** 2).sum()

    tp = tuple(torch.tensor(a) for a in (W1, B1, W2))
    ref = torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))(
        tp, torch.tensor(XB), torch.tensor(YB)
    )
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-10, atol=1e-12)


def _vmap_grad_call(dtype):
    def loss(params, x, y):
        w1, w2 = params
        return ((w2 @ nbgrad.tanh(w1 @ x) - y) ** 2).sum()

    params = (nbgrad.tensor(W1, dtype=dtype), nbgrad.tensor(W2, dtype=dtype))
    per = nbgrad.func.vmap(nbgrad.func.grad(loss), in_dims=(None, 0, 0))
    return per(params, nbgrad.tensor(XB, dtype=dtype), nbgrad.tensor(YB, dtype=dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_vmap_grad_weight_gradients_by_the_closed_form(dtype):
    """vmap(grad) over shared parameters (the identity-seeded batched VJP and its
    per-sample outer products): each sample's gradients by the closed form."""
    g1, g2 = _vmap_grad_call(getattr(nbgrad, dtype))
    assert g1.dtype == getattr(nbgrad, dtype) and tuple(g1.shape) == (B, H, D)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for b in range(B):
        h = np.tanh(W1 @ XB[b])
        e = (W2 @ h - YB[b, 0]).item()
        np.testing.assert_allclose(g2.numpy()[b], 2 * e * h[None, :], rtol=tol, atol=tol)
        want = 2 * e * np.outer(W2[0] * (1 - h * h), XB[b])
        np.testing.assert_allclose(g1.numpy()[b], want, rtol=tol, atol=tol)


def test_vmap_grad_results_are_freed_without_the_garbage_collector():
    """No reference cycle holds a call's results (one kept every result's arrays alive
    until the collector ran: fresh memory, page faults, on every call)."""
    import gc
    import weakref

    gc.collect()
    gc.disable()
    try:
        g1, _ = _vmap_grad_call(nbgrad.float64)
        ref = weakref.ref(g1)
        del g1, _
        assert ref() is None
    finally:
        gc.enable()


def test_vmap_grad_runs_the_function_on_every_call():
    """Python side effects and random draws happen on every call, as in torch.func."""
    calls = []

    def loss(w, x):
        calls.append(1)
        return (w * x).sum() + (nbgrad.rand(()) * w).sum()

    per = nbgrad.func.vmap(nbgrad.func.grad(loss), in_dims=(None, 0), randomness="same")
    w, x = nbgrad.tensor(W2[0]), nbgrad.tensor(rng.standard_normal((B, H)))
    a, b = per(w, x), per(w, x)
    assert len(calls) == 2
    assert not np.allclose(a.numpy(), b.numpy())  # a fresh draw per call
    np.testing.assert_allclose((a - x).numpy(), (a - x).numpy()[:1].repeat(B, 0))  # "same"
