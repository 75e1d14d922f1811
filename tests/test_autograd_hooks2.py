"""The rest of the autograd API, against PyTorch: graph Node hooks and metadata,
saved-tensor hooks, anomaly mode, activation checkpointing, and custom-Function details
(materialize_grads, needs_input_grad, double backward, retrying a failed backward).

Most tests run the same code with `m = nbgrad` and `m = torch` and compare what they
observe; gradients are also checked against closed forms."""

import sys
import warnings
import weakref

import numpy as np
import pytest

import nbgrad as nb


def _both():
    torch = pytest.importorskip("torch")
    return nb, torch


def _np(t):
    return None if t is None else np.asarray(t.detach().tolist(), np.float64)


def _close(a, b, tol=1e-6):
    if a is None or b is None:
        assert a is None and b is None
        return
    np.testing.assert_allclose(_np(a) if not isinstance(a, np.ndarray) else a,
                               _np(b) if not isinstance(b, np.ndarray) else b,
                               rtol=tol, atol=tol)  # fmt: skip


# -- Node hooks ---------------------------------------------------------------------------


def _node_hooks(m, create_graph=False):
    x = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
    w = m.tensor([3.0, 4.0, -2.0], dtype=m.float64, requires_grad=True)
    y = x.sin()
    z = y * w
    seen = []
    y.grad_fn.register_prehook(lambda go: seen.append(("pre", [_np(g) for g in go])))
    y.grad_fn.register_hook(
        lambda gi, go: seen.append(("post", [_np(g) for g in gi], [_np(g) for g in go]))
    )
    z.grad_fn.register_prehook(lambda go: (go[0] * 10,))  # replaces grad_outputs
    z.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, gi[1]))  # replaces grad_inputs
    loss = (z + y.exp()).sum()
    gx, gw = m.autograd.grad(loss, (x, w), create_graph=create_graph)
    return seen, gx, gw


@pytest.mark.parametrize("create_graph", [False, True])
def test_node_pre_and_post_hooks_match_pytorch(create_graph):
    nb_, torch = _both()
    a = _node_hooks(nb_, create_graph)
    b = _node_hooks(torch, create_graph)
    assert [s[0] for s in a[0]] == [s[0] for s in b[0]] == ["pre", "post"]
    for sa, sb in zip(a[0], b[0]):
        for la, lb in zip(sa[1:], sb[1:]):
            for ga, gb in zip(la, lb):
                _close(ga, gb)
    _close(a[1], b[1])
    _close(a[2], b[2])
    # closed form: d/dx = (10 w + 1) cos x + exp(sin x) cos x ; d/dw = 10 sin x
    x = np.array([0.5, -1.0, 2.0])
    w = np.array([3.0, 4.0, -2.0])
    _close(a[1], (10 * w + 1) * np.cos(x) + np.exp(np.sin(x)) * np.cos(x))
    _close(a[2], 10 * np.sin(x))


def test_post_hook_none_drops_a_gradient_and_handles_remove():
    for m in _both():
        x = m.tensor([1.0, -2.0], requires_grad=True)
        w = m.tensor([3.0, 4.0], requires_grad=True)
        y = x * w
        h = y.grad_fn.register_hook(lambda gi, go: (gi[0], None))
        y.sum().backward(retain_graph=True)
        assert x.grad.tolist() == [3.0, 4.0] and w.grad is None, m.__name__
        h.remove()
        y.sum().backward()
        assert x.grad.tolist() == [6.0, 8.0] and w.grad.tolist() == [1.0, -2.0], m.__name__


