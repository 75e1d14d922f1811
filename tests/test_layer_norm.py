"""The fused layer_norm op (nbgrad/ops/normalization.py) against PyTorch and finite
differences: values and gradients of input, weight and bias (float32/float64, on one
thread and on the parallel path), create_graph and double backward (check_higher),
forward mode, and nbgrad.compile against eager execution."""

import numpy as np
import pytest
from higher import check_higher
from replay import check_replay
from test_ops_helpers import gradcheck, needs_torch, parity, torch

import nbgrad as nb
from nbgrad.autograd import forward_ad as fwAD
from nbgrad.nn import functional as F
from nbgrad.ops import normalization

EXERCISED = {"layer_norm"}  # compiled replays checked here (tests/test_compile.py)
rng = np.random.default_rng(3)


def r(*shape):
    return rng.standard_normal(shape)


def tF():
    return torch.nn.functional


AFFINE = [(True, True), (True, False), (False, True), (False, False)]


@needs_torch
@pytest.mark.parametrize("affine", AFFINE, ids=["wb", "w", "b", "none"])
@pytest.mark.parametrize(
    "xshape,nshape",
    [((3, 5), (5,)), ((2, 3, 4, 5), (4, 5)), ((7,), (7,)), ((2, 1, 6), (1, 6))],
)
def test_values_and_gradients_match_torch(xshape, nshape, affine):
    args = [r(*xshape)] + [r(*nshape) for on in affine if on]

    def call(f):
        def g(x, *p):
            it = iter(p)
            w = next(it) if affine[0] else None
            b = next(it) if affine[1] else None
            return f(x, nshape, w, b, 1e-4)

        return g

    parity(call(F.layer_norm), call(tF().layer_norm), *args, rtol=1e-9, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("rows", [4, 4096])  # (4096, 100): the parallel kernels
def test_float32_matches_torch(rows):
    x, g = r(rows, 100).astype(np.float32), r(rows, 100).astype(np.float32)
    w, b = r(100).astype(np.float32), r(100).astype(np.float32)
    got = [nb.tensor(a, requires_grad=True) for a in (x, w, b)]
    ref = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    yn = F.layer_norm(got[0], (100,), got[1], got[2])
    yt = tF().layer_norm(ref[0], (100,), ref[1], ref[2])
    assert yn.dtype == nb.float32 and yn.grad_fn.name() == yt.grad_fn.name()
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-5)
    yn.backward(nb.tensor(g))
    yt.backward(torch.tensor(g))
    for a, c in zip(got, ref):
        tol = 1e-5 * max(1.0, float(np.abs(c.grad.numpy()).max()))
        np.testing.assert_allclose(a.grad.numpy(), c.grad.numpy(), rtol=1e-4, atol=tol)


def test_accumulates_into_existing_grads():
    x, w, b = (nb.tensor(a, requires_grad=True) for a in (r(3, 4), r(4), r(4)))
    v = nb.tensor(r(3, 4))
    F.layer_norm(x, (4,), w, b).backward(v)
    once = [t.grad.numpy().copy() for t in (x, w, b)]
    F.layer_norm(x, (4,), w, b).backward(v)
    for t, o in zip((x, w, b), once):
        np.testing.assert_allclose(t.grad.numpy(), 2 * o, rtol=1e-12)


def test_gradcheck():
    gradcheck(lambda x, w, b: F.layer_norm(x, (3, 4), w, b, 1e-3), r(2, 3, 4), r(3, 4), r(3, 4))
    gradcheck(lambda x: F.layer_norm(x, (5,)), r(3, 5))


def test_records_one_fused_row():
    x = nb.tensor(r(3, 4), requires_grad=True)
    assert F.layer_norm(x, (4,)).grad_fn.name() == "NativeLayerNormBackward0"
    ln = nb.nn.LayerNorm(4, dtype=nb.float64)
    assert ln(x).grad_fn.name() == "NativeLayerNormBackward0"


def test_composite_where_the_kernel_does_not_apply():
    """Mixed dtypes and empty inputs take the composite, with PyTorch's results."""
    x = nb.tensor(r(2, 3), requires_grad=True)
    w32 = nb.ones(3, dtype=nb.float32)
    assert normalization.fused(x, (3,), w32, None, 1e-5) is None
    assert normalization.fused(nb.zeros(0, 3), (3,), None, None, 1e-5) is None
    assert F.layer_norm(nb.zeros(0, 3), (3,)).shape == (0, 3)


@pytest.mark.parametrize("affine", AFFINE, ids=["wb", "w", "b", "none"])
def test_higher_order(affine):
    """create_graph, batched cotangents and double backward (tests/higher.py)."""
    params = [r(5) for on in affine if on]

    def f(x, *p):
        it = iter(p)
        w = next(it) if affine[0] else None
        b = next(it) if affine[1] else None
        return nb.sin(F.layer_norm(x, (5,), w, b, 1e-3)) * x

    check_higher(f, r(3, 5), *params)


@needs_torch
def test_forward_mode_matches_torch():
    x, w, b, tx, tw, tb = r(3, 5), r(5), r(5), r(3, 5), r(5), r(5)
    with fwAD.dual_level():
        duals = [fwAD.make_dual(nb.tensor(p), nb.tensor(t)) for p, t in ((x, tx), (w, tw), (b, tb))]
        got = fwAD.unpack_dual(F.layer_norm(duals[0], (5,), duals[1], duals[2])).tangent
    tfw = torch.autograd.forward_ad
    with tfw.dual_level():
        tds = [
            tfw.make_dual(torch.tensor(p), torch.tensor(t)) for p, t in ((x, tx), (w, tw), (b, tb))
        ]
        want = tfw.unpack_dual(tF().layer_norm(tds[0], (5,), tds[1], tds[2])).tangent
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("rows", [3, 700])  # 700 x 64: the parallel kernels
def test_compiled_matches_eager(rows):
    def f(x, w, b):
        loss = (F.layer_norm(x, (64,), w, b) ** 2).sum()
        return (loss, *nb.autograd.grad(loss, (x, w, b)))

    def make(seed):
        g = np.random.default_rng(seed)
        return [
            nb.tensor(g.standard_normal(s).astype(np.float32), requires_grad=True)
            for s in ((rows, 64), (64,), (64,))
        ]

    check_replay(f, make)
