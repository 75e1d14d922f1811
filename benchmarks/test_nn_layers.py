"""Layer benchmarks: nbgrad against torch on the same code (``import nbgrad as torch``).

Groups:

  cnn-step       one SGD step of conv3x3(3->16) -> ReLU -> maxpool2 -> conv3x3(16->32) ->
                 ReLU -> flatten -> linear(->10), 8x8 inputs, batch 64, float32
  lstm-fwd-bwd   nn.LSTM(16, 32) over 50 steps, batch 16: forward, sum, backward
  layernorm      nn.LayerNorm(1000) on (4096, 1000) float32: forward and backward
  sdpa           F.scaled_dot_product_attention on (8, 4, 64, 32) float32: forward and
                 backward

Both peers start from identical weights (copied through NumPy) and see identical inputs;
each benchmark checks its output against the other peer's (a fast wrong answer fails).
"""

import numpy as np
import pytest

_FIRST = {}


def tag(benchmark, group, peer):
    benchmark.group = group
    benchmark.extra_info["peer"] = peer


def _agree(group, value, tol=1e-3):
    ref = _FIRST.setdefault(group, value)
    assert abs(value - ref) <= tol * max(1.0, abs(ref)), (group, value, ref)


def _torchlike(peer):
    if not peer.torchlike:
        pytest.skip("layer benchmarks use the torch API (nbgrad and torch)")
    return peer.mod


def _init(torch, model, seed=0):
    rng = np.random.default_rng(seed)
    state = {
        k: torch.from_numpy((rng.uniform(-0.2, 0.2, tuple(v.shape))).astype(np.float32))
        for k, v in model.state_dict().items()
    }
    model.load_state_dict(state)


def _f32(torch, shape, seed, rg=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    t = torch.from_numpy(a)
    return t.requires_grad_(True) if rg else t


def test_cnn_step(benchmark, peer):
    torch = _torchlike(peer)
    tag(benchmark, "cnn-step", peer.name)
    nn = torch.nn
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(32 * 2 * 2, 10),
    )
    _init(torch, model)
    x = _f32(torch, (64, 3, 8, 8), 1)
    y = torch.from_numpy(np.random.default_rng(2).integers(0, 10, 64).astype(np.int64))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    _agree("cnn-step", step().item(), 1e-5)
    benchmark.pedantic(step, rounds=200, iterations=1, warmup_rounds=5)


def test_lstm_fwd_bwd(benchmark, peer):
    torch = _torchlike(peer)
    tag(benchmark, "lstm-fwd-bwd", peer.name)
    model = torch.nn.LSTM(16, 32)
    _init(torch, model)
    x = _f32(torch, (50, 16, 16), 3, rg=True)

    def run():
        out, _ = model(x)
        loss = out.sum()
        loss.backward()
        return loss

    _agree("lstm-fwd-bwd", run().item())
    benchmark.pedantic(run, rounds=30, iterations=1, warmup_rounds=2)


def test_layernorm(benchmark, peer):
    torch = _torchlike(peer)
    tag(benchmark, "layernorm", peer.name)
    ln = torch.nn.LayerNorm(1000)
    x = _f32(torch, (4096, 1000), 4, rg=True)
    g = _f32(torch, (4096, 1000), 5)

    def run():
        y = ln(x)
        y.backward(g)
        return y

    _agree("layernorm", float((run() * g).sum().item()), 1e-3)
    benchmark.pedantic(run, rounds=20, iterations=1, warmup_rounds=2)


def test_sdpa(benchmark, peer):
    torch = _torchlike(peer)
    tag(benchmark, "sdpa", peer.name)
    F = torch.nn.functional
    q, k, v = (_f32(torch, (8, 4, 64, 32), s, rg=True) for s in (6, 7, 8))

    def run():
        out = F.scaled_dot_product_attention(q, k, v)
        loss = out.sum()
        loss.backward()
        return loss

    _agree("sdpa", run().item())
    benchmark.pedantic(run, rounds=100, iterations=1, warmup_rounds=5)