@pytest.mark.parametrize(
    "hook, kind",
    [(lambda go: (go[0], go[0]), "pre"), (lambda gi, go: (gi[0],), "post")],
)
def test_hook_returning_the_wrong_count_raises_pytorchs_error(hook, kind):
    msgs = []
    for m in _both():
        x = m.tensor([1.0, -2.0], requires_grad=True)
        w = m.tensor([3.0, 4.0], requires_grad=True)
        y = x * w
        reg = y.grad_fn.register_prehook if kind == "pre" else y.grad_fn.register_hook
        reg(hook)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_node_name_metadata_and_next_functions_of_a_composite_graph():
    def tree(fn):
        if fn is None:
            return None
        return (fn.name(), tuple(tree(f) for f, _ in fn.next_functions))

    out = []
    for m in _both():
        a = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = m.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)
        c = m.tensor([1.0, 2.0])  # takes no gradient: None among next_functions
        loss = ((a * b + a.sin()) @ b.t() + c).exp().sum()
        loss.grad_fn.metadata["step"] = 3
        assert loss.grad_fn.metadata == {"step": 3}
        assert loss.grad_fn.next_functions[0][0].metadata == {}
        acc = loss.grad_fn.next_functions[0][0]
        while acc.next_functions:
            acc = acc.next_functions[0][0]
        assert acc.variable is a
        out.append(tree(loss.grad_fn))
    assert out[0] == out[1]


