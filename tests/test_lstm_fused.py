"""The fused LSTM recurrence (nbgrad/ops/recurrent.py) behind nn.LSTM: values and
gradients against PyTorch (states, bias, layers, directions, float32), create_graph and
double backward (check_higher), forward mode against central differences, and
nbgrad.compile against eager execution bit for bit."""

import numpy as np
import pytest
from higher import check_higher
from replay import check_replay
from test_ops_helpers import gradcheck, needs_torch, torch

import nbgrad as nb
from nbgrad._optable import OPS
from nbgrad.autograd import forward_ad as fwAD
from nbgrad.ops import recurrent
from nbgrad.ops.recurrent import PLANES
from nbgrad.tape import R_CODE, TAPE

EXERCISED = {"lstm_seq"}  # compiled replays checked here (tests/test_compile.py)
rng = np.random.default_rng(4)


def _pair(kw, dtype=np.float64):
    m = nb.nn.LSTM(3, 4, dtype=nb.float64 if dtype == np.float64 else nb.float32, **kw)
    tm = torch.nn.LSTM(3, 4, dtype=torch.float64 if dtype == np.float64 else torch.float32, **kw)
    tm.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in m.state_dict().items()})
    return m, tm


@needs_torch
@pytest.mark.parametrize(
    "kw,seq,state",
    [
        ({}, 5, False),
        ({}, 1, False),
        ({}, 4, True),
        ({"bias": False}, 3, True),
        ({"bidirectional": True, "num_layers": 2}, 4, True),
        ({"batch_first": True, "bidirectional": True}, 3, False),
    ],
)
def test_matches_torch(kw, seq, state):
    m, tm = _pair(kw)
    x = rng.standard_normal((2, seq, 3) if kw.get("batch_first") else (seq, 2, 3))
    L = m.num_layers * (2 if m.bidirectional else 1)
    s0 = [rng.standard_normal((L, 2, 4)) for _ in range(2)]
    xn, xt = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    sn = [nb.tensor(a, requires_grad=True) for a in s0]
    st = [torch.tensor(a, requires_grad=True) for a in s0]
    on, (hn, cn) = m(xn, tuple(sn)) if state else m(xn)
    ot, (ht, ct) = tm(xt, tuple(st)) if state else tm(xt)
    gs = [rng.standard_normal(tuple(t.shape)) for t in (ot, ht, ct)]
    for a, b in zip((on, hn, cn), (ot, ht, ct)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    sum((a * nb.tensor(g)).sum() for a, g in zip((on, hn, cn), gs)).backward()
    sum((b * torch.tensor(g)).sum() for b, g in zip((ot, ht, ct), gs)).backward()
    pairs = list(zip(m.parameters(), tm.parameters())) + [(xn, xt)]
    pairs += list(zip(sn, st)) if state else []
    for a, b in pairs:
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-11)


@needs_torch
def test_row_groups_match_torch():
    """A batch of 21 runs as two groups of rows side by side (11 and 10): with states, in
    both directions, against PyTorch."""
    m, tm = _pair({"bidirectional": True})
    x = rng.standard_normal((4, 21, 3))
    s0 = [rng.standard_normal((2, 21, 4)) for _ in range(2)]
    xn, xt = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    sn = [nb.tensor(a, requires_grad=True) for a in s0]
    st = [torch.tensor(a, requires_grad=True) for a in s0]
    on, ot = m(xn, tuple(sn))[0], tm(xt, tuple(st))[0]
    np.testing.assert_allclose(on.detach().numpy(), ot.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(tuple(ot.shape))
    (on * nb.tensor(g)).sum().backward()
    (ot * torch.tensor(g)).sum().backward()
    pairs = list(zip(m.parameters(), tm.parameters())) + [(xn, xt)] + list(zip(sn, st))
    for a, b in pairs:
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_results_do_not_depend_on_the_thread_count():
    import numba

    m = nb.nn.LSTM(3, 4, dtype=nb.float32)
    x = rng.standard_normal((6, 16, 3)).astype(np.float32)
    runs = []
    n = numba.get_num_threads()
    for threads in (1, n):
        numba.set_num_threads(threads)
        try:
            xn = nb.tensor(x, requires_grad=True)
            out = m(xn)[0]
            out.pow(2).sum().backward()
            runs.append(
                [out.detach().numpy(), xn.grad.numpy()] + [p.grad.numpy() for p in m.parameters()]
            )
            m.zero_grad()
        finally:
            numba.set_num_threads(n)
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)


