"""func.vmap and func.linearize against torch.func: batching rules (elementwise, reductions,
views, matmul, indexing, losses, ...), in_dims/out_dims as pytrees, nesting, composition
with the other transforms (per-sample gradients), randomness, chunking, the per-sample
fallback, and PyTorch's errors. Also: the function runs once per call (a batched program,
not a loop over the samples)."""

import warnings

import numpy as np
import pytest

import nbgrad as nb

torch = pytest.importorskip("torch")

R = np.random.default_rng(0)
X = R.standard_normal((5, 3, 4))
Y = R.standard_normal((5, 4))
W = R.standard_normal((4, 2))
V = R.standard_normal(4)
Z = R.standard_normal((5, 3))
# a test with this mark fails if an op runs per sample (no batching rule)
NO_FALLBACK = pytest.mark.filterwarnings("error:There is a performance drop")


def _np(t):
    if isinstance(t, (tuple, list)):
        return [_np(u) for u in t]
    if isinstance(t, dict):
        return {k: _np(u) for k, u in t.items()}
    return t.detach().numpy()


def _both(build, *arrays, rtol=1e-10, atol=1e-12, **vmap_kw):
    """build(m) -> f; compares m.func.vmap(f, **vmap_kw) on the arrays for nbgrad and torch."""
    outs = []
    for m in (nb, torch):
        args = [_tensors(m, a) for a in arrays]
        outs.append(_np(m.func.vmap(build(m), **vmap_kw)(*args)))
    _close(outs[0], outs[1], rtol, atol)
    return outs[0]


def _tensors(m, a):
    if isinstance(a, np.ndarray):
        return m.tensor(a)
    if isinstance(a, dict):
        return {k: _tensors(m, v) for k, v in a.items()}
    if isinstance(a, (tuple, list)):
        return type(a)(_tensors(m, v) for v in a)
    return a


def _close(a, b, rtol=1e-10, atol=1e-12):
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            _close(u, v, rtol, atol)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _close(a[k], b[k], rtol, atol)
    else:
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