def test_node_hooks_on_a_custom_function_and_accumulate_grad_prehook():
    def run(m):

        class Double(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = Double.apply(x)
        seen = []
        y.grad_fn.register_prehook(lambda go: seen.append(go[0].tolist()))
        y.grad_fn.register_hook(lambda gi, go: (gi[0] + 100,))
        acc = y.grad_fn.next_functions[0][0]
        acc.register_prehook(lambda go: (go[0] * -1,))
        (y * 3).sum().backward()
        return (seen, x.grad.tolist())

    res = [run(m) for m in _both()]
    assert res[0] == res[1] == ([[3.0, 3.0]], [-106.0, -106.0])


def test_node_state_is_dropped_with_its_rows():
    from nbgrad.autograd import hooks, node

    before = hooks.NODES[0]
    for _ in range(20000):  # state kept for rows long gone would grow without bound
        x = nb.tensor([1.0], requires_grad=True)
        y = x * 2
        y.grad_fn.register_hook(lambda gi, go: None)
        y.grad_fn.metadata["i"] = 1
        del x, y
    assert len(node.STATE) < 10000
    assert hooks.NODES[0] - before < 10000


# -- saved-tensor hooks -------------------------------------------------------------------


def _counts(m, op, retain):
    calls = []

    def pack(t):
        calls.append("pack")
        return t

    def unpack(t):
        calls.append("unpack")
        return t

    x = m.tensor([0.5, 1.5], requires_grad=True)
    w = m.tensor([2.0, -1.0], requires_grad=True)
    with m.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = op(x, w)
    n_pack = len(calls)
    y.sum().backward(retain_graph=retain)
    if retain:
        y.sum().backward()
    return n_pack, len(calls) - n_pack, x.grad.tolist()


@pytest.mark.parametrize(
    "op",
    [
        lambda x, w: x.sin(),
        lambda x, w: x.exp(),
        lambda x, w: x.tanh(),
        lambda x, w: x * w,
        lambda x, w: x.sin().exp(),
        lambda x, w: (x * 2 + 1).sum(),
    ],
)
@pytest.mark.parametrize("retain", [False, True])
def test_pack_and_unpack_are_called_as_often_as_in_pytorch(op, retain):
    nb_, torch = _both()
    a, b = _counts(nb_, op, retain), _counts(torch, op, retain)
    assert a[:2] == b[:2]
    _close(np.array(a[2]), np.array(b[2]))


def test_nothing_is_packed_without_a_graph_and_hooks_nest():
    calls = []
    x = nb.tensor([1.0, 2.0], requires_grad=True)
    outer = nb.autograd.graph.saved_tensors_hooks(lambda t: calls.append("o") or t, lambda t: t)
    inner = nb.autograd.graph.saved_tensors_hooks(lambda t: calls.append("i") or t, lambda t: t)
    with outer:
        with nb.no_grad():
            x.sin()
        with inner:
            y = x.sin()
        z = y.exp()
    assert calls == ["i", "o"]
    z.sum().backward()
    _close(x.grad, np.exp(np.sin([1.0, 2.0])) * np.cos([1.0, 2.0]))
    assert sys.getprofile() is None  # the watcher is gone with the last context


def test_custom_function_saves_only_the_packed_value_and_unpacks_on_each_read():
    def run(m):
        reads = []

        class Square(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                ctx.saved_tensors  # noqa: B018 - a second read unpacks again
                return 2 * x * g

        x = m.tensor([1.0, 3.0], requires_grad=True)
        packed = []

        def pack(t):
            packed.append(t is x)
            return t * 10  # what backward reads: PyTorch uses the unpacked value

        with m.autograd.graph.saved_tensors_hooks(pack, lambda p: reads.append(1) or p):
            y = Square.apply(x)
        y.sum().backward()
        return (packed, len(reads), x.grad.tolist())

    res = [run(m) for m in _both()]
    assert res[0] == res[1] == ([True], 2, [20.0, 60.0])


def test_native_rows_compute_from_the_value_they_kept():
    # the documented departure: nbgrad's own rows call the hooks but read their own copy
    x = nb.tensor([1.0, 2.0], requires_grad=True)
    with nb.autograd.graph.saved_tensors_hooks(lambda t: t * 0, lambda p: p):
        y = x.sin()
    y.sum().backward()
    _close(x.grad, np.cos([1.0, 2.0]))


def test_unpack_errors_and_disable_saved_tensors_hooks_match_pytorch():
    msgs = []
    for m in _both():
        x = m.tensor([1.0, 2.0], requires_grad=True)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: 3):
            q = x.sin()
        with pytest.raises(TypeError) as e:
            q.sum().backward()
        msgs.append(str(e.value))
        with pytest.raises(RuntimeError, match="^nope$"):
            with m.autograd.graph.disable_saved_tensors_hooks("nope"):
                with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
                    pass
        with pytest.raises(RuntimeError, match="^nope2$"):
            with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
                with m.autograd.graph.disable_saved_tensors_hooks("nope2"):
                    pass
    assert msgs[0] == msgs[1]


def test_save_on_cpu_gives_the_same_gradients():
    res = []
    for m in _both():

        class Cube(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 3 * x * x * g

        x = m.tensor([1.0, -2.0], requires_grad=True)
        with m.autograd.graph.save_on_cpu():
            y = (Cube.apply(x) * x.sin()).sum()
        y.backward()
        res.append(x.grad.tolist())
    _close(np.array(res[0]), np.array(res[1]))


# -- anomaly mode ---------------------------------------------------------------------------


def _anomaly(m, make):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with m.autograd.detect_anomaly():
            x = m.tensor([0.0, 1.0], requires_grad=True)
            v = m.tensor([float("nan"), 1.0], requires_grad=True)
            loss = make(m, x, v)  # the forward line the warning points at
            with pytest.raises(RuntimeError) as e:
                loss.backward()
    return str(e.value), [str(x.message) for x in w]


@pytest.mark.parametrize(
    "make",
    [
        lambda m, x, v: (x.sqrt() * 0).sum(),  # SqrtBackward0: 0 / 0
        lambda m, x, v: (x * v).sum(),  # MulBackward0: the gradient of its 1st input
        lambda m, x, v: (x.log() * 0).sum(),
    ],
)
def test_anomaly_names_the_op_that_returned_nan_and_its_forward_line(make):
    nb_, torch = _both()
    a, b = _anomaly(nb_, make), _anomaly(torch, make)
    assert a[0] == b[0]
    assert a[1][0] == b[1][0]  # "Anomaly Detection has been enabled..."
    head = a[1][1].split("\n")[0]
    assert head == b[1][1].split("\n")[0]  # "Error detected in XBackward0. Traceback ..."
    assert "loss = make(m, x, v)" in a[1][1]


def test_anomaly_mode_switches_and_costs_nothing_when_off():
    assert not nb.is_anomaly_enabled()
    with nb.autograd.set_detect_anomaly(True):
        assert nb.is_anomaly_enabled() and sys.getprofile() is not None
        with nb.autograd.set_detect_anomaly(False):
            assert not nb.is_anomaly_enabled()
        assert nb.is_anomaly_enabled()
    assert not nb.is_anomaly_enabled() and sys.getprofile() is None
    x = nb.tensor([0.0], requires_grad=True)
    (x.sqrt() * 0).sum().backward()  # off: NaN gradients are not checked
    assert np.isnan(x.grad.item())
    with nb.autograd.set_detect_anomaly(True, check_nan=False):
        assert not nb.is_anomaly_check_nan_enabled()
        x.grad = None
        (x.sqrt() * 0).sum().backward()
    assert np.isnan(x.grad.item())


def test_anomaly_under_create_graph_and_in_a_custom_backward():
    res = []
    for m in _both():

        class Bad(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                return g * float("nan")

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with m.autograd.detect_anomaly():
                x = m.tensor([1.0, 2.0], requires_grad=True)
                with pytest.raises(RuntimeError) as e1:
                    m.autograd.grad((x.sqrt() * 0 - x).sum() + (-x).sqrt().sum(), x,
                                    create_graph=True)  # fmt: skip
                with pytest.raises(RuntimeError) as e2:
                    (Bad.apply(x) * 2).sum().backward()
        res.append((str(e1.value), str(e2.value)))
    assert res[0] == res[1]


def test_anomaly_mode_gives_the_same_gradients():
    x = nb.tensor([[0.5, 1.0], [2.0, -1.0]], requires_grad=True)
    w = nb.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)

    def run():
        x.grad = w.grad = None
        ((x @ w).tanh() * x.exp()).sum().backward()
        return x.grad.tolist(), w.grad.tolist()

    plain = run()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nb.autograd.detect_anomaly():
            assert run() == plain


# -- checkpointing ------------------------------------------------------------------------


def test_checkpoint_recomputes_and_keeps_less():
    lin = nb.nn.Linear(3, 3)
    x = nb.randn(2, 3, requires_grad=True)
    kept, calls = [], []

    def f(t):
        calls.append(1)
        a = lin(t).sin()  # saved by the second sin: the intermediate
        kept.append(weakref.ref(a._data))
        return a.sin()

    y = nb.utils.checkpoint.checkpoint(f, x, use_reentrant=False)
    assert kept[0]() is None  # not kept for backward
    y.sum().backward()
    assert len(calls) == 2  # run again in backward
    g = (x.grad.clone(), lin.weight.grad.clone(), lin.bias.grad.clone())
    x.grad = lin.weight.grad = lin.bias.grad = None
    y = f(x)
    assert kept[-1]() is not None  # without checkpoint the row keeps it
    y.sum().backward()
    for a, b in zip(g, (x.grad, lin.weight.grad, lin.bias.grad)):
        _close(a, b, 1e-6)


def test_checkpoint_matches_pytorch_with_grad_and_parameters():
    def run(m):
        m.manual_seed(0)
        lin = m.nn.Linear(3, 2).double()
        with m.no_grad():
            lin.weight.copy_(m.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], dtype=m.float64))
            lin.bias.copy_(m.tensor([0.05, -0.1], dtype=m.float64))
        x = m.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], dtype=m.float64, requires_grad=True)

        def f(t, scale):
            return lin(t).tanh() * scale, t.sum()

        y, s = m.utils.checkpoint.checkpoint(f, x, 2.0, use_reentrant=False)
        loss = (y * y).sum() + s
        return [g.tolist() for g in m.autograd.grad(loss, [x, lin.weight, lin.bias])]

    res = [run(m) for m in _both()]
    for a, b in zip(*res):
        _close(np.array(a), np.array(b), 1e-12)


