"""The fused CPU convolution (nbgrad/ops/conv.py) and max pool positions (ops/pooling.py):
float32 values and gradients against PyTorch, the fused row against the composite it
replaces, second order through its differentiable VJP, and nbgrad.compile's replay."""

import copy
import warnings

import numpy as np
import pytest
from test_ops_helpers import T, needs_torch, torch

import nbgrad as nb
from nbgrad import nn
from nbgrad.nn import functional as F
from nbgrad.ops import conv

pytestmark = needs_torch
rng = np.random.default_rng(7)

CONVS = [
    ((64, 3, 8, 8), (16, 3, 3, 3), dict(padding=1)),  # the CNN benchmark's layers
    ((64, 16, 4, 4), (32, 16, 3, 3), {}),
    ((2, 3, 7, 6), (4, 3, 3, 2), dict(stride=2, padding=1)),
    ((2, 4, 7, 6), (6, 2, 3, 3), dict(groups=2, dilation=(2, 1), padding=(2, 1))),
    ((2, 3, 8, 8), (4, 3, 2, 2), dict(padding="same")),  # uneven padding
    ((2, 3, 9, 9), (4, 3, 3, 3), dict(stride=(3, 2), dilation=2)),
    ((2, 3, 9), (4, 3, 3), dict(stride=2, padding=2)),
    ((2, 6, 10), (6, 1, 4), dict(groups=6, padding="same", dilation=2)),
    ((3, 7), (2, 3, 7), {}),  # unbatched, kernel as wide as the input
]


def _conv(lib, xs, ws, kw, dtype, bias=True):
    f = lib.nn.functional.conv2d if ws.ndim == 4 else lib.nn.functional.conv1d
    x = lib.tensor(xs, dtype=dtype, requires_grad=True)
    w = lib.tensor(ws, dtype=dtype, requires_grad=True)
    b = lib.tensor(rng.standard_normal(ws.shape[0]), dtype=dtype) if bias else None
    if bias:
        b.requires_grad_(True)
    y = f(x, w, b, **kw)
    g = np.random.default_rng(1).standard_normal(tuple(y.shape))
    y.backward(lib.tensor(g, dtype=dtype))
    out = [y.detach().numpy(), x.grad.numpy(), w.grad.numpy()]
    return out + ([b.grad.numpy()] if bias else [])


@pytest.mark.parametrize("xs,ws,kw", CONVS)
@pytest.mark.parametrize("bias", [True, False])
def test_float32_matches_torch(xs, ws, kw, bias):
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    state = rng.bit_generator.state
    got = _conv(nb, x, w, kw, nb.float32, bias)
    rng.bit_generator.state = state  # the same bias
    want = _conv(torch, x, w, kw, torch.float32, bias)
    for a, b in zip(got, want):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs,ws,kw", CONVS)
def test_fused_row_matches_composite(xs, ws, kw, monkeypatch):
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    state = rng.bit_generator.state
    fused = _conv(nb, x, w, kw, nb.float64)
    monkeypatch.setattr(conv, "fused", lambda *a: None)
    rng.bit_generator.state = state
    composite = _conv(nb, x, w, kw, nb.float64)
    for a, b in zip(fused, composite):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_fused_row_is_one_row():
    x = T(rng.standard_normal((2, 3, 5, 5)), True)
    y = F.conv2d(x, T(rng.standard_normal((4, 3, 3, 3)), True), T(rng.standard_normal(4), True))
    assert type(y.grad_fn).__name__ == "ConvolutionBackward0"


