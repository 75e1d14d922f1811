"""The fused scaled_dot_product_attention op (nbgrad/ops/attention.py): values and gradients
against PyTorch (float64 and float32, on one thread and over the threads), every mask
kind, an input passed twice, gradcheck, create_graph and double backward (check_higher),
forward mode, nbgrad.compile against eager, the composite where the op does not apply,
and CUDA tensors (the composite, against the CPU)."""

import numpy as np
import pytest
from higher import check_higher
from replay import check_replay
from test_ops_helpers import gradcheck, needs_torch, parity, same_error, torch

import nbgrad as nb
from nbgrad.autograd import forward_ad as fwAD
from nbgrad.nn import functional as F
from nbgrad.ops import attention

FUSED = "ScaledDotProductFlashAttentionForCpuBackward0"
rng = np.random.default_rng(5)


def r(*shape):
    return rng.standard_normal(shape)


def tF():
    return torch.nn.functional


def _sdpa(f, **kw):
    return lambda q, k, v: f.scaled_dot_product_attention(q, k, v, **kw)


def _masked(f, mask, **kw):
    """sdpa with a constant mask made by `mask(module)` (a bool or float tensor)."""
    return lambda q, k, v: f.scaled_dot_product_attention(q, k, v, mask(f.__name__), **kw)


def _mask_of(arr):
    return lambda name: torch.tensor(arr) if name.startswith("torch") else nb.tensor(arr)


QKV = [r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 2)]  # L=4 queries, S=6 keys, Ev=2


def _bool_mask(shape):
    m = rng.random(shape) > 0.4
    m[..., 0] = True  # (no row fully masked: see test_fully_masked_rows_are_zeros)
    return m


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [{}, {"scale": 0.3}, {"scale": -0.7}, {"is_causal": True}, {"is_causal": True, "scale": 2.0}],
    ids=["plain", "scale", "negative-scale", "causal", "causal-scale"],
)
def test_matches_torch(kw):
    parity(_sdpa(F, **kw), _sdpa(tF(), **kw), *QKV, rtol=1e-10, atol=1e-12)
    q, k, v = (nb.tensor(a, requires_grad=True) for a in QKV)
    assert F.scaled_dot_product_attention(q, k, v, **kw).grad_fn.name() == FUSED


@needs_torch
@pytest.mark.parametrize(
    "mask",
    [
        _bool_mask((4, 6)),
        _bool_mask((2, 3, 4, 6)),  # one per head
        _bool_mask((1, 3, 1, 6)),  # broadcast over queries and batch
        r(2, 1, 4, 6),  # additive float
        r(4, 6),
    ],
    ids=["bool", "bool-per-head", "bool-broadcast", "float-per-batch", "float"],
)
def test_masks_match_torch(mask):
    parity(_masked(F, _mask_of(mask)), _masked(tF(), _mask_of(mask)), *QKV, rtol=1e-10, atol=1e-12)
    q, k, v = (nb.tensor(a, requires_grad=True) for a in QKV)
    assert F.scaled_dot_product_attention(q, k, v, nb.tensor(mask)).grad_fn.name() == FUSED


@needs_torch
def test_causal_with_more_queries_than_keys():
    q, k, v = r(1, 2, 7, 3), r(1, 2, 4, 3), r(1, 2, 4, 3)
    kw = {"is_causal": True}
    parity(_sdpa(F, **kw), _sdpa(tF(), **kw), q, k, v, rtol=1e-10, atol=1e-12)


@needs_torch
def test_fully_masked_rows_are_zeros():
    """A query whose every key is masked out gives zeros and passes no gradient, as in
    PyTorch's kernel (softmax alone would give NaN)."""
    mask = _bool_mask((2, 3, 4, 6))
    mask[0, 1, 2] = False
    mask[1, :, 0] = False
    fmask = np.where(mask, 0.0, -np.inf)
    for m in (mask, fmask):
        parity(_masked(F, _mask_of(m)), _masked(tF(), _mask_of(m)), *QKV, rtol=1e-10, atol=1e-12)
    q, k, v = (nb.tensor(a) for a in QKV)
    y = F.scaled_dot_product_attention(q, k, v, nb.tensor(mask)).numpy()
    assert (y[0, 1, 2] == 0).all() and (y[1, :, 0] == 0).all()