def test_checkpoint_sequential_and_double_backward():
    res = []
    for m in _both():
        m.manual_seed(0)
        model = m.nn.Sequential(m.nn.Linear(2, 3), m.nn.Tanh(), m.nn.Linear(3, 3), m.nn.Tanh(),
                                m.nn.Linear(3, 1)).double()  # fmt: skip
        with m.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(m.tensor(np.linspace(-1, 1, p.numel()).reshape(tuple(p.shape)) * (i + 1)))
        x = m.tensor([[0.3, -0.7], [1.1, 0.2]], dtype=m.float64, requires_grad=True)
        out = m.utils.checkpoint.checkpoint_sequential(model, 3, x, use_reentrant=False)
        out.sum().backward()
        grads = [x.grad.tolist()] + [p.grad.tolist() for p in model.parameters()]
        x2 = m.tensor([0.5, 2.0], dtype=m.float64, requires_grad=True)
        y = m.utils.checkpoint.checkpoint(lambda t: t**3, x2, use_reentrant=False)
        (g,) = m.autograd.grad(y.sum(), x2, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), x2)
        res.append((grads, gg.tolist()))
    for a, b in zip(res[0][0], res[1][0]):
        _close(np.array(a), np.array(b), 1e-12)
    assert res[0][1] == res[1][1] == [3.0, 12.0]  # 6x


