"""Pickling and copying follow PyTorch: a tensor comes back as a leaf with its
`requires_grad` (never holding a tape slot, which means nothing in another process),
Parameters and modules round-trip, compiled functions travel without machine code (they
trace again on first call). Each case is also unpickled in a fresh process."""

import copy
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import nbgrad as torch
from nbgrad import nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def in_child(blob_path, code, extra_path=None):
    """Run `code` in a fresh interpreter with `obj` unpickled from `blob_path`; return its
    stdout (the child fails the test on any error, a segfault included)."""
    prog = textwrap.dedent(
        f"""
        import pickle, sys
        sys.path[:0] = [{ROOT!r}] + ([{extra_path!r}] if {extra_path!r} else [])
        import nbgrad as torch
        # a graph of this process's own first, so a stale slot id would land inside it
        a = torch.ones(3, requires_grad=True)
        own = (a * 3).exp().sum()
        with open({str(blob_path)!r}, "rb") as f:
            obj = pickle.load(f)
        """
    ) + textwrap.dedent(code)
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def dump(tmp_path, obj, dumps=pickle.dumps):
    p = tmp_path / "obj.pkl"
    p.write_bytes(dumps(obj))
    return p


def test_non_leaf_unpickles_as_leaf():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = pickle.loads(pickle.dumps(y))
    assert z.is_leaf and z.requires_grad and z.grad_fn is None
    assert z.tolist() == [2.0, 4.0]
    (z * z).sum().backward()
    assert z.grad.tolist() == [4.0, 8.0] and x.grad is None


def test_non_leaf_unpickles_as_leaf_in_another_process(tmp_path):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * 2).sin()
    p = dump(tmp_path, y)
    out = in_child(
        p,
        """
        assert obj.is_leaf and obj.requires_grad and obj.grad_fn is None
        (obj * obj).sum().backward()
        own.backward()
        import math
        assert all(abs(g - 3 * math.exp(3.0)) < 1e-4 for g in a.grad.tolist()), a.grad
        print(obj.grad.tolist())
        """,
    )
    expect = (2 * np.sin(np.array([2.0, 4.0, 6.0], np.float32))).tolist()
    np.testing.assert_allclose(eval(out), expect, rtol=1e-6)


def test_tensor_fields_round_trip():
    for t in (
        torch.tensor([1, 2]),
        torch.ones(2, 3, dtype=torch.float64),
        torch.tensor(3.5),
        torch.ones(0, 2),
    ):
        u = pickle.loads(pickle.dumps(t))
        assert u.dtype == t.dtype and u.shape == t.shape and u.tolist() == t.tolist()
        assert not u.requires_grad
    x = torch.ones(2, requires_grad=True)
    (x * 2).sum().backward()
    u = pickle.loads(pickle.dumps(x))
    assert u.requires_grad and u.is_leaf and u.grad is None  # .grad is not pickled


def test_parameter_and_module_round_trip(tmp_path):
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is nn.Parameter and q.requires_grad and q.is_leaf
    q2 = pickle.loads(pickle.dumps(nn.Parameter(torch.ones(1), requires_grad=False)))
    assert type(q2) is nn.Parameter and not q2.requires_grad
    m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    m2 = pickle.loads(pickle.dumps(m))
    x = torch.ones(4, 2)
    assert m2(x).tolist() == m(x).tolist()
    assert all(type(a) is nn.Parameter for a in m2.parameters())
    path = dump(tmp_path, m)
    out = in_child(
        path,
        """
        x = torch.ones(4, 2)
        loss = obj(x).sum()
        loss.backward()
        print(([p.grad.shape == p.shape for p in obj.parameters()], obj(x).sum().item()))
        """,
    )
    flags, value = eval(out)
    assert all(flags) and value == pytest.approx(m(x).sum().item(), rel=1e-6)


def test_copy_follows_torch():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    c = copy.copy(y)  # PyTorch: a leaf requiring grad, sharing memory
    assert c.is_leaf and c.requires_grad
    with pytest.raises(RuntimeError, match="^Only Tensors created explicitly by the user"):
        copy.deepcopy(y)
    (x * 2).sum().backward()
    d = copy.deepcopy(x)
    assert d.is_leaf and d.requires_grad and d.grad.tolist() == [2.0, 2.0]
    m = nn.Linear(2, 3)
    m2 = copy.deepcopy(m)
    assert type(m2.weight) is nn.Parameter and m2.weight is not m.weight
    assert m2.weight.tolist() == m.weight.tolist()