@needs_torch
@pytest.mark.parametrize("same", ["qkv", "qk", "kv"])
def test_an_input_passed_twice(same):
    """q is k (self-attention): both products write one gradient buffer, stored by the
    first and added to by the next."""
    x, y = r(2, 2, 5, 3), r(2, 2, 5, 3)

    def f(mod):
        def g(a, b):
            q, k, v = {"qkv": (a, a, a), "qk": (a, a, b), "kv": (b, a, a)}[same]
            return mod.scaled_dot_product_attention(q, k, v, is_causal=True)

        return g

    parity(f(F), f(tF()), x, y, rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize(
    "wanted", [(True, False, False), (False, True, True), (False, False, True)]
)
def test_only_some_inputs_take_gradients(wanted):
    got = [nb.tensor(a, requires_grad=w) for a, w in zip(QKV, wanted)]
    ref = [torch.tensor(a, requires_grad=w) for a, w in zip(QKV, wanted)]
    g = r(2, 3, 4, 2)
    F.scaled_dot_product_attention(*got).backward(nb.tensor(g))
    tF().scaled_dot_product_attention(*ref).backward(torch.tensor(g))
    for a, b, w in zip(got, ref, wanted):
        assert (a.grad is None) == (not w)
        if w:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_accumulates_into_existing_grads():
    q, k, v = (nb.tensor(a, requires_grad=True) for a in QKV)
    g = nb.tensor(r(2, 3, 4, 2))
    F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(g)
    once = [t.grad.numpy().copy() for t in (q, k, v)]
    F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(g)
    for t, o in zip((q, k, v), once):
        np.testing.assert_allclose(t.grad.numpy(), 2 * o, rtol=1e-12)


@needs_torch
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", [(1, 2, 5, 4), (8, 4, 64, 32)])  # the latter: threads
def test_float32_matches_torch(shape, causal):
    arrs = [r(*shape).astype(np.float32) for _ in range(3)]
    g = r(*shape).astype(np.float32)
    got = [nb.tensor(a, requires_grad=True) for a in arrs]
    ref = [torch.tensor(a, requires_grad=True) for a in arrs]
    yn = F.scaled_dot_product_attention(*got, is_causal=causal)
    yt = tF().scaled_dot_product_attention(*ref, is_causal=causal)
    assert yn.dtype == nb.float32 and yn.grad_fn.name() == yt.grad_fn.name()
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-5)
    yn.backward(nb.tensor(g))
    yt.backward(torch.tensor(g))
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_gradcheck():
    mask = _bool_mask((3, 4))
    gradcheck(_sdpa(F), r(1, 2, 3, 2), r(1, 2, 4, 2), r(1, 2, 4, 3))
    gradcheck(_sdpa(F, is_causal=True, scale=0.8), r(2, 1, 4, 2), r(2, 1, 3, 2), r(2, 1, 3, 2))
    gradcheck(_masked(F, _mask_of(mask)), r(1, 2, 3, 2), r(1, 2, 4, 2), r(1, 2, 4, 3))


@pytest.mark.parametrize(
    "kw",
    [{}, {"is_causal": True}, {"attn_mask": "bool"}, {"attn_mask": "dead"}],
    ids=["plain", "causal", "mask", "dead-row"],
)
def test_higher_order(kw):
    """create_graph, batched cotangents and double backward (tests/higher.py)."""
    kw = dict(kw)
    if "attn_mask" in kw:
        m = _bool_mask((3, 4))
        if kw["attn_mask"] == "dead":
            m[1] = False
        kw["attn_mask"] = nb.tensor(m)

    def f(q, k, v):
        return nb.sin(F.scaled_dot_product_attention(q, k, v, **kw)) * v[..., :3, :]

    check_higher(f, r(2, 1, 3, 2), r(2, 1, 4, 2), r(2, 1, 4, 2))