def test_checkpoint_replays_dropout_with_the_same_mask():
    x = nb.ones(1000, requires_grad=True)
    y = nb.utils.checkpoint.checkpoint(
        lambda t: nb.nn.functional.dropout(t * 3, 0.5, True), x, use_reentrant=False
    )
    y.sum().backward()
    mask = y.detach().numpy() != 0
    assert 300 < mask.sum() < 700
    _close(x.grad, np.where(mask, 6.0, 0.0))


def test_checkpoint_arguments_and_warnings_match_pytorch():
    for m in _both():
        x = m.tensor([1.0, 2.0], requires_grad=True)
        with pytest.warns(UserWarning, match="use_reentrant parameter should be passed"):
            m.utils.checkpoint.checkpoint(lambda t: t * 2, x)
        with pytest.raises(ValueError, match="Unexpected keyword arguments: k"):
            m.utils.checkpoint.checkpoint(lambda t, k: t * k, x, use_reentrant=True, k=2)
        y = m.utils.checkpoint.checkpoint(lambda t, k: t * k, x, use_reentrant=False, k=2)
        y.sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]
        with m.no_grad():
            y = m.utils.checkpoint.checkpoint(lambda t: t * 2, x, use_reentrant=False)
        assert not y.requires_grad


def test_checkpoint_refuses_a_captured_tensor_with_history():
    x = nb.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    with pytest.raises(NotImplementedError, match="pass it as an argument"):
        nb.utils.checkpoint.checkpoint(lambda t: t * h, x, use_reentrant=False)


# -- grad arguments and custom Function details ------------------------------------------------


def test_grad_allow_unused_and_materialize_grads_match_pytorch():
    res = []
    for m in _both():
        x = m.tensor([1.0, 2.0], requires_grad=True)
        u = m.tensor([3.0], requires_grad=True)
        y = (x * x).sum()
        with pytest.raises(RuntimeError, match="appears to not have been used"):
            m.autograd.grad(y, [x, u], retain_graph=True)
        a = m.autograd.grad(y, [x, u], allow_unused=True, retain_graph=True)
        b = m.autograd.grad(y, [x, u], materialize_grads=True, retain_graph=True)
        with pytest.raises(ValueError) as e:
            m.autograd.grad(y, [x, u], allow_unused=False, materialize_grads=True)
        res.append((a[0].tolist(), a[1], b[0].tolist(), b[1].tolist(), str(e.value)))
    assert res[0] == res[1]


def test_set_materialize_grads_and_needs_input_grad_match_pytorch():
    def run(m):
        seen = []

        class Two(m.autograd.Function):
            @staticmethod
            def forward(ctx, a, k, b):
                ctx.set_materialize_grads(False)
                seen.append(tuple(ctx.needs_input_grad))
                return a * k, b * k

            @staticmethod
            def backward(ctx, ga, gb):
                seen.append((ga is None, gb is None))
                return (ga * 2 if ga is not None else None), None, None

        a = m.tensor([1.0], requires_grad=True)
        b = m.tensor([2.0])
        p, q = Two.apply(a, 3.0, b)
        p.sum().backward()
        return (seen, a.grad.tolist())

    res = [run(m) for m in _both()]
    assert res[0] == res[1] == ([(True, False, False), (False, True)], [2.0])


