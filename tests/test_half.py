"""float16 and bfloat16 tensors (nbgrad/_lowp.py) against PyTorch: creation, conversion,
printing, NumPy, promotion, finfo, arithmetic, reductions, products, autograd, modules,
saving."""

import operator
import pickle

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")

LOWP = ["float16", "bfloat16"]
HALF_TOL = dict(rtol=1e-2, atol=1e-2)


def data(seed=0, shape=(3, 4)):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def both(arr, dt, requires_grad=False):
    t = torch.tensor(arr, dtype=getattr(torch, dt), requires_grad=requires_grad)
    n = nbgrad.tensor(arr, dtype=getattr(nbgrad, dt), requires_grad=requires_grad)
    return n, t


def same(n, t, exact=False, **tol):
    assert str(n.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(n.shape) == tuple(t.shape)
    got, want = n.detach().float().numpy(), t.detach().float().numpy()
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, **(tol or HALF_TOL))


@pytest.mark.parametrize("dt", LOWP)
def test_conversions_round_as_pytorch(dt):
    arr = data() * np.float32(1000) ** np.arange(4, dtype=np.float32) / 1000
    arr[0, 0], arr[0, 1] = np.nan, np.inf
    n, t = both(arr, dt)
    same(n, t, exact=True)  # rounding to nearest even, overflow to inf, NaN kept
    ft, fn = torch.tensor(arr), nbgrad.tensor(arr)
    method = "half" if dt == "float16" else dt
    same(getattr(fn, method)(), getattr(ft, method)(), exact=True)
    same(fn.to(getattr(nbgrad, dt)), ft.to(getattr(torch, dt)), exact=True)
    assert n.element_size() == t.element_size() == 2
    assert n.float().dtype is nbgrad.float32 and n.double().dtype is nbgrad.float64
    assert n.is_floating_point()


@pytest.mark.parametrize("dt", LOWP)
def test_factories(dt):
    nd, td = getattr(nbgrad, dt), getattr(torch, dt)
    for name in ("zeros", "ones"):
        same(
            getattr(nbgrad, name)(2, 3, dtype=nd), getattr(torch, name)(2, 3, dtype=td), exact=True
        )
    same(nbgrad.full((2,), 1.1, dtype=nd), torch.full((2,), 1.1, dtype=td), exact=True)
    same(nbgrad.arange(0, 3, 0.7, dtype=nd), torch.arange(0, 3, 0.7, dtype=td), exact=True)
    n, t = both(data(), dt)
    same(nbgrad.zeros_like(n), torch.zeros_like(t), exact=True)
    assert nbgrad.randn(2, dtype=nd).dtype is nd


def test_printing_and_item():
    arr = np.array([[1.0, 2.5, 3.14159], [-0.001, 65504.0, 1e-7]], np.float32)
    for dt in LOWP:
        n, t = both(arr, dt)
        assert repr(n) == repr(t).replace("torch.", "nbgrad.")
        assert n[0, 2].item() == t[0, 2].item()
        assert n.tolist() == t.tolist()
    n, t = both(arr, "float16", requires_grad=True)
    assert repr(n * 2) == repr(t * 2).replace("torch.", "nbgrad.")


def test_numpy():
    n, t = both(data(), "float16")
    a = n.numpy()
    assert a.dtype == np.float16
    np.testing.assert_array_equal(a, t.numpy())
    b, _ = both(data(), "bfloat16")
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        b.numpy()
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        torch.ones(2, dtype=torch.bfloat16).numpy()
    h = nbgrad.from_numpy(data().astype(np.float16))
    assert h.dtype is nbgrad.float16
    assert nbgrad.tensor(np.float16(1.5)).dtype is nbgrad.float16


