"""A custom Function's backward that records (checkpoint-style recomputation under
enable_grad, even a nested backward) while the outer backward pass is paused at its row:
the recording grows the tape and the slot table under the paused pass, whose gradients
must survive it."""

import numpy as np
import pytest

import nbgrad


def _checkpointed(lib, n_ops):
    class Recompute(lib.autograd.Function):
        """forward: sin(x) * 2 without a graph; backward recomputes it with one (n_ops
        recorded ops, enough to grow the tape and the slot table) and differentiates it."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin() * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            with lib.enable_grad():
                xd = x.detach().requires_grad_(True)
                y = xd
                for _ in range(n_ops):
                    y = y * 1.0 + 0.0
                (gx,) = lib.autograd.grad((y.sin() * 2,), (xd,), (g,))
            return gx

    return Recompute


def _run(lib, a, n_ops):
    w = lib.tensor(a, requires_grad=True)
    x = w * 3
    loss = _checkpointed(lib, n_ops).apply(x).sum() + (w * w).sum()
    loss.backward()
    return w.grad


@pytest.mark.parametrize("n_ops", [10, 5000])
def test_recording_backward_keeps_the_outer_gradient(n_ops):
    a = np.linspace(-1, 1, 8)
    g = _run(nbgrad, a, n_ops)
    assert g is not None
    np.testing.assert_allclose(g.numpy(), 6 * np.cos(3 * a) + 2 * a, rtol=1e-12)


def test_recording_backward_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.linspace(-1, 1, 8)
    want = _run(torch, a, 5000).numpy()
    np.testing.assert_allclose(_run(nbgrad, a, 5000).numpy(), want, rtol=1e-12)


def test_nested_backward_into_a_shared_leaf():
    # the inner pass accumulates into a leaf the outer pass is also filling: each keeps
    # its own gradient buffers, so neither loses its part
    a = np.linspace(-1, 1, 5)
    w = nbgrad.tensor(a, requires_grad=True)

    class Inner(nbgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            with nbgrad.enable_grad():
                (w * w).sum().backward()  # adds 2w to w.grad in the middle of the pass
            return g

    (Inner.apply(w).sum() + (3 * w).sum()).backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * a + 1 + 3, rtol=1e-12)