def test_matches_torch():
    real = pytest.importorskip("torch")
    res = []
    for lib in (torch, real):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = pickle.loads(pickle.dumps(x * 2))
        c = copy.copy(x * 3)
        p = pickle.loads(pickle.dumps(lib.nn.Parameter(lib.ones(2))))
        res.append((y.is_leaf, y.requires_grad, c.is_leaf, c.requires_grad, type(p).__name__))
    assert res[0] == res[1]


MODULE = """
import nbgrad as torch

def grad_of_loss(w, x):
    loss = ((x @ w).sin() * 1.5).sum()
    return torch.autograd.grad(loss, w)[0]

f = torch.compile(grad_of_loss, fallback="raise")
"""


def test_compiled_function_pickles_and_retraces(tmp_path):
    (tmp_path / "compiled_mod.py").write_text(MODULE)
    sys.path.insert(0, str(tmp_path))
    try:
        import compiled_mod
    finally:
        sys.path.remove(str(tmp_path))
    w = torch.ones(3, 2, dtype=torch.float64, requires_grad=True)
    x = torch.ones(4, 3, dtype=torch.float64) * 0.1
    expect = compiled_mod.f(w, x).tolist()
    assert compiled_mod.f(w, x).tolist() == expect  # replayed
    assert compiled_mod.f.programs
    g = pickle.loads(pickle.dumps(compiled_mod.f))
    assert not g.programs  # no machine code travels
    np.testing.assert_allclose(g(w, x).detach().numpy(), expect, rtol=1e-12)
    np.testing.assert_allclose(g(w, x).detach().numpy(), expect, rtol=1e-12)  # traced again: replay
    path = dump(tmp_path, compiled_mod.f)
    out = in_child(
        path,
        """
        w = torch.ones(3, 2, dtype=torch.float64, requires_grad=True)
        x = torch.ones(4, 3, dtype=torch.float64) * 0.1
        print([obj(w, x).tolist() for _ in range(3)])
        """,
        extra_path=str(tmp_path),
    )
    for r in eval(out):
        np.testing.assert_allclose(r, expect, rtol=1e-12)


def test_compiled_closure_with_cloudpickle(tmp_path):
    cloudpickle = pytest.importorskip("cloudpickle")
    scale = 3.0

    def grad_of_loss(w):
        return torch.autograd.grad(((w * scale).sin() + w).sum(), w)[0]

    f = torch.compile(grad_of_loss, fallback="raise")
    w = torch.linspace(0, 1, 5, dtype=torch.float64, requires_grad=True)
    expect = f(w).tolist()
    f(w)
    blob = cloudpickle.dumps(f)
    g = pickle.loads(blob)
    np.testing.assert_allclose(g(w).detach().numpy(), expect, rtol=1e-12)
    path = tmp_path / "obj.pkl"
    path.write_bytes(blob)
    out = in_child(
        path,
        """
        w = torch.linspace(0, 1, 5, dtype=torch.float64, requires_grad=True)
        print([obj(w).tolist() for _ in range(3)])
        """,
    )
    for r in eval(out):
        np.testing.assert_allclose(r, expect, rtol=1e-12)


def test_tensors_with_cloudpickle(tmp_path):
    cloudpickle = pytest.importorskip("cloudpickle")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    blob = cloudpickle.dumps({"y": x * 2, "m": nn.Linear(2, 1)})
    path = tmp_path / "obj.pkl"
    path.write_bytes(blob)
    out = in_child(
        path,
        """
        y, m = obj["y"], obj["m"]
        assert y.is_leaf and y.requires_grad
        m(y.unsqueeze(0)).sum().backward()
        print(y.grad.shape == y.shape, m.weight.grad is not None)
        """,
    )
    assert out.split() == ["True", "True"]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU and no simulator")
def test_cuda_tensor_pickles_to_cuda_leaf():
    x = torch.tensor([1.0, 2.0], device="cuda", requires_grad=True)
    y = pickle.loads(pickle.dumps(x * 2))
    assert y.is_cuda and y.is_leaf and y.requires_grad
    assert y.detach().cpu().tolist() == [2.0, 4.0]