CASES = {
    "elementwise": lambda m: lambda x, y: (x.sin() * y + 1).exp() / (2 - y.tanh()),
    "where_clamp": lambda m: lambda x, y: m.where(x > 0, x, y).clamp(-0.5, 0.5),
    "sum_dims": lambda m: (
        lambda x, y: (
            x.sum(0),
            x.sum(-1, keepdim=True),
            x.sum(),
            y.mean(),
            y.sum().sum(),
            y.mean().amax(),
            y[0].logsumexp(0),
        )
    ),
    "reductions": lambda m: lambda x, y: (x.amax(1), x.logsumexp(0), x.std(1), x.prod()),
    "max_dim": lambda m: lambda x, y: tuple(x.max(1)) + (x.max(), x.argmax(), x.argmin(0)),
    "views": lambda m: (
        lambda x, y: (
            x.T,
            x.reshape(-1),
            x.view(4, 3),
            x.unsqueeze(1).shape[0] * x.transpose(0, 1),
            x.flatten(),
            x.permute(1, 0),
        )
    ),
    "more_views": lambda m: (
        lambda x, y: (
            x[None].expand(2, 3, 4),
            x.flip(0),
            x.narrow(1, 1, 2),
            x.unsqueeze(-1).squeeze(),
            *x.split(2, dim=1),
            *x.unbind(1),
            x.repeat(2, 1),
            x.movedim(0, 1),
        )
    ),
    "softmax": lambda m: (
        lambda x, y: (m.nn.functional.softmax(x, dim=1), x.log_softmax(0), x.cumsum(1))
    ),
    "matmul": lambda m: lambda x, y: (x @ y, y @ x.T, x @ x.T, y @ y, m.matmul(x, y[:, None])),
    "linear": lambda m: (
        lambda x, y: (
            m.nn.functional.linear(x, y[None].expand(2, 4), y[:2]),
            m.nn.functional.linear(x, m.tensor(W).T, y[:2]),
            m.nn.functional.linear(y, m.tensor(W).T),
        )
    ),
    "einsum": lambda m: (
        lambda x, y: (m.einsum("ij,j->i", x, y), m.einsum("ij,kj", x, x), m.einsum("i,i->", y, y))
    ),
    "getitem": lambda m: lambda x, y: (x[0], x[:, 1:3], x[..., -1], x[1, None, ::2]),
    "cat_stack": lambda m: lambda x, y: (m.cat([x, y[None]], 0), m.stack([y, y * 2], 1)),
    "gather": lambda m: (
        lambda x, y: (
            x.gather(1, m.tensor([[0, 1], [2, 3], [1, 1]])),
            x.index_select(1, m.tensor([3, 0])),
        )
    ),
    "losses": lambda m: (
        lambda x, y: (
            m.nn.functional.mse_loss(x, y.expand(3, 4)),
            m.nn.functional.l1_loss(x, y.expand(3, 4), reduction="sum"),
            m.nn.functional.binary_cross_entropy_with_logits(y, y.sigmoid()),
            m.nn.functional.cross_entropy(x, m.tensor([0, 3, 1])),
            m.nn.functional.cross_entropy(y, m.tensor(2)),
        )
    ),
    "norms": lambda m: (
        lambda x, y: (x.norm(), m.nn.functional.layer_norm(x, (4,)), m.nn.functional.normalize(x))
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rules_match_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every case runs on a batching rule
        _both(CASES[case], X, Y)


@NO_FALLBACK
def test_in_dims_out_dims_and_pytrees():
    _both(lambda m: lambda x, y: x * y, X, V, in_dims=(0, None))
    _both(lambda m: lambda x, y: x + y, X, X[0].copy(), in_dims=(2, 1))
    _both(lambda m: lambda x, y: (x, y.sum()), X, Y, out_dims=(1, 0))
    _both(lambda m: lambda x: x.sum(0), X, out_dims=-1)
    _both(lambda m: lambda d: {"s": d["a"] * d["b"][0]}, {"a": Y, "b": [Y]})

    def f(m):
        return lambda d, k: [d["a"] @ d["w"], k]

    for m in (nb, torch):
        d = {"a": m.tensor(Y), "w": m.tensor(W)}
        out = m.func.vmap(f(m), in_dims=({"a": 0, "w": None}, None), out_dims=[0, None])(d, 3)
        assert out[1] == 3 and tuple(out[0].shape) == (5, 2)


@NO_FALLBACK
def test_nested_vmap():
    _both(lambda m: m.func.vmap(lambda a, b: (a * b).sum()), X, Z)
    _both(lambda m: m.func.vmap(lambda a, b: a @ b, in_dims=(0, None)), X, Y)
    _both(lambda m: m.func.vmap(lambda a: a.sum(0), in_dims=1), X)
    # an inner vmap over a captured outer-batched tensor
    _both(lambda m: lambda y: m.func.vmap(lambda a: a * y)(m.tensor(X[0])), Y)


def test_vmap_of_a_function_object():
    _both(lambda m: m.sin, X)
    _both(lambda m: m.dot, Y, V, in_dims=(0, None))


def _mlp_loss(m):
    def loss(params, x, y):
        a, b = params
        return ((b @ m.tanh(a @ x) - y) ** 2).sum()

    return loss


@NO_FALLBACK
def test_per_sample_grads_match_torch_and_closed_form():
    w1, w2 = R.standard_normal((6, 4)) / 2, R.standard_normal((1, 6)) / 3
    xb, yb = R.standard_normal((9, 4)), R.standard_normal((9, 1))
    outs = []
    for m in (nb, torch):
        per = m.func.vmap(m.func.grad(_mlp_loss(m)), in_dims=(None, 0, 0))
        outs.append(_np(per((m.tensor(w1), m.tensor(w2)), m.tensor(xb), m.tensor(yb))))
    _close(*outs)
    g1, g2 = outs[0]
    h = np.tanh(w1 @ xb[3])
    e = (w2 @ h - yb[3, 0]).item()
    np.testing.assert_allclose(g2[3], 2 * e * h[None, :], rtol=1e-10)
    np.testing.assert_allclose(g1[3], 2 * e * np.outer(w2[0] * (1 - h * h), xb[3]), rtol=1e-10)


@NO_FALLBACK
def test_transforms_compose_with_vmap():
    f = lambda m: lambda x: (x.sin() * x.exp()).sum()  # noqa: E731
    g = lambda m: lambda x: x.sin() * x.sum()  # noqa: E731
    _both(lambda m: m.func.grad(f(m)), Y)
    _both(lambda m: lambda x: m.func.grad_and_value(f(m))(x), Y)
    _both(lambda m: m.func.jacrev(g(m)), Y)
    _both(lambda m: m.func.jacfwd(g(m)), Y)
    _both(lambda m: m.func.hessian(f(m)), Y)
    _both(lambda m: m.func.grad(lambda x: m.func.grad(lambda u: (u**3).sum() * u[0])(x).sum()), Y)
    _both(lambda m: lambda x, c: m.func.vjp(g(m), x)[1](c), Y, Y[::-1].copy())
    _both(lambda m: lambda x, t: m.func.jvp(g(m), (x,), (t,)), Y, Y[::-1].copy())
    # a gradient w.r.t. an unbatched argument, per sample of a captured batched value
    _both(lambda m: lambda y: m.func.grad(lambda w: (w * y).sin().sum())(m.tensor(V)), Y)
    # vmap inside grad: gradients flow through the batched program
    outs = []
    for m in (nb, torch):
        h = lambda w: m.func.vmap(lambda x: (x @ w).tanh().sum())(m.tensor(Y)).sum()  # noqa: E731, B023
        outs.append(_np(m.func.grad(h)(m.tensor(V))))
    _close(*outs)


def test_runs_the_function_once_per_call():
    calls = []

    def f(x):
        calls.append(1)
        return nb.nn.functional.margin_ranking_loss(x, x * 2, nb.ones(4), reduction="none")

    with pytest.warns(UserWarning, match="batching rule for"):
        out = nb.func.vmap(f)(nb.tensor(Y))
    assert len(calls) == 1
    ref = torch.func.vmap(
        lambda x: torch.nn.functional.margin_ranking_loss(
            x, x * 2, torch.ones(4), reduction="none"
        )  # fmt: skip
    )(torch.tensor(Y))
    _close(_np(out), _np(ref))


@NO_FALLBACK
def test_chunk_size_gives_the_same_result():
    a = _both(lambda m: lambda x: x.sin().sum(0), X, chunk_size=2)
    b = _both(lambda m: lambda x: x.sin().sum(0), X, out_dims=1, chunk_size=3)
    np.testing.assert_allclose(a, b.T)


def test_randomness():
    x = nb.zeros(6, 3)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        nb.func.vmap(lambda a: a + nb.randn(3))(x)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        nb.func.vmap(lambda a: nb.nn.functional.dropout(a))(x)
    same = nb.func.vmap(lambda a: a + nb.randn(3), randomness="same")(x).numpy()
    assert np.all(same == same[0])
    diff = nb.func.vmap(lambda a: a + nb.randn(3), randomness="different")(x).numpy()
    assert not np.allclose(diff, diff[0])
    d = nb.func.vmap(lambda a: nb.rand_like(a), randomness="different")(x).numpy()
    assert d.shape == (6, 3) and not np.allclose(d, d[0])
    ones = nb.ones(6, 50)
    same = nb.func.vmap(lambda a: nb.nn.functional.dropout(a, 0.5), randomness="same")(ones)
    assert np.all(same.numpy() == same.numpy()[0])


def _errors(f_nb, f_t):
    """The same exception type and message from nbgrad and torch."""
    with pytest.raises(Exception) as e_t:
        f_t()
    with pytest.raises(type(e_t.value)) as e_n:
        f_nb()
    assert str(e_n.value) == str(e_t.value)


def test_errors_match_torch():
    X3, Y2 = R.standard_normal((3, 4)), R.standard_normal((2, 4))
    for make in (
        lambda m: lambda: m.func.vmap(m.add)(m.tensor(X3), m.tensor(Y2)),
        lambda m: lambda: m.func.vmap(m.add, in_dims=(0,))(m.tensor(X3), m.tensor(X3)),
        lambda m: lambda: m.func.vmap(m.sin, in_dims=3)(m.tensor(X3)),
        lambda m: lambda: m.func.vmap(lambda a, b: a, in_dims=(None, 0))(m.tensor(X3), 1),
        lambda m: lambda: m.func.vmap(m.sin, in_dims=None)(m.tensor(X3)),
        lambda m: lambda: m.func.vmap(m.sin, in_dims=(None,))(m.tensor(X3)),
        lambda m: lambda: m.func.vmap(m.sin, randomness="x"),
        lambda m: lambda: m.func.vmap(m.sin, chunk_size=0),
        lambda m: lambda: m.func.vmap(lambda a: a.item())(m.tensor(X3)),
        lambda m: lambda: m.func.vmap(lambda a: bool(a.sum() > 0))(m.tensor(X3)),
        lambda m: lambda: m.func.vmap(lambda a: 3)(m.tensor(X3)),
        lambda m: lambda: m.func.vmap(lambda a: a, out_dims=None)(m.tensor(X3)),
        lambda m: lambda: m.func.vmap(m.sin)(),
        lambda m: lambda: m.func.vmap(m.sin)(m.tensor(1.0)),
        lambda m: lambda: m.func.vmap(lambda a: m.tensor(Y2[0]).add_(a))(m.tensor(X3)),
    ):
        _errors(make(nb), make(torch))


def test_outputs_not_batched_are_repeated():
    _both(lambda m: lambda x: m.tensor(V) * 2, Y)


@NO_FALLBACK
def test_inplace_on_batched_values():
    def f(m):
        def g(x):
            y = x.clone()
            y.mul_(2)
            y[0] = 5.0
            return y

        return g

    _both(f, Y)


def test_linearize_matches_torch():
    x = R.standard_normal(4)
    t = R.standard_normal(4)
    outs = []
    for m in (nb, torch):
        out, fn = m.func.linearize(lambda v: v.sin() * v.sum(), m.tensor(x))
        outs.append((_np(out), _np(fn(m.tensor(t))), _np(fn(m.tensor(2 * t)))))
    _close(*outs)
    for make in (
        lambda m: lambda: m.func.linearize(m.sin, m.tensor(x))[1](m.tensor(t[:2])),
        lambda m: lambda: m.func.linearize(m.sin, m.tensor(x))[1](m.tensor(t), m.tensor(t)),
    ):
        with pytest.raises(RuntimeError) as e_t:
            make(torch)()
        with pytest.raises(RuntimeError) as e_n:
            make(nb)()
        assert str(e_n.value).replace("nbgrad", "torch") == str(e_t.value)


def test_transforms_take_pytrees_of_tensors():
    w1, w2, x, y = R.standard_normal((3, 4)), R.standard_normal((1, 3)), V, R.standard_normal(1)
    outs = []
    for m in (nb, torch):
        params = (m.tensor(w1), m.tensor(w2))
        loss = _mlp_loss(m)
        g = m.func.grad(loss)(params, m.tensor(x), m.tensor(y))
        d = m.func.grad(lambda p: (p["a"] * p["b"]).sum())({"a": m.tensor(V), "b": m.tensor(-V)})
        _, fn = m.func.vjp(lambda p: p[0] @ p[1].T, [params[0], m.tensor(w1)])
        outs.append(_np([g, d, fn(m.tensor(np.eye(3)))]))
    _close(*outs)


def _recipes(m):
    """torch.func's tutorials: per-sample gradients through functional_call, and model
    ensembling with stack_module_state."""
    Xr, Yc = np.random.default_rng(3).standard_normal((8, 5)), np.arange(8) % 3
    model = m.nn.Sequential(m.nn.Linear(5, 4), m.nn.ReLU(), m.nn.Linear(4, 3)).double()
    models = [m.nn.Linear(5, 3).double() for _ in range(4)]
    with m.no_grad():
        for j, mod in enumerate([model, *models]):
            for i, p in enumerate(mod.parameters()):
                p.copy_(m.tensor(np.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + j + 1)))
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(params, sample, target):
        pred = m.func.functional_call(model, params, (sample.unsqueeze(0),))
        return m.nn.functional.cross_entropy(pred, target.unsqueeze(0))

    g = m.func.vmap(m.func.grad(loss), in_dims=(None, 0, 0))(params, m.tensor(Xr), m.tensor(Yc))
    ps, bs = m.func.stack_module_state(models)
    ens = m.func.vmap(
        lambda p, b, x: m.func.functional_call(models[0], (p, b), (x,)), in_dims=(0, 0, None)
    )(ps, bs, m.tensor(Xr))
    return _np([g, ens])


def test_functional_call_recipes_match_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _close(_recipes(nb), _recipes(torch))


def test_module_functions_read_by_hot_code_are_the_wrappers_inside_vmap():
    """vmap puts the batched functions in place by swapping the modules' classes (or their
    dicts): code that read nbgrad.sin etc. many times before (CPython may specialise those
    reads) finds them inside each call, and the modules' own functions after it."""
    import types

    import nbgrad.special

    F = nb.nn.functional
    before = (nb.sin, F.relu, nbgrad.special.expit)

    def f(x):
        return nb.sin(x) + F.relu(x) * nbgrad.special.expit(x)

    x = nb.tensor(np.random.default_rng(3).standard_normal((4, 3)))
    xn = x.numpy()
    want = np.sin(xn) + np.maximum(xn, 0) / (1 + np.exp(-xn))
    for _ in range(3):
        for _ in range(100):
            f(x[0])
        np.testing.assert_allclose(nb.func.vmap(f)(x).numpy(), want, rtol=1e-12)
    assert all(a is b for a, b in zip((nb.sin, F.relu, nbgrad.special.expit), before))
    assert type(nb) is types.ModuleType and type(F) is types.ModuleType


def test_a_module_first_loaded_inside_a_call_leaves_nothing_installed(monkeypatch):
    """nbgrad.special, a lazily loaded module, first used inside a vmap call (with a nested
    call): its functions are batched there, and leaving the calls gives every module its
    own functions and class back (a second set of wrappers, made while the first was in
    place, once left nbgrad's functions batched for good)."""
    import sys
    import types

    from nbgrad.func import batching

    monkeypatch.setattr(batching, "_PLAN", [])  # as in a fresh process
    monkeypatch.delitem(sys.modules, "nbgrad.special", raising=False)
    monkeypatch.delitem(vars(nb), "special", raising=False)
    x = nb.tensor([[0.5, -1.0], [2.0, 0.0]])

    def f(r):
        e = nb.special.expit(r)  # loads nbgrad.special inside the call
        return nb.func.vmap(lambda s: s * 2)(e).sum()

    got = nb.func.vmap(f)(x)
    np.testing.assert_allclose(got.numpy(), 2 * (1 / (1 + np.exp(-x.numpy()))).sum(1), rtol=1e-6)
    # a later call installs the set made inside the first one, and must take it off again
    np.testing.assert_allclose(nb.func.vmap(lambda r: r.sin())(x).numpy(), np.sin(x.numpy()))
    assert type(nb) is types.ModuleType
    assert nb.randn is vars(nb)["randn"] and nb.randn(2).shape == (2,)  # not batched
    y = nb.ones(3)
    assert nb.sin(y).tolist() == pytest.approx([np.sin(1.0)] * 3)
