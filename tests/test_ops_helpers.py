"""Shared helpers of the tests/test_ops_*.py files (no tests here).

`gradcheck` builds the full Jacobian of `f` twice: from nbgrad.autograd.grad with one-hot
grad_outputs, and by central differences in float64, and compares them.
"""

import numpy as np
import pytest

import nbgrad
from nbgrad.tensor import Tensor

try:
    import torch
except ImportError:  # parity tests skip cleanly
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def T(arr, rg=False):
    """An nbgrad tensor of exactly `arr`'s shape and dtype (0-d included)."""
    t = Tensor._make(np.ascontiguousarray(arr).reshape(np.shape(arr)).copy(), -1, False)
    return t.requires_grad_(True) if rg else t


def jacobians(f, args, eps=1e-6):
    """(analytic, numeric) Jacobians of f w.r.t. every float ndarray in args."""
    idx = [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    ins = [T(a, rg=i in idx) if isinstance(a, np.ndarray) else a for i, a in enumerate(args)]
    y = f(*ins)
    ny = y.numel()
    wrt = [ins[i] for i in idx]
    ana = [np.zeros((ny, args[i].size)) for i in idx]
    for e in range(ny):
        go = np.zeros(y.shape)
        go.reshape(-1)[e] = 1.0
        gs = nbgrad.autograd.grad(y, wrt, grad_outputs=T(go), retain_graph=True, allow_unused=True)
        for j, g in enumerate(gs):
            if g is not None:
                ana[j][e] = g.numpy().reshape(-1)
    num = [np.zeros((ny, args[i].size)) for i in idx]
    with nbgrad.no_grad():
        for j, i in enumerate(idx):
            for p in range(args[i].size):
                vals = []
                for s in (1, -1):
                    a = args[i].copy()
                    a.reshape(-1)[p] += s * eps
                    call = [
                        T(a) if q == i else (T(b) if isinstance(b, np.ndarray) else b)
                        for q, b in enumerate(args)
                    ]
                    vals.append(np.asarray(f(*call).numpy(), np.float64).reshape(-1))
                num[j][:, p] = (vals[0] - vals[1]) / (2 * eps)
    return ana, num


def gradcheck(f, *args, eps=1e-6, atol=1e-5, rtol=1e-4):
    ana, num = jacobians(f, args, eps)
    for a, n in zip(ana, num):
        np.testing.assert_allclose(a, n, atol=atol, rtol=rtol)


def to_torch(args, rg=True):
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            out.append(torch.tensor(a, requires_grad=rg and a.dtype.kind == "f"))
        else:
            out.append(a)
    return out


def to_nb(args, rg=True):
    return [T(a, rg and a.dtype.kind == "f") if isinstance(a, np.ndarray) else a for a in args]


def parity(f_nb, f_t, *args, rtol=1e-6, atol=1e-6, seed=0, grads=True):
    """Values and gradients (for a random cotangent) of nbgrad and torch agree."""
    tn, tt = to_nb(args, grads), to_torch(args, grads)
    yn, yt = f_nb(*tn), f_t(*tt)
    if isinstance(yt, tuple):
        yn, yt = yn[0], yt[0]
    assert tuple(yn.shape) == tuple(yt.shape)
    assert str(yn.dtype).split(".")[-1] == str(yt.dtype).split(".")[-1]
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), rtol=rtol, atol=atol)
    if not grads or not yt.requires_grad:
        return
    g = (
        np.random.default_rng(seed)
        .standard_normal(tuple(yt.shape))
        .astype(yn.detach().numpy().dtype)
    )
    g = np.asarray(g).reshape(tuple(yt.shape))
    yn.backward(T(g))
    yt.backward(torch.tensor(g))
    for a, b in zip(tn, tt):
        if isinstance(b, torch.Tensor) and b.requires_grad:
            if b.grad is None:
                assert a.grad is None or not np.any(a.grad.numpy())
                continue
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=atol)


def same_error(f_nb, f_t, *args):
    """nbgrad raises the exception type and message torch raises (torch.Size -> Size)."""
    with pytest.raises(Exception) as et:
        f_t(*to_torch(args, False))
    with pytest.raises(type(et.value)) as en:
        f_nb(*to_nb(args, False))
    want = str(et.value).replace("torch.Size", "nbgrad.Size")
    got = str(en.value)
    assert got == want or want.startswith(got) or got in want, (got, want)