@needs_torch
def test_forward_mode_matches_torch():
    shapes = [(1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 2)]
    prim, tang = [r(*s) for s in shapes], [r(*s) for s in shapes]
    with fwAD.dual_level():
        d = [fwAD.make_dual(nb.tensor(p), nb.tensor(t)) for p, t in zip(prim, tang)]
        y = F.scaled_dot_product_attention(*d, is_causal=True)
        got = fwAD.unpack_dual(y).tangent
    tfw = torch.autograd.forward_ad
    with tfw.dual_level():
        d = [tfw.make_dual(torch.tensor(p), torch.tensor(t)) for p, t in zip(prim, tang)]
        want = tfw.unpack_dual(tF().scaled_dot_product_attention(*d, is_causal=True)).tangent
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("shape", [(1, 2, 3, 4), (4, 4, 32, 16)])  # the latter: threads
def test_compiled_matches_eager(shape):
    def f(q, k, v):
        loss = (F.scaled_dot_product_attention(q, k, v, is_causal=True) ** 2).sum()
        return (loss, *nb.autograd.grad(loss, (q, k, v)))

    def make(seed):
        g = np.random.default_rng(seed)
        return [
            nb.tensor(g.standard_normal(shape).astype(np.float32), requires_grad=True)
            for _ in range(3)
        ]

    check_replay(f, make)


@needs_torch
def test_composite_where_the_op_does_not_apply():
    """3-D inputs, broadcast batch dims and a float mask that takes a gradient run the
    composite, with PyTorch's results."""
    x3 = [r(3, 4, 5), r(3, 6, 5), r(3, 6, 2)]
    parity(_sdpa(F, is_causal=True), _sdpa(tF(), is_causal=True), *x3, rtol=1e-10, atol=1e-12)
    bq = [r(2, 3, 4, 5), r(1, 3, 6, 5), r(1, 3, 6, 2)]
    parity(_sdpa(F), _sdpa(tF()), *bq, rtol=1e-10, atol=1e-12)
    m = r(2, 3, 4, 6)
    parity(
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m),
        lambda q, k, v, m: tF().scaled_dot_product_attention(q, k, v, m),
        *QKV,
        m,
        rtol=1e-10,
        atol=1e-12,
    )
    q, k, v = (nb.tensor(a) for a in QKV)
    assert attention.fused(q, k, v, None, False, 0.5, 0.1) is None  # dropout
    assert attention.fused(q, k, v, nb.tensor(m, requires_grad=True), False, 0.5, 0.0) is None
    assert attention.fused(q, k.float(), v, None, False, 0.5, 0.0) is None  # mixed dtypes
    ek, ev = nb.zeros(2, 3, 0, 5, dtype=nb.float64), nb.zeros(2, 3, 0, 2, dtype=nb.float64)
    assert attention.fused(q, ek, ev, None, False, 0.5, 0.0) is None  # no keys
    y = F.scaled_dot_product_attention(q, ek, ev)
    assert y.shape == (2, 3, 4, 2) and not y.numpy().any()


@pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")
def test_cuda_takes_the_composite():
    arrs = [r(1, 2, 3, 2), r(1, 2, 4, 2), r(1, 2, 4, 3)]
    g = r(1, 2, 3, 3)
    cpu = [nb.tensor(a, requires_grad=True) for a in arrs]
    gpu = [nb.tensor(a, device="cuda", requires_grad=True) for a in arrs]
    yc = F.scaled_dot_product_attention(*cpu, is_causal=True)
    yg = F.scaled_dot_product_attention(*gpu, is_causal=True)
    assert yg.is_cuda
    np.testing.assert_allclose(yg.detach().cpu().numpy(), yc.detach().numpy(), rtol=1e-9)
    yc.backward(nb.tensor(g))
    yg.backward(nb.tensor(g, device="cuda"))
    for a, b in zip(cpu, gpu):
        np.testing.assert_allclose(b.grad.cpu().numpy(), a.grad.numpy(), rtol=1e-9, atol=1e-12)


@needs_torch
def test_grouped_query_attention():
    """enable_gqa: key and value heads repeated up to the query's."""
    q, k, v = r(2, 6, 4, 5), r(2, 3, 3, 5), r(2, 2, 3, 7)
    kw = {"enable_gqa": True, "is_causal": True}
    parity(_sdpa(F, **kw), _sdpa(tF(), **kw), q, k, v, rtol=1e-10, atol=1e-12)
    parity(_sdpa(F, **kw), _sdpa(tF(), **kw), r(6, 4, 5), r(2, 3, 5), r(2, 3, 5), rtol=1e-10)
    same_error(
        _sdpa(F, enable_gqa=True), _sdpa(tF(), enable_gqa=True), q, r(2, 4, 3, 5), r(2, 4, 3, 5)
    )