def test_double_backward_through_a_custom_function():
    res = []
    for m in _both():

        class Cube(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 3 * x * x * g  # differentiable ops: a create_graph pass records them

        x = m.tensor([1.0, -2.0, 0.5], dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
        (gg,) = m.autograd.grad((g * g).sum(), x)  # d/dx (3x^2)^2 = 36 x^3
        res.append((g.tolist(), gg.tolist()))
    assert res[0] == res[1]
    _close(np.array(res[0][1]), 36 * np.array([1.0, -2.0, 0.5]) ** 3)


def _retry(m, where):
    n = [0]

    def maybe_fail():
        n[0] += 1
        if n[0] == 1:
            raise ValueError("boom")

    class F(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            if where == "function":
                maybe_fail()
            (x,) = ctx.saved_tensors
            return g * x

    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = F.apply(x.sin())
    if where == "tensor hook":
        y.register_hook(lambda g: maybe_fail())
    elif where == "node hook":
        y.grad_fn.register_prehook(lambda go: maybe_fail())
    z = y.exp().sum()
    with pytest.raises(ValueError, match="boom"):
        z.backward(retain_graph=True)
    x.grad = None
    z.backward()
    first = x.grad.tolist()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.backward()
    return first


@pytest.mark.parametrize("where", ["function", "tensor hook", "node hook"])
def test_backward_can_be_retried_after_an_error(where):
    nb_, torch = _both()
    a, b = _retry(nb_, where), _retry(torch, where)
    _close(np.array(a), np.array(b))


def test_a_failed_pass_without_retain_graph_leaves_the_graph_whole():
    # nbgrad frees a graph only after a whole pass (PyTorch may have freed part of it)
    x = nb.tensor([1.0, 2.0], requires_grad=True)
    y = x.sin()
    fail = [True]

    def hook(g):
        if fail[0]:
            fail[0] = False
            raise ValueError("boom")

    y.register_hook(hook)
    z = y.exp().sum()
    with pytest.raises(ValueError):
        z.backward()
    x.grad = None
    z.backward()
    _close(x.grad, np.exp(np.sin([1.0, 2.0])) * np.cos([1.0, 2.0]))


def _retry_into_grad(m, where):
    n = [0]

    def maybe_fail():
        n[0] += 1
        if n[0] == 1:
            raise ValueError("boom")

    class F(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            if where == "function":
                maybe_fail()
            return g * 2

    x = m.tensor([1.0, 2.0], requires_grad=True)
    x.grad = m.ones(2)  # accumulated into: a failed pass must leave it as it was
    y = F.apply(x)
    if where == "tensor hook":
        y.register_hook(lambda g: maybe_fail())
    z = (y + x.sin()).sum()  # x.sin()'s part of x's gradient comes before the failure
    with pytest.raises(ValueError, match="boom"):
        z.backward(retain_graph=True)
    after_failure = x.grad.tolist()
    z.backward()
    return after_failure, x.grad.tolist()


@pytest.mark.parametrize("where", ["function", "tensor hook"])
def test_a_failed_pass_leaves_grad_as_it_was(where):
    nb_, torch = _both()
    a, b = _retry_into_grad(nb_, where), _retry_into_grad(torch, where)
    assert a[0] == b[0] == [1.0, 1.0]
    _close(np.array(a[1]), np.array(b[1]))
    _close(np.array(a[1]), 1 + 2 + np.cos([1.0, 2.0]))


def _documented():
    g = nb.autograd.graph
    return {
        "detect_anomaly": nb.autograd.detect_anomaly,
        "set_detect_anomaly": nb.autograd.set_detect_anomaly,
        "saved_tensors_hooks": g.saved_tensors_hooks,
        "save_on_cpu": g.save_on_cpu,
        "disable_saved_tensors_hooks": g.disable_saved_tensors_hooks,
        "Node.register_hook": g.Node.register_hook,
        "Node.register_prehook": g.Node.register_prehook,
        "checkpoint": nb.utils.checkpoint.checkpoint,
        "checkpoint_sequential": nb.utils.checkpoint.checkpoint_sequential,
    }


@pytest.mark.parametrize("name", list(_documented()))
def test_docstring_example_runs(name):
    import doctest

    doc = _documented()[name].__doc__
    assert len(doc.strip().splitlines()[0]) > 20 and "Args:" in doc and "Example::" in doc
    test = doctest.DocTestParser().get_doctest(doc, {"torch": nb}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0, f"{name}: example failed (see above)"


def test_node_hooks_of_collected_rows_stop_costing():
    from nbgrad.autograd import hooks

    before = hooks.NODES[0]
    x = nb.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: None)
    assert hooks.NODES[0] == before + 1
    y.sum().backward()
    del y
    nb.tape.TAPE.collect()
    (x * 3).sum().backward()  # finds the hooked row gone
    assert hooks.NODES[0] <= before


# -- AccumulateGrad nodes -----------------------------------------------------------------


def _acc_observed(m):
    """What AccumulateGrad hooks and metadata show, in the order they run."""
    x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
    y = (x * 3).sum()
    acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
    seen = [type(acc).__name__, acc.name(), acc.variable is x, acc.next_functions]
    acc.metadata["k"] = 1
    again = (x * 2).grad_fn.next_functions[0][0]
    seen += [again == acc, dict(again.metadata)]  # the leaf's one node: shared metadata
    calls = []
    h_pre = acc.register_prehook(lambda go: calls.append(("pre", _np(go[0]))) or (go[0] * 10,))
    h_post = acc.register_hook(lambda gi, go: calls.append(("post", gi, _np(go[0]), _np(x.grad))))
    x.register_hook(lambda g: calls.append(("tensor", _np(g))))
    x.register_post_accumulate_grad_hook(lambda t: calls.append(("post-acc", _np(t.grad))))
    y.backward()
    seen += [calls[:], _np(x.grad)]
    calls.clear()
    m.autograd.grad((x * 3).sum(), x)  # no accumulation: AccumulateGrad's hooks stay out
    seen.append([c[0] for c in calls if c[0] in ("tensor", "pre", "post")])
    h_pre.remove()
    h_post.remove()
    calls.clear()
    x.grad = None
    (x * 3).sum().backward()
    seen += [[c[0] for c in calls], _np(x.grad)]
    drop = acc.register_prehook(lambda go: (None,))  # nothing accumulated
    x.grad = None
    (x * 3).sum().backward()
    seen.append(x.grad)
    drop.remove()
    bad = acc.register_hook(lambda gi, go: (go[0],))
    with pytest.raises(RuntimeError) as e:
        (x * 3).sum().backward()
    seen.append(str(e.value))
    bad.remove()
    return seen


def test_accumulate_grad_node_hooks_and_metadata_as_pytorch():
    nb_, torch = _both()
    a, b = _acc_observed(nb_), _acc_observed(torch)
    assert a[:6] == b[:6]
    assert [c[0] for c in a[6]] == [c[0] for c in b[6]] == ["tensor", "pre", "post-acc", "post"]
    for ca, cb in zip(a[6], b[6]):
        for u, v in zip(ca[1:], cb[1:]):
            np.testing.assert_allclose(u, v) if isinstance(u, np.ndarray) else None
            assert u == v if not isinstance(u, np.ndarray) else True
    np.testing.assert_allclose(a[7], [30.0, 30.0])
    np.testing.assert_allclose(b[7], [30.0, 30.0])
    assert a[8] == b[8] == ["tensor"]
    assert a[9] == b[9]
    np.testing.assert_allclose(a[10], b[10])
    assert a[11] is None and b[11] is None
    assert a[12] == b[12]  # "... incorrect number of values (got 1, but expected 0)"


# -- Node hook return values --------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, hook",
    [
        ("post", lambda gi, go: [gi[0] * 100]),
        ("post", lambda gi, go: 5),
        ("post", lambda gi, go: gi[0] * 100),
        ("post", lambda gi, go: (5,)),
        ("post", lambda gi, go: gi + (None,)),
        ("post", lambda gi, go: (gi[0].reshape(2, 1),)),
        ("pre", lambda go: go[0] * 7),
        ("pre", lambda go: (go[0] * 7,)),
        ("pre", lambda go: (None,)),
        ("pre", lambda go: (go[0][:1],)),
    ],
)
def test_node_hook_return_values_as_pytorch(kind, hook):
    """A tuple of as many Tensors (same shapes) or None replaces the gradients; anything
    else raises PyTorch's error. (`z.sin()`: one input in both libraries.)"""

    def observe(m):
        z = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        w = z.sin()
        (w.grad_fn.register_hook if kind == "post" else w.grad_fn.register_prehook)(hook)
        try:
            w.sum().backward()
        except (TypeError, RuntimeError) as e:
            return type(e), str(e)
        return _np(z.grad)

    nb_, torch = _both()
    a, b = observe(nb_), observe(torch)
    if isinstance(b, tuple):
        assert a == b
    elif b is None:
        assert a is None
    else:
        np.testing.assert_allclose(a, b)


# -- register_multi_grad_hook ---------------------------------------------------------------


def _multi_observed(m):
    a = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
    b = m.tensor([3.0, 4.0], dtype=m.float64, requires_grad=True)
    c, d = a * b, a * b
    seen, out = [], []
    h = m.autograd.graph.register_multi_grad_hook(
        (a, b, c, d), lambda gs: seen.append([None if g is None else g.tolist() for g in gs])
    )
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    h.remove()
    c.sum().backward(retain_graph=True)
    out.append(seen[:])
    seen.clear()
    h = m.autograd.graph.register_multi_grad_hook(
        (a, b), lambda g: seen.append(g.tolist()), mode="any"
    )
    (a * b).sum().backward()  # once per pass, with the first gradient
    (b * 2).sum().backward()
    h.remove()
    out.append(seen)
    with pytest.raises(ValueError) as e:
        m.autograd.graph.register_multi_grad_hook((a,), print, mode="some")
    out.append(str(e.value))
    return out


def test_register_multi_grad_hook_all_and_any_as_pytorch():
    nb_, torch = _both()
    got, ref = _multi_observed(nb_), _multi_observed(torch)
    assert got == ref
    assert got[0] == [
        [[3.0, 4.0], [1.0, 2.0], [1.0, 1.0], None],
        [[3.0, 4.0], None, [1.0, 1.0], None],
    ]


def test_multi_grad_hook_under_autograd_grad():
    """(PyTorch refuses leaves here; nbgrad hands over the gradients the pass computed.)"""
    a = nb.tensor([1.0, 2.0], requires_grad=True)
    b = nb.tensor([3.0, 4.0], requires_grad=True)
    seen = []
    with nb.autograd.graph.register_multi_grad_hook((a, b), lambda gs: seen.append(gs)):
        ga, gb = nb.autograd.grad((a * b).sum(), (a, b))
    assert len(seen) == 1
    np.testing.assert_allclose(_np(seen[0][0]), [3.0, 4.0])
    np.testing.assert_allclose(_np(seen[0][1]), [1.0, 2.0])


def test_increment_version_as_pytorch():
    nb_, torch = _both()
    for m in (nb_, torch):
        v = m.ones(2)
        v0 = v._version
        m.autograd.graph.increment_version(v)
        m.autograd.graph.increment_version([v, m.ones(1)])
        assert v._version - v0 == 2
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        m.autograd.graph.increment_version(y)  # a value saved for backward, "written"
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_scalar_operand_is_a_none_input_as_pytorch():
    """`x * 2`: PyTorch's MulBackward0 has the scalar as a second input (None in
    next_functions, a None gradient in a post hook's grad_inputs, a 2-tuple to return)."""

    def observe(m):
        out = []
        for f in (lambda x: x * 2, lambda x: 3 + x, lambda x: x - 1, lambda x: x / 4,
                  lambda x: x**2, lambda x: 1 - x):  # fmt: skip
            x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
            y = f(x)
            nf = [None if n is None else type(n).__name__ for n, _ in y.grad_fn.next_functions]
            seen = []

            def post(gi, go, seen=seen):
                seen.append([None if g is None else g.tolist() for g in gi])
                return (gi[0] * 10,) + gi[1:]

            y.grad_fn.register_hook(post)
            y.sum().backward()
            out.append((nf, seen, x.grad.tolist()))
        return out

    nb_, torch = _both()
    assert observe(nb_) == observe(torch)