@needs_torch
def test_float32_benchmark_shape_matches_torch():
    m, tm = _pair({}, np.float32)
    x = rng.standard_normal((50, 16, 3)).astype(np.float32)
    xn, xt = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    on, ot = m(xn)[0], tm(xt)[0]
    np.testing.assert_allclose(on.detach().numpy(), ot.detach().numpy(), rtol=1e-5, atol=1e-6)
    on.sum().backward()
    ot.sum().backward()
    for a, b in list(zip(m.parameters(), tm.parameters())) + [(xn, xt)]:
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_one_row_per_layer_and_direction():
    m = nb.nn.LSTM(3, 4, dtype=nb.float64, bidirectional=True)
    x = nb.tensor(rng.standard_normal((6, 2, 3)), requires_grad=True)
    start = TAPE.n
    m(x)
    names = [OPS[int(TAPE.R[k, R_CODE])].name for k in range(start, TAPE.n)]
    assert names.count("lstm_seq") == 2 and "sigmoid" not in names and "linear" not in names


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("with_state", [False, True])
def test_gradcheck(reverse, with_state):
    """The compiled VJP against finite differences (float64), a cotangent on every plane
    of the op's output (states and gates)."""
    args = [rng.standard_normal(s) * 0.5 for s in ((4, 2, 3), (8, 3), (8, 2), (8,), (8,))]
    if with_state:
        args += [rng.standard_normal((2, 2)) * 0.5 for _ in range(2)]
    w = rng.standard_normal((PLANES, 4, 2, 2))

    def f(x, w_ih, w_hh, b_ih, b_hh, h0=None, c0=None):
        return (recurrent.lstm(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse) * nb.tensor(w)).sum()

    gradcheck(f, *args, atol=1e-7, rtol=1e-6)


def _fused(x, w_ih, w_hh, b, h0, c0):
    return recurrent.lstm(x, w_ih, w_hh, b, b if b is None else b * 0.5, h0, c0, False)


@pytest.mark.parametrize("with_state", [True, False])
def test_higher_order(with_state):
    """create_graph, batched cotangents and double backward (tests/higher.py): the
    cotangent reaches every plane of the op's output, the gates' included."""
    args = [rng.standard_normal(s) * 0.5 for s in ((3, 2, 3), (8, 3), (8, 2), (8,))]
    if with_state:
        args += [rng.standard_normal((2, 2)) * 0.5 for _ in range(2)]

        def f(x, w_ih, w_hh, b, h0, c0):
            return nb.sin(_fused(x, w_ih, w_hh, b, h0, c0)) * 2

    else:

        def f(x, w_ih, w_hh, b):
            return nb.sin(_fused(x, w_ih, w_hh, b, None, None)) * 2

    check_higher(f, *args)


def test_forward_mode_matches_central_differences():
    x, w_ih, w, b = (rng.standard_normal(s) * 0.5 for s in ((4, 2, 3), (8, 3), (8, 2), (8,)))
    tx, tw = rng.standard_normal(x.shape), rng.standard_normal(w.shape)
    with fwAD.dual_level():
        y = _fused(
            fwAD.make_dual(nb.tensor(x), nb.tensor(tx)),
            nb.tensor(w_ih),
            fwAD.make_dual(nb.tensor(w), nb.tensor(tw)),
            nb.tensor(b),
            None,
            None,
        )
        got = fwAD.unpack_dual(y).tangent.numpy()

    def at(e):
        return _fused(
            nb.tensor(x + e * tx), nb.tensor(w_ih), nb.tensor(w + e * tw), nb.tensor(b), None, None
        )

    eps = 1e-6
    want = (at(eps).numpy() - at(-eps).numpy()) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("kw", [{}, {"bidirectional": True}])
def test_compiled_matches_eager(kw):
    m = nb.nn.LSTM(3, 4, **kw)
    L = 2 if kw else 1

    def f(x, h0, c0):
        out, (h, c) = m(x, (h0, c0))
        loss = (out**2).sum() + (h * c).sum()
        return (loss, *nb.autograd.grad(loss, (x, h0, c0, *m.parameters())))

    def make(seed):
        g = np.random.default_rng(seed)
        return [
            nb.tensor(g.standard_normal(s).astype(np.float32), requires_grad=True)
            for s in ((5, 2, 3), (L, 2, 4), (L, 2, 4))
        ]

    check_replay(f, make)
