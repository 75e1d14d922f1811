"""Per-sample gradients w.r.t. shared parameters, `vmap(grad(f), in_dims=(None, 0, ...))`,
against torch.func: graphs the compiled sweep of the summed losses covers (linear layers
with and without bias, tied weights, parameters broadcast in elementwise ops, reductions
and views per sample) and graphs it hands to the Diag walk (a parameter transformed
before use, hooks), with the path each took checked."""

import numpy as np
import pytest

import nbgrad as nb
from nbgrad.autograd.derivatives import per_sample

torch = pytest.importorskip("torch")

R = np.random.default_rng(7)
XB = R.standard_normal((6, 4))
YB = R.standard_normal((6, 3))
W1, B1 = R.standard_normal((5, 4)) / 2, R.standard_normal(5) / 3
W2, S = R.standard_normal((3, 5)) / 2, R.standard_normal(3)
V, C = R.standard_normal(4), np.array(0.7)


@pytest.fixture
def took(monkeypatch):
    """The paths taken: True per call of the compiled sweep, False per hand-over."""
    seen = []
    real = per_sample.shared_grads

    def spy(losses, leaves):
        out = real(losses, leaves)
        seen.append(out is not None)
        return out

    monkeypatch.setattr(per_sample, "shared_grads", spy)
    return seen


def _per_sample(build, params, *data, dtype=np.float64, argnums=0):
    outs = []
    for m in (nb, torch):
        ps = tuple(m.tensor(p.astype(dtype)) for p in params)
        ds = [m.tensor(d.astype(dtype)) for d in data]
        g = m.func.vmap(m.func.grad(build(m), argnums=argnums), in_dims=(None, *[0] * len(ds)))
        outs.append([t.detach().numpy() for t in g(ps, *ds)])
    return outs


def _check(outs, rtol=1e-10, atol=1e-12):
    for a, b in zip(*outs):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def mlp_bias(m):
    F = m.nn.functional

    def loss(p, x, y):
        w1, b1, w2, s = p[:4]
        h = F.linear(x, w1, b1).tanh()
        return ((F.linear(h, w2) * s - y) ** 2).mean()

    return loss


def tied(m):  # one weight in two layers: the per-sample parts add up
    def loss(p, x, y):
        w = p[0]
        return ((w @ x).sigmoid() * (w @ (x * 2)).tanh()).sum() / 3

    return loss


def broadcast(m):  # parameters broadcast in elementwise ops, views and sums per sample
    def loss(p, x, y):
        v, c = p[4], p[5]
        z = (x * v + c).unsqueeze(0).reshape(2, 2).exp()
        return z.mean() * (x.sum() - c) + (y * c).sum() / (v * x + 3).abs().sum()

    return loss


def transformed(m):  # a parameter transformed before use: the Diag walk
    def loss(p, x, y):
        w1, b1 = p[:2]
        return ((w1 * 2) @ x + b1).square().sum()

    return loss


@pytest.mark.parametrize("build", [mlp_bias, tied, broadcast])
def test_compiled_sweep_matches_torch(build, took):
    _check(_per_sample(build, (W1, B1, W2, S, V, C), XB, YB))
    assert took and all(took)


def test_float32(took):
    _check(_per_sample(mlp_bias, (W1, B1, W2, S), XB, YB, dtype=np.float32), 1e-5, 1e-6)
    assert took == [True]


def test_transformed_parameter_takes_the_diag_walk(took):
    _check(_per_sample(transformed, (W1, B1, W2, S), XB, YB))
    assert took == [False]


def test_unused_parameter_gets_zeros(took):
    def build(m):
        return lambda p, x, y: (p[0] @ x).tanh().sum()

    outs = _per_sample(build, (W1, B1), XB, YB)
    _check(outs)
    assert not outs[0][1].any() and outs[0][1].shape == (6, 5)
    assert took == [True]


def test_a_hook_outside_the_graph_keeps_the_compiled_sweep(took):
    t = nb.zeros(2, requires_grad=True)
    h = t.register_hook(lambda g: g * 0)
    try:
        _check(_per_sample(mlp_bias, (W1, B1, W2, S), XB, YB))
    finally:
        h.remove()
    assert took == [True]


def test_hooks_of_another_graph_keep_the_compiled_sweep(took):
    """A node hook, a multi-grad hook and values packed by saved-tensor hooks on another
    graph, still alive: this graph has none, so it keeps the compiled sweep."""
    t = nb.ones(3, requires_grad=True)
    with nb.autograd.graph.saved_tensors_hooks(lambda v: v, lambda v: v):
        u = t.exp()
        other = (u * t).sum()
    got = []
    h = other.grad_fn.register_hook(lambda gi, go: got.append("node"))
    nb.autograd.graph.register_multi_grad_hook((t, u), lambda gs: got.append(len(gs)))
    try:
        _check(_per_sample(mlp_bias, (W1, B1, W2, S), XB, YB))
        assert took == [True] and got == []
        other.backward()  # (the other graph still works, hooks and all)
    finally:
        h.remove()
    np.testing.assert_allclose(t.grad.numpy(), np.e * 2)
    assert got == ["node", 2]


