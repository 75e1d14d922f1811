"""float16/bfloat16 through module-level functions and layers: PyTorch's result dtype, and
its values (PyTorch computes these in float32 and rounds, as nbgrad does, up to the order
of float32 accumulation)."""

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
X = rng.uniform(-2, 2, (4, 6)).astype(np.float32)
W = rng.uniform(-1, 1, (3, 6)).astype(np.float32)
IMG = rng.uniform(-1, 1, (2, 3, 6, 6)).astype(np.float32)
IDX = np.array([[0, 2], [4, 1]])

CASES = {
    "add": lambda lib, x, w: lib.add(x, x),
    "mul_scalar": lambda lib, x, w: lib.mul(x, 2.5),
    "exp": lambda lib, x, w: lib.exp(x),
    "sum": lambda lib, x, w: lib.sum(x),
    "sum_dim": lambda lib, x, w: lib.sum(x, 1),
    "mean": lambda lib, x, w: lib.mean(x, 0),
    "max_dim": lambda lib, x, w: lib.max(x, 1).values,
    "matmul": lambda lib, x, w: lib.matmul(x, w.t()),
    "cat": lambda lib, x, w: lib.cat([x, x], 0),
    "stack": lambda lib, x, w: lib.stack([x, x]),
    "where": lambda lib, x, w: lib.where(x > 0, x, -x),
    "softmax": lambda lib, x, w: lib.softmax(x, 1),
    "linear": lambda lib, x, w: lib.nn.functional.linear(x, w),
    "relu": lambda lib, x, w: lib.nn.functional.relu(x),
    "gelu": lambda lib, x, w: lib.nn.functional.gelu(x),
    "layer_norm": lambda lib, x, w: lib.nn.functional.layer_norm(x, (6,)),
    "mse": lambda lib, x, w: lib.nn.functional.mse_loss(x, x * 0.5),
    "cross_entropy": lambda lib, x, w: lib.nn.functional.cross_entropy(x, lib.tensor([0, 1, 2, 3])),
    "zeros_like": lambda lib, x, w: lib.zeros_like(x),
    "clamp": lambda lib, x, w: lib.clamp(x, -1, 1),
}


def _run(lib, case, dt):
    x = lib.tensor(X).to(getattr(lib, dt)).requires_grad_()
    w = lib.tensor(W).to(getattr(lib, dt))
    y = CASES[case](lib, x, w)
    out = [y.dtype, y.detach().float().numpy()]
    if y.requires_grad:
        y.float().sum().backward()
        out += [x.grad.dtype, x.grad.float().numpy()]
    return out


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_functions_keep_half(case, dt):
    want, got = _run(torch, case, dt), _run(nbgrad, case, dt)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, np.ndarray):
            tol = 1e-2 if dt == "bfloat16" else 2e-3
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol)
        else:
            assert str(g).split(".")[-1] == str(w).split(".")[-1]


def test_mixed_precision_promotes_as_pytorch():
    for lib in (torch, nbgrad):
        h = lib.tensor(X).half()
        assert lib.add(h, lib.tensor(X)).dtype == lib.float32  # half + float32: float32
        assert lib.add(h, lib.tensor(2.0)).dtype == lib.float16  # a 0-dim float32: half
        assert lib.add(h, lib.tensor(X).bfloat16()).dtype == lib.float32
        assert lib.argmax(h).dtype == lib.int64
        assert lib.sum(h, dtype=lib.float32).dtype == lib.float32


@pytest.mark.parametrize("layer", ["linear", "conv", "embedding", "layernorm", "seq"])
def test_layers_in_half(layer):
    outs = []
    for lib in (torch, nbgrad):
        lib.manual_seed(0)
        nn = lib.nn
        if layer == "linear":
            m, x = nn.Linear(6, 3), lib.tensor(X)
        elif layer == "conv":
            m, x = nn.Conv2d(3, 4, 3, padding=1), lib.tensor(IMG)
        elif layer == "embedding":
            m, x = nn.Embedding(6, 4), lib.tensor(IDX)
        elif layer == "layernorm":
            m, x = nn.LayerNorm(6), lib.tensor(X)
        else:
            m, x = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2)), lib.tensor(X)
        # the same parameters in both libraries
        for p in m.parameters():
            with lib.no_grad():
                p.copy_(lib.tensor(rng_params(p.shape)))
        m = m.half()
        if x.dtype == lib.float32:
            x = x.half()
        y = m(x)
        y.float().sum().backward()
        p0 = next(m.parameters())
        outs.append((y.dtype, p0.grad.dtype, y.detach().float().numpy(), p0.grad.float().numpy()))
    (ty, tg, tyv, tgv), (ny, ng, nyv, ngv) = outs
    assert str(ny).split(".")[-1] == str(ty).split(".")[-1] == "float16"
    assert str(ng).split(".")[-1] == str(tg).split(".")[-1] == "float16"
    np.testing.assert_allclose(nyv, tyv, rtol=5e-3, atol=5e-3)
    np.testing.assert_allclose(ngv, tgv, rtol=5e-3, atol=5e-3)


def rng_params(shape):
    n = int(np.prod(shape))
    return np.sin(np.arange(n) * 0.7).reshape(tuple(shape)).astype(np.float32) * 0.5


@pytest.mark.parametrize("opt", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_optimizer_steps_keep_half_values(opt):
    res = []
    for lib in (torch, nbgrad):
        w = lib.tensor([0.1, -0.37, 1.23, 2.0, -3.5]).half()
        p = lib.nn.Parameter(w.detach().clone())  # a half Parameter, as in PyTorch
        o = getattr(lib.optim, opt)([p], lr=0.0123)
        for _ in range(3):
            o.zero_grad()
            (p.float() ** 2).sum().backward()
            o.step()
        v = p.detach().float().numpy()
        # every value a float16 value: the step (computed in float32) is rounded
        np.testing.assert_array_equal(v.astype(np.float16).astype(np.float32), v)
        res.append((str(p.dtype).split(".")[-1], v))
    assert res[0][0] == res[1][0] == "float16"
    # within a half step of PyTorch's (its optimizer state is half too; nbgrad's is float32)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=2e-3, atol=1e-3)


def test_parameter_of_a_half_tensor_is_half_and_deepcopies_half():
    import copy

    p = nbgrad.nn.Parameter(nbgrad.tensor([0.1, 0.2]).half())
    assert p.dtype is nbgrad.float16 and isinstance(p, nbgrad.nn.Parameter)
    q = copy.deepcopy(p)
    assert q.dtype is nbgrad.float16 and isinstance(q, nbgrad.nn.Parameter)