CASES = [  # (lhs, rhs) descriptions: dtype name, or "0d:<dtype>", or a Python number
    ("float16", "float16"),
    ("float16", "float32"),
    ("float16", 2.0),
    ("float16", 2),
    ("float16", "0d:float32"),
    ("0d:float16", "float32"),
    ("float16", "bfloat16"),
    ("bfloat16", "bfloat16"),
    ("bfloat16", "float64"),
    ("int64", "float16"),
    ("int32", "0d:bfloat16"),
    ("float16", "0d:int64"),
    ("bool", "float16"),
]


def operand(lib, desc, seed):
    if not isinstance(desc, str):
        return desc
    zero_dim = desc.startswith("0d:")
    name = desc[3:] if zero_dim else desc
    arr = np.float32(1.5) if zero_dim else data(seed)
    if name in ("int64", "int32", "bool"):
        arr = (np.asarray(arr) * 3).astype(np.int64)
        if name == "bool":
            arr = arr > 0
    return lib.tensor(arr, dtype=getattr(lib, name))


@pytest.mark.parametrize("lhs,rhs", CASES, ids=[f"{a}-{b}" for a, b in CASES])
def test_promotion(lhs, rhs):
    n = [operand(nbgrad, d, i) for i, d in enumerate((lhs, rhs))]
    t = [operand(torch, d, i) for i, d in enumerate((lhs, rhs))]
    want = str(torch.result_type(*t)).split(".")[-1]
    assert str(nbgrad.result_type(*n)).split(".")[-1] == want
    for op in (operator.add, operator.mul, operator.sub)[: 2 if "bool" in (lhs, rhs) else 3]:
        same(op(n[0], n[1]), op(t[0], t[1]))
    same(n[1] * n[0], t[1] * t[0])