def test_graph_is_freed_after_the_sweep():
    """The rows the sweep read are freed, as a backward without retain_graph frees them:
    each call's memory goes back (the same call repeated keeps its results)."""
    ps = tuple(nb.tensor(p) for p in (W1, B1, W2, S))
    g = nb.func.vmap(nb.func.grad(mlp_bias(nb)), in_dims=(None, 0, 0))
    first = [t.numpy().copy() for t in g(ps, nb.tensor(XB), nb.tensor(YB))]
    for _ in range(3):
        again = [t.numpy() for t in g(ps, nb.tensor(XB), nb.tensor(YB))]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)


def test_inplace_write_to_a_saved_value_raises(took):
    """A value saved for backward written in place inside the function: PyTorch's error
    before any kernel runs, on the compiled sweep as on the Diag walk."""

    def build(m):
        def loss(p, x, y):
            h = (p[0] @ x).sin()  # sin saves its input
            x.mul_(2)  # (not in the graph) the product's saved input changes
            return h.sum()

        return loss

    for m in (nb, torch):
        g = m.func.vmap(m.func.grad(build(m)), in_dims=(None, 0, 0))
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            g((m.tensor(W1),), m.tensor(XB.copy()), m.tensor(YB))
    assert took == []  # (raised inside the compiled path, before its sweep)


def test_fast_paths_match_the_rules():
    """Operators, unary functions, whole sums and matrix @ vector on batched tensors take
    shortcuts to the batch value; operands of other ranks or levels take the rules."""
    a3 = R.standard_normal((2, 6, 4))

    def build(m):
        A, P = m.tensor(W1), m.tensor(a3)

        def f(x, y):
            u = (2 * x - 1) ** 2 / (x.exp() + 1) + (x + P).sum((0, 1))  # P: a higher rank
            v = m.tanh(A @ x) * (A @ x).sum()  # x: a vector of the batch
            w = m.func.vmap(lambda r, s: (r * s + r).sum() + m.sin(r).mean())(x, u)
            return u, v, w, y ** x[:3]

        return f

    outs = []
    for m in (nb, torch):
        outs.append([t.numpy() for t in m.func.vmap(build(m))(m.tensor(XB), m.tensor(YB))])
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_saved_tensor_hooks_take_the_diag_walk(took):
    ref = _per_sample(mlp_bias, (W1, B1, W2, S), XB, YB)[1]  # (torch's)
    took.clear()
    packed = []

    def pack(t):
        packed.append(1)
        return t

    ps = tuple(nb.tensor(p) for p in (W1, B1, W2, S))
    g = nb.func.vmap(nb.func.grad(mlp_bias(nb)), in_dims=(None, 0, 0))
    with nb.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = [t.numpy() for t in g(ps, nb.tensor(XB), nb.tensor(YB))]
    _check([out, ref])
    assert packed and took == [False]


def test_repeated_calls_follow_their_arguments(took):
    """One vmap(grad) object called again with other parameters, another batch size and a
    loss that changes between calls: each result is fresh (nothing is kept from a call)."""
    choice = ["tanh"]

    def build(m):
        def loss(p, x, y):
            h = getattr(m, choice[0])(p[0] @ x)
            return ((p[1] @ h - y[0]) ** 2).sum()

        return loss

    fns = {m: m.func.vmap(m.func.grad(build(m)), in_dims=(None, 0, 0)) for m in (nb, torch)}
    w2 = R.standard_normal((1, 5))
    calls = [(W1, 6, "tanh"), (W1 * 3, 6, "tanh"), (W1, 4, "tanh"), (W1, 4, "sigmoid")]
    for w1, n, fn in calls:
        choice[0] = fn
        outs = []
        for m, g in fns.items():
            ps = (m.tensor(w1), m.tensor(w2))
            outs.append([t.numpy() for t in g(ps, m.tensor(XB[:n]), m.tensor(YB[:n]))])
        _check(outs)
    assert took == [True] * len(calls)


def test_vmap_calls_leave_the_tensor_class_alone():
    # a class attribute set at every call would use up Tensor's version tags (CPython 3.13
    # stops caching attribute lookups on a class changed ~1000 times): the methods vmap
    # needs are replaced once, by ones that look up whether a vmap call runs
    x = nb.randn(5, 3)
    nb.func.vmap(lambda r: r.add(r).sum())(x)  # the first call installs them
    before = dict(vars(nb.Tensor))
    seen = {}

    def f(r):
        seen.update(vars(nb.Tensor))
        return r.add(r).mul(2).sum()

    for _ in range(3):
        got = nb.func.vmap(f)(x)
    assert dict(vars(nb.Tensor)) == before and seen == before
    np.testing.assert_allclose(got.numpy(), 4 * x.numpy().sum(1), rtol=1e-6)
    y = nb.ones(3)  # outside vmap, the plain methods again
    assert y.add(y).tolist() == [2.0, 2.0, 2.0]


