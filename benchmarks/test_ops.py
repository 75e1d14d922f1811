"""Op benchmarks: nbgrad against torch, side by side in the same groups.

Groups:

  cross-entropy-256x10     F.cross_entropy forward + backward, (256, 10) float32
  cross-entropy-4096x1000  the same on (4096, 1000) float32
  softmax-4096x1000        softmax over the last dim, forward + backward ((y * w).sum())
  einsum-bij,bjk           einsum("bij,bjk->bik") with (32, 128, 64) @ (32, 64, 128) float32,
                           forward + backward

Every benchmark checks its gradient against torch's (or a NumPy reference), so a fast
wrong answer fails.
"""

import numpy as np
import pytest

from benchmarks.conftest import Peer


@pytest.fixture(params=("nbgrad", "torch"))
def tpeer(request):
    return Peer(request.param)


def tag(benchmark, group, peer):
    benchmark.group = group
    benchmark.extra_info["peer"] = peer


def _leaf(mod, arr):
    return mod.tensor(arr, requires_grad=True)


def _ce_ref(x, t):
    m = x.max(1, keepdims=True)
    e = np.exp(x - m)
    p = e / e.sum(1, keepdims=True)
    p[np.arange(len(t)), t] -= 1
    return p / len(t)


@pytest.mark.parametrize("shape", [(256, 10), (4096, 1000)], ids=["256x10", "4096x1000"])
def test_cross_entropy(benchmark, tpeer, shape):
    tag(benchmark, f"cross-entropy-{shape[0]}x{shape[1]}", tpeer.name)
    rng = np.random.default_rng(0)
    arr = rng.standard_normal(shape).astype(np.float32)
    tgt = rng.integers(0, shape[1], shape[0])
    mod = tpeer.mod
    F = mod.nn.functional
    x = _leaf(mod, arr)
    t = mod.tensor(tgt)

    def step():
        x.grad = None
        F.cross_entropy(x, t).backward()
        return x.grad

    g = step()
    np.testing.assert_allclose(
        tpeer.to_numpy(g), _ce_ref(arr.astype(np.float64), tgt), rtol=1e-3, atol=1e-6
    )
    benchmark(step)


def test_softmax(benchmark, tpeer):
    tag(benchmark, "softmax-4096x1000", tpeer.name)
    rng = np.random.default_rng(1)
    arr = rng.standard_normal((4096, 1000)).astype(np.float32)
    w = rng.standard_normal((4096, 1000)).astype(np.float32)
    mod = tpeer.mod
    x = _leaf(mod, arr)
    wt = mod.tensor(w)

    def step():
        x.grad = None
        (mod.softmax(x, 1) * wt).sum().backward()
        return x.grad

    g = tpeer.to_numpy(step()).astype(np.float64)
    a = arr.astype(np.float64)
    p = np.exp(a - a.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    ref = p * (w - (p * w).sum(1, keepdims=True))
    np.testing.assert_allclose(g, ref, rtol=1e-3, atol=1e-6)
    benchmark.pedantic(step, rounds=60, iterations=1, warmup_rounds=3)


def test_einsum_bmm(benchmark, tpeer):
    tag(benchmark, "einsum-bij,bjk", tpeer.name)
    rng = np.random.default_rng(2)
    a_arr = rng.standard_normal((32, 128, 64)).astype(np.float32)
    b_arr = rng.standard_normal((32, 64, 128)).astype(np.float32)
    mod = tpeer.mod
    a, b = _leaf(mod, a_arr), _leaf(mod, b_arr)

    def step():
        a.grad = None
        b.grad = None
        mod.einsum("bij,bjk->bik", a, b).sum().backward()
        return a.grad, b.grad

    ga, gb = (tpeer.to_numpy(g) for g in step())
    ones = np.ones((32, 128, 128), np.float64)
    np.testing.assert_allclose(
        ga, ones @ b_arr.astype(np.float64).transpose(0, 2, 1), rtol=1e-3, atol=1e-3
    )
    np.testing.assert_allclose(
        gb, a_arr.astype(np.float64).transpose(0, 2, 1) @ ones, rtol=1e-3, atol=1e-3
    )
    benchmark.pedantic(step, rounds=20, iterations=1, warmup_rounds=2)