def test_promote_types():
    names = ["bool", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
    for a in names:
        for b in names:
            got = nbgrad.promote_types(getattr(nbgrad, a), getattr(nbgrad, b))
            want = torch.promote_types(getattr(torch, a), getattr(torch, b))
            assert got.name == str(want).split(".")[-1], (a, b)


@pytest.mark.parametrize("dt", LOWP)
def test_finfo(dt):
    n, t = nbgrad.finfo(getattr(nbgrad, dt)), torch.finfo(getattr(torch, dt))
    for f in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(n, f) == getattr(t, f), f
    assert repr(n) == repr(t)
    assert nbgrad.finfo().eps == torch.finfo().eps
    assert nbgrad.iinfo(nbgrad.int32).max == torch.iinfo(torch.int32).max
    with pytest.raises(TypeError, match="requires a floating point input type"):
        nbgrad.finfo(nbgrad.int64)


OPS = {
    "exp": lambda x, y: x.exp(),
    "tanh": lambda x, y: x.tanh(),
    "relu": lambda x, y: x.relu(),
    "div": lambda x, y: x / (y.abs() + 1),
    "pow": lambda x, y: x**2,
    "sum": lambda x, y: x.sum(),
    "mean0": lambda x, y: x.mean(0),
    "max": lambda x, y: x.max(1).values,
    "matmul": lambda x, y: x @ y.T,
    "softmax": lambda x, y: x.softmax(-1),
    "index": lambda x, y: x[1:, ::2],
    "reshape": lambda x, y: x.reshape(4, 3).t(),
    "where": lambda x, y: x.where(x > 0, y),
    "cat": lambda x, y: x.unsqueeze(0).expand(2, 3, 4),
}


@pytest.mark.parametrize("dt", LOWP)
@pytest.mark.parametrize("op", sorted(OPS))
def test_ops_and_gradients(dt, op):
    tol = HALF_TOL if dt == "float16" else dict(rtol=5e-2, atol=5e-2)
    nx, tx = both(data(1), dt, requires_grad=True)
    ny, ty = both(data(2), dt, requires_grad=True)
    n, t = OPS[op](nx, ny), OPS[op](tx, ty)
    same(n, t, **tol)
    seed = data(3, tuple(t.shape))
    n.backward(nbgrad.tensor(seed, dtype=n.dtype))
    t.backward(torch.tensor(seed, dtype=t.dtype))
    for a, b in ((nx, tx), (ny, ty)):
        if b.grad is None:
            assert a.grad is None
        else:
            same(a.grad, b.grad, **tol)


def test_gradient_through_casts():
    # a float32 leaf used in half: its gradient is float32, computed from half values
    nw, tw = both(data(4), "float32", requires_grad=True)
    nx, tx = both(data(5, (2, 4)), "float16")
    (nx @ nw.half().T).float().pow(2).sum().backward()
    (tx @ tw.half().T).float().pow(2).sum().backward()
    assert nw.grad.dtype is nbgrad.float32
    np.testing.assert_allclose(nw.grad.numpy(), tw.grad.numpy(), rtol=1e-2, atol=1e-2)
    # the same leaf's gradient accumulates over passes, read as half each time
    h, th = both(data(6), "float16", requires_grad=True)
    for _ in range(2):
        (h * 3).sum().backward()
        (th * 3).sum().backward()
    same(h.grad, th.grad, exact=True)
    g = nbgrad.autograd.grad((h * h).sum(), h)[0]
    same(g, torch.autograd.grad((th * th).sum(), th)[0])


def test_modules_and_state_dict(tmp_path):
    nn, tnn = nbgrad.nn, torch.nn
    w, b = data(7, (2, 4)), data(8, (2,))
    m, tm = nn.Linear(4, 2), tnn.Linear(4, 2)
    with nbgrad.no_grad(), torch.no_grad():
        m.weight.copy_(nbgrad.tensor(w)), m.bias.copy_(nbgrad.tensor(b))
        tm.weight.copy_(torch.tensor(w)), tm.bias.copy_(torch.tensor(b))
    assert m.half() is m and tm.half() is tm
    assert isinstance(m.weight, nn.Parameter) and m.weight.dtype is nbgrad.float16
    same(m.weight, tm.weight, exact=True)
    sd = m.state_dict()
    nbgrad.save(sd, tmp_path / "half.pt")
    back = nbgrad.load(tmp_path / "half.pt")
    same(back["weight"], tm.weight, exact=True)
    m.to(nbgrad.bfloat16), tm.to(torch.bfloat16)
    same(m.weight, tm.weight, exact=True)
    nbgrad.save(m.state_dict(), tmp_path / "bf16.pt")
    same(nbgrad.load(tmp_path / "bf16.pt")["bias"], tm.bias, exact=True)
    m.float(), tm.float()
    assert type(m.weight) is nn.Parameter
    same(m.weight, tm.weight, exact=True)
    fresh = nn.Linear(4, 2)
    fresh.load_state_dict({k: v.float() for k, v in back.items()})
    same(fresh.weight, torch.tensor(w).half().float(), exact=True)


def test_pickle_and_copy():
    import copy

    n, _ = both(data(), "bfloat16", requires_grad=True)
    for c in (pickle.loads(pickle.dumps(n)), copy.deepcopy(n)):
        assert c.dtype is nbgrad.bfloat16 and c.requires_grad
        np.testing.assert_array_equal(c.detach().float().numpy(), n.detach().float().numpy())


def test_half_tensors_stay_on_cpu():
    with pytest.raises(TypeError, match="live on the CPU"):
        nbgrad.ones(2).half().cuda()


def test_out_of_scope_names_say_why():
    with pytest.raises(AttributeError, match="no automatic mixed precision"):
        nbgrad.autocast  # noqa: B018
    with pytest.raises(AttributeError, match="no complex dtype"):
        nbgrad.fft  # noqa: B018


def test_writes_round_and_tensors_hash():
    for dt in LOWP:
        n, t = both(np.ones(3, np.float32), dt)
        n[0], t[0] = 0.1, 0.1
        n.add_(1e-3), t.add_(1e-3)
        same(n, t, exact=True)
        assert len({n, n.detach()}) == 2