# -- the plans kept per graph structure (per_sample._PLANS): a repeated call skips the
# classification; each test below fails if a plan were reused where it must not be


@pytest.fixture
def built(monkeypatch):
    """The plans built (one per graph structure met), from an empty cache."""
    seen = []
    real = per_sample._build

    def spy(*args):
        plan = real(*args)
        seen.append(plan)
        return plan

    monkeypatch.setattr(per_sample, "_PLANS", {})
    monkeypatch.setattr(per_sample, "_build", spy)
    return seen


def test_a_plan_serves_calls_of_the_same_structure(built, took):
    ps = tuple(nb.tensor(p) for p in (W1, B1, W2, S))
    g = nb.func.vmap(nb.func.grad(mlp_bias(nb)), in_dims=(None, 0, 0))
    for scale in (1.0, 2.0, -0.5):  # other values, the same graph
        got = [t.numpy() for t in g(tuple(p * scale for p in ps), nb.tensor(XB), nb.tensor(YB))]
        ref = _per_sample(mlp_bias, tuple(p * scale for p in (W1, B1, W2, S)), XB, YB)[1]
        _check([got, ref])
    assert len(built) == 1 and took == [True] * 6


def test_parameters_swapped_between_calls(built, took):
    """Two parameters of one shape trading places: the same ops on the same shapes, but
    each parameter's gradient comes from the other's rows."""
    order = [0, 1]
    A = R.standard_normal((4, 4)) / 2

    def build(m):
        def loss(p, x, y):
            return ((p[order[1]] @ (p[order[0]] @ x).tanh()) ** 2).sum()

        return loss

    for o in ([0, 1], [1, 0], [0, 1]):
        order[:] = o
        _check(_per_sample(build, (W1[:4], A), XB, YB))
    assert took == [True] * 3 and len(built) == 2


def test_shapes_change_between_calls(built, took):
    """Parameters and samples of other sizes (the same ops) each get a plan."""

    def build(m):
        return lambda p, x, y: ((p[1] @ (p[0] @ x).tanh() - y) ** 2).sum()

    w2 = R.standard_normal((3, 5))
    for w1, n, xb in ((W1, 6, XB), (W1[:, :3], 6, XB[:, :3]), (W1, 3, XB)):
        _check(_per_sample(build, (w1, w2), xb[:n], YB[:n]))
    assert took == [True] * 3 and len(built) == 3


def test_graph_change_within_a_loss(built, took):
    """A loss whose ops depend on Python state: a parameter used, then transformed before
    use (the Diag walk: no plan applies), then used again."""
    scale = [None]

    def build(m):
        def loss(p, x, y):
            w = p[0] if scale[0] is None else p[0] * scale[0]
            return ((w @ x).sin() * y[0]).sum()

        return loss

    for s in (None, 2.0, None):
        scale[0] = s
        _check(_per_sample(build, (W1,), XB, YB))
    assert took == [True, False, True] and [p is None for p in built] == [False, True]


def test_hooks_after_a_planned_call_take_the_diag_walk(built, took):
    """Hooks added once a graph's plan exists are seen at the next call: a gradient hook on
    an input of the graph's rows, values packed by saved-tensor hooks."""
    ps = tuple(nb.tensor(p) for p in (W1, B1, W2, S))
    x = nb.tensor(XB, requires_grad=True)  # (an input that takes gradients elsewhere)
    g = nb.func.vmap(nb.func.grad(mlp_bias(nb)), in_dims=(None, 0, 0))
    ref = [t.numpy() for t in g(ps, x, nb.tensor(YB))]
    h = x.register_hook(lambda v: v)
    try:
        _check([[t.numpy() for t in g(ps, x, nb.tensor(YB))], ref])
    finally:
        h.remove()
    with nb.autograd.graph.saved_tensors_hooks(lambda v: v, lambda v: v):
        _check([[t.numpy() for t in g(ps, x, nb.tensor(YB))], ref])
    _check([[t.numpy() for t in g(ps, x, nb.tensor(YB))], ref])
    assert took == [True, False, False, True] and len(built) == 1


def test_inplace_write_after_a_planned_call_raises(built, took):
    write = [False]

    def loss(p, x, y):
        h = (p[0] @ x).sin()  # sin saves its input
        if write[0]:
            x.mul_(2)  # (not in the graph) the product's saved input changes
        return h.sum()

    g = nb.func.vmap(nb.func.grad(loss), in_dims=(None, 0, 0))
    g((nb.tensor(W1),), nb.tensor(XB.copy()), nb.tensor(YB))
    write[0] = True
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        g((nb.tensor(W1),), nb.tensor(XB.copy()), nb.tensor(YB))
    assert took == [True] and len(built) == 1
