"""GPU benchmarks: nbgrad's CUDA backend against PyTorch CUDA, same groups.

  cuda-elementwise-64M  64M float32 ``(sin(x)*exp(x) + x*x).sum()``, forward + backward;
                        extra_info: achieved GB/s for the bytes it must move at least
                        (read x, write x.grad: 8 bytes per element) and the measured
                        device-to-device copy bandwidth of the same GPU
  cuda-chain            100 x ``y = sin(y*1.01) + x`` on 16 float32, forward + backward
  cuda-mlp-step         784-256-10 ReLU MLP, batch 256, float32: forward, cross-entropy,
                        backward, plain SGD update (written with functional ops)

They need a real GPU: on a machine without one (or on Numba's simulator) every case skips.
Every step synchronises before it returns, so the timings include the GPU work.
"""

import time

import numpy as np
import pytest

from benchmarks.conftest import load

N64M = 64 * 1024 * 1024
STEPS = 100


def _gpu_peer(name):
    mod = load(name)
    if name == "nbgrad":
        if not mod.cuda.is_available() or mod.cuda.is_simulated():
            pytest.skip("no GPU (nbgrad.cuda is unavailable or simulated)")
    elif not mod.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    return mod


@pytest.fixture(params=("nbgrad", "torch"))
def gpu(request):
    return request.param, _gpu_peer(request.param)


def tag(benchmark, group, name, mod):
    benchmark.group = group
    benchmark.extra_info["peer"] = name
    benchmark.extra_info["gpu"] = mod.cuda.get_device_name(0)


def copy_bandwidth(nbytes):
    """Device-to-device copy bandwidth in GB/s (read + write), best of 10."""
    from numba import cuda

    a = cuda.device_array(nbytes // 4, np.float32)
    b = cuda.device_array_like(a)
    best = float("inf")
    for _ in range(10):
        cuda.synchronize()
        t = time.perf_counter()
        b.copy_to_device(a)
        cuda.synchronize()
        best = min(best, time.perf_counter() - t)
    return 2 * nbytes / best / 1e9


def test_cuda_elementwise_64m(benchmark, gpu):
    name, torch = gpu
    tag(benchmark, "cuda-elementwise-64M", name, torch)
    arr = np.random.default_rng(1).uniform(-1.0, 1.0, N64M).astype(np.float32)
    x = torch.tensor(arr, device="cuda", requires_grad=True)

    def step():
        x.grad = None
        (torch.sin(x) * torch.exp(x) + x * x).sum().backward()
        torch.cuda.synchronize()

    step()
    idx = np.random.default_rng(2).integers(0, N64M, 1000)
    g = x.grad.cpu().numpy()[idx]
    xs = arr[idx].astype(np.float64)
    expect = np.cos(xs) * np.exp(xs) + np.sin(xs) * np.exp(xs) + 2 * xs
    np.testing.assert_allclose(g, expect, rtol=1e-4, atol=1e-5)
    benchmark.pedantic(step, rounds=10, iterations=1, warmup_rounds=1)
    best = benchmark.stats.stats.min
    benchmark.extra_info["min_bytes_GBps"] = 8 * N64M / best / 1e9
    if name == "nbgrad":
        benchmark.extra_info["copy_GBps"] = copy_bandwidth(4 * N64M)


def test_cuda_chain(benchmark, gpu):
    name, torch = gpu
    tag(benchmark, "cuda-chain", name, torch)
    arr = np.random.default_rng(0).uniform(-1.0, 1.0, 16).astype(np.float32)
    x = torch.tensor(arr, device="cuda", requires_grad=True)

    def step():
        x.grad = None
        y = x
        for _ in range(STEPS):
            y = torch.sin(y * 1.01) + x
        y.sum().backward()
        torch.cuda.synchronize()

    step()
    y, d = arr.astype(np.float64), np.ones(16)
    for _ in range(STEPS):
        d = np.cos(y * 1.01) * 1.01 * d + 1.0
        y = np.sin(y * 1.01) + arr
    np.testing.assert_allclose(x.grad.cpu().numpy(), d, rtol=1e-3)
    benchmark(step)


def test_cuda_mlp_step(benchmark, gpu):
    name, torch = gpu
    tag(benchmark, "cuda-mlp-step", name, torch)
    rng = np.random.default_rng(0)
    F = torch.nn.functional

    def param(*shape):
        a = (rng.standard_normal(shape) / np.sqrt(shape[-1])).astype(np.float32)
        return torch.tensor(a, device="cuda", requires_grad=True)

    params = [param(256, 784), param(256), param(10, 256), param(10)]
    xb = torch.tensor(rng.standard_normal((256, 784)).astype(np.float32), device="cuda")
    yb = torch.tensor(rng.integers(0, 10, 256), device="cuda")

    def step():
        w1, b1, w2, b2 = params
        loss = F.cross_entropy(F.linear(F.linear(xb, w1, b1).relu(), w2, b2), yb)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p.sub_(0.01 * p.grad)
                p.grad = None
        torch.cuda.synchronize()
        return loss

    assert np.isfinite(step().item())
    benchmark(step)
