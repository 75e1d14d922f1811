"""Tensor.register_hook: a hook sees a tensor's whole gradient (from every consumer, also
those recorded before it was registered), may replace it, and is removable; on leaves it
runs before `.grad` takes the gradient; under create_graph too. Closed forms, and PyTorch
where installed."""

import numpy as np
import pytest

import nbgrad as nb


def test_hook_sees_the_whole_gradient_and_replaces_it():
    x = nb.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    a, b = y * 3, y * 4  # consumers recorded before the hook
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    y.register_hook(lambda g: g * 10)
    (a + b).sum().backward()
    assert seen == [[7.0, 7.0]]
    assert x.grad.tolist() == [140.0, 140.0]


def test_leaf_hook_runs_before_accumulation_and_is_removable():
    x = nb.tensor([1.0, -2.0], requires_grad=True)
    seen = []
    h = x.register_hook(lambda g: seen.append(g.tolist()) or g.clamp(min=0))
    (x * x).sum().backward()  # gradient 2x = [2, -4], clamped by the hook
    assert seen == [[2.0, -4.0]] and x.grad.tolist() == [2.0, 0.0]
    h.remove()
    (x * x).sum().backward()
    assert seen == [[2.0, -4.0]] and x.grad.tolist() == [4.0, -4.0]


def test_hook_outlives_its_tensor_and_goes_with_the_graph():
    x = nb.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g + 1)
    z = y.sum()
    del y  # the graph still holds y's node, and with it the hook
    (gx,) = nb.autograd.grad(z, x)
    assert gx.tolist() == [6.0, 6.0]
    (gx,) = nb.autograd.grad((x * 3).sum(), x)  # a new graph: no hook
    assert gx.tolist() == [3.0, 3.0]


def test_hook_errors():
    x = nb.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        nb.tensor([1.0]).register_hook(lambda g: g)
    y = x * 2
    y.register_hook(lambda g: g[:1])
    with pytest.raises(RuntimeError, match="has changed the size of value"):
        y.sum().backward()
    z = x * 3
    z.register_hook(lambda g: g.numpy())
    loss = z.sum()
    with pytest.raises(TypeError, match="must return None or a Tensor"):
        loss.backward()
    assert x.grad is None  # nothing accumulated by the failed pass


def _program(m):
    log = []
    x = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
    w = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
    h = x * w
    h.register_hook(lambda g: log.append(("h", g.tolist())))
    h.register_hook(lambda g: g * 10)
    z = (h.sin() * h).sum()
    x.register_hook(lambda g: log.append(("x", g.tolist())))
    hw = w.register_hook(lambda g: g.clamp(max=1.0))
    z.register_hook(lambda g: g * 2)
    z.backward(retain_graph=True)
    first = (x.grad.tolist(), w.grad.tolist())
    hw.remove()
    z.backward()
    # under create_graph: hooks on a non-leaf and on a leaf
    u = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
    v = u * u
    v.register_hook(lambda g: g * 3)
    u.register_hook(lambda g: log.append(("u", g.detach().tolist())))
    (gu,) = m.autograd.grad(v.sin().sum(), u, create_graph=True)
    gu.sum().backward()
    return log, first, x.grad.tolist(), w.grad.tolist(), gu.tolist(), u.grad.tolist()


def test_hooks_as_torch():
    torch = pytest.importorskip("torch")
    got, want = _program(nb), _program(torch)
    assert [k for k, _ in got[0]] == [k for k, _ in want[0]]
    for (_, g), (_, w) in zip(got[0], want[0]):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    for g, w in zip(got[1:], want[1:]):
        np.testing.assert_allclose(np.array(g, float), np.array(w, float), rtol=1e-12)