@pytest.mark.parametrize("xs,ws,kw", CONVS[2:])
def test_second_order_matches_torch(xs, ws, kw):
    """Through the differentiable VJP: d/d(x, w) of <grad_x(<y, g>), v> + <grad_w, u>."""
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)

    def run(lib):
        f = lib.nn.functional.conv2d if len(ws) == 4 else lib.nn.functional.conv1d
        xt = lib.tensor(x, requires_grad=True)
        wt = lib.tensor(w, requires_grad=True)
        bt = lib.tensor(np.arange(ws[0], dtype=float), requires_grad=True)
        y = f(xt, wt, bt, **kw)
        gy = lib.tensor(np.random.default_rng(2).standard_normal(tuple(y.shape)))
        gx, gw, gb = lib.autograd.grad((y * gy).sum(), (xt, wt, bt), create_graph=True)
        v = np.random.default_rng(3)
        s = (gx * lib.tensor(v.standard_normal(xs))).sum() + (gw * gw).sum() + gb.sum()
        return [t.numpy() for t in lib.autograd.grad(s, (xt, wt), allow_unused=True)]

    for a, b in zip(run(nb), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


def test_batched_grads_match_loop():
    x = T(rng.standard_normal((2, 3, 6, 6)), True)
    w = T(rng.standard_normal((4, 3, 3, 3)), True)
    y = F.conv2d(x, w, stride=2, padding=1)
    gs = rng.standard_normal((3,) + tuple(y.shape))
    bx, bw = nb.autograd.grad(y, (x, w), T(gs), retain_graph=True, is_grads_batched=True)
    for i in range(3):
        lx, lw = nb.autograd.grad(y, (x, w), T(gs[i]), retain_graph=True)
        np.testing.assert_allclose(bx[i].numpy(), lx.numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(bw[i].numpy(), lw.numpy(), rtol=1e-12, atol=1e-12)


POOLS = [  # (input shape, spatial dims, settings)
    ((2, 3, 8, 8), 2, dict(kernel_size=2)),
    ((2, 3, 7, 6), 2, dict(kernel_size=3, stride=2, padding=1)),
    ((2, 3, 9, 9), 2, dict(kernel_size=(3, 2), stride=(2, 1), dilation=(2, 1), padding=1)),
    ((2, 3, 9, 9), 2, dict(kernel_size=3, stride=2, ceil_mode=True)),
    ((3, 7, 7), 2, dict(kernel_size=3, stride=2, ceil_mode=True)),
    ((2, 3, 11), 1, dict(kernel_size=3, stride=2, padding=1)),
    ((3, 11), 1, dict(kernel_size=4, stride=3, dilation=2, ceil_mode=True)),
]


@pytest.mark.parametrize("xs,nsp,kw", POOLS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_pool_matches_torch(xs, nsp, kw, dtype):
    """Ties (rounded values), NaNs and -inf: the same maxima, indices and gradients."""
    x = rng.standard_normal(xs).round(1)
    x.reshape(-1)[::7] = np.nan
    x.reshape(-1)[::11] = -np.inf
    g = rng.standard_normal(1000)

    def run(lib):
        f = getattr(lib.nn.functional, f"max_pool{nsp}d")
        dt = getattr(lib, dtype)
        xt = lib.tensor(x, dtype=dt, requires_grad=True)
        y, idx = f(xt, return_indices=True, **kw)
        y.backward(lib.tensor(g[: y.numel()].reshape(tuple(y.shape)), dtype=dt))
        return y.detach().numpy(), idx.numpy(), xt.grad.numpy()

    (yn, i_n, gn), (yt, i_t, gt) = run(nb), run(torch)
    np.testing.assert_array_equal(yn, yt)
    np.testing.assert_array_equal(i_n, i_t)
    assert i_n.dtype == np.int64
    np.testing.assert_allclose(gn, gt, rtol=1e-6, atol=1e-6)


def test_compiled_conv_replays_eager_bits():
    """nbgrad.compile replays the fused row with the eager kernels: the same bits, for
    new inputs too."""
    nb.manual_seed(0)
    m = nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1),
        nn.ReLU(),
        nn.AvgPool2d(2),
        nn.Conv2d(4, 6, 3, padding=(2, 1), stride=2, groups=2, dilation=(2, 1)),
        nn.Flatten(),
        nn.Linear(6, 3),
    )
    m0 = copy.deepcopy(m)
    opt = nb.optim.SGD(m.parameters(), lr=0.1)
    xs = [T(rng.standard_normal((5, 2, 4, 4)).astype(np.float32)) for _ in range(3)]
    y = nb.tensor([0, 1, 2, 0, 1])

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        return loss

    eager = [step(x, y).item() for x in xs]
    m.load_state_dict(m0.state_dict())
    cs = nb.compile(step)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to eager execution
        compiled = [cs(x, y).item() for x in xs]
    assert compiled == eager
