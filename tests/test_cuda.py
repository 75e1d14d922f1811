"""The CUDA backend against the CPU backend: values and gradients of CUDA ops in programs
(each op alone, elementwise ones in every broadcast: the op table, tests/opinfo/test_cuda.py),
device semantics and errors. Runs on a GPU when present, else on Numba's CUDA simulator
(tests/conftest.py); sizes are tiny because the simulator runs a Python thread per CUDA
thread. The CPU backend is the oracle (itself checked against finite differences and
PyTorch in the other test files)."""

import copy
import operator
import os
import subprocess
import sys

import numpy as np
import pytest

import nbgrad as nb

pytestmark = pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")

RNG = np.random.default_rng(7)
X = np.array([[-0.7, -0.3, 0.2], [0.45, 0.6, 0.85]])


def _leaves(arrays, device):
    return [nb.tensor(a, device=device, requires_grad=True) for a in arrays]


def check(fn, *arrays, tol=1e-9, seed_grad=True):
    """fn on CPU leaves and on CUDA leaves from the same float64 data: same value, same
    gradients (backward with the same random cotangent)."""
    cpu = _leaves(arrays, "cpu")
    gpu = _leaves(arrays, "cuda")
    yc, yg = fn(*cpu), fn(*gpu)
    assert yg.is_cuda and yg.device == nb.device("cuda:0")
    assert yg.shape == yc.shape and yg.dtype == yc.dtype
    np.testing.assert_allclose(yg.detach().cpu().numpy(), yc.detach().numpy(), rtol=tol, atol=tol)
    if not seed_grad:
        return
    g = RNG.standard_normal(yc.shape)
    yc.backward(nb.tensor(g))
    yg.backward(nb.tensor(g, device="cuda"))
    for a, b in zip(cpu, gpu):
        assert b.grad.is_cuda
        np.testing.assert_allclose(b.grad.cpu().numpy(), a.grad.numpy(), rtol=tol, atol=tol)


def test_float32_and_promotion():
    a = X.astype(np.float32)
    check(lambda t: (t.sin() * t.exp() + t * t).sum(), a, tol=1e-5)
    x = nb.tensor(a, device="cuda")
    y = nb.tensor(X, device="cuda")
    assert (x + y).dtype == nb.float64
    assert x.double().dtype == nb.float64 and x.double().is_cuda


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t.sum(),
        lambda t: t.mean(),
        lambda t: t.sum(0),
        lambda t: t.mean(-1, keepdim=True),
        lambda t: nb.sum(t, (0, 2)),
        lambda t: nb.mean(t, 1),
    ],
)
def test_reductions(fn):
    check(fn, RNG.standard_normal((3, 4, 5)))


def test_large_sum_uses_many_blocks():
    x = RNG.standard_normal(3000)  # more than one block's share on the simulator's grid
    check(lambda t: t.sum(), x)


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda a, b: a @ b, [(3, 4), (4, 5)]),
        (lambda a, b: nb.mm(a, b), [(1, 7), (7, 2)]),
        (lambda a, b: nb.bmm(a, b), [(2, 3, 4), (2, 4, 5)]),
        (lambda a, b: a @ b, [(2, 3, 4), (4, 5)]),  # batch folded into rows
        (lambda a, b: nb.nn.functional.linear(a, b), [(3, 4), (5, 4)]),
        (lambda a, b: nb.nn.functional.linear(a, b), [(3, 4), (4,)]),  # a 1-d weight
        (lambda a, b: a @ b, [(3, 4), (4,)]),  # matrix @ vector
        (lambda a, b: a @ b, [(3,), (3, 5)]),  # vector @ matrix
        (lambda a, b: nb.dot(a, b), [(4,), (4,)]),
        (lambda a, b: a @ b, [(2, 3), (2, 3, 2)]),  # 2-d @ batched: broadcast batch
        (lambda a, b: a @ b, [(2, 1, 3, 4), (3, 4, 2)]),
    ],
)
def test_matmul(fn, shapes):
    check(fn, *[RNG.standard_normal(s) for s in shapes])


@pytest.mark.parametrize(
    "eq, shapes",
    [
        ("ij,kj->ik", [(2, 3), (4, 3)]),
        ("ii->i", [(3, 3)]),  # a diagonal: a gather
        ("bij,bjk,k->bi", [(2, 3, 4), (2, 4, 2), (2,)]),  # three operands, pairwise
        ("...ij,j->...", [(2, 1, 3), (3,)]),  # ellipsis and a summed letter
    ],
)
def test_einsum(eq, shapes):
    check(lambda *ts: nb.einsum(eq, *ts), *[RNG.standard_normal(s) for s in shapes])


def test_linear_with_bias():
    check(nb.nn.functional.linear, *[RNG.standard_normal(s) for s in [(3, 4), (5, 4), (5,)]])


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t.reshape(4, 6) * 2,
        lambda t: t.view(-1).sin(),
        lambda t: t.flatten(1) * 2,
        lambda t: t.unsqueeze(1).squeeze(1) * 2,
        lambda t: t.transpose(0, 2) * nb.arange(24.0, device=t.device).reshape(4, 3, 2),
        lambda t: t.permute(2, 0, 1).sin(),
        lambda t: t.T.cos(),
        lambda t: t[:1].sum() if False else t.sum(1, keepdim=True).expand(2, 3, 4) * t,
    ],
)
def test_views(fn):
    check(fn, RNG.standard_normal((2, 3, 4)))


def test_softmax_family_and_losses():
    x = RNG.standard_normal((4, 5))
    check(lambda t: t.softmax(-1), x)
    check(lambda t: nb.log_softmax(t, 1), x)
    tgt = np.array([0, 4, 2, 2])
    F = nb.nn.functional
    for red in ("mean", "sum"):
        check(lambda t, r=red: F.cross_entropy(t, nb.tensor(tgt, device=t.device), reduction=r), x)
    y = RNG.standard_normal((4, 5))
    check(lambda t: F.mse_loss(t, nb.tensor(y, device=t.device)), x)
    with pytest.raises(IndexError, match="Target 5 is out of bounds"):
        F.cross_entropy(nb.tensor(x, device="cuda"), nb.tensor([0, 5, 1, 1], device="cuda"))


_W = np.array([0.5, 2.0, 1.5, 1.0, 0.3])
_T = np.array([0, 4, 2, 2])


def _ce(t, target=_T, **kw):
    if "weight" in kw:
        kw["weight"] = nb.tensor(kw["weight"], device=t.device)
    if not isinstance(target, nb.Tensor):
        target = nb.tensor(target, device=t.device)
    return nb.nn.functional.cross_entropy(t, target, **kw)


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: _ce(t, weight=_W),
        lambda t: _ce(t, label_smoothing=0.2, reduction="sum"),
        lambda t: _ce(t, ignore_index=2),  # ignored rows hit: the mean is over the others
        lambda t: _ce(t, weight=_W, ignore_index=4, label_smoothing=0.1),
        lambda t: _ce(t, reduction="none", weight=_W),
        lambda t: _ce(t.reshape(2, 2, 5).transpose(1, 2), _T.reshape(2, 2)),  # (N, C, d)
        lambda t: nb.nn.functional.nll_loss(
            t.log_softmax(1),
            nb.tensor(_T, device=t.device),
            nb.tensor(_W, device=t.device),
            ignore_index=0,
            reduction="none",
        ),
    ],
)
def test_cross_entropy_variants(fn):
    check(fn, RNG.standard_normal((4, 5)))


def test_cross_entropy_probability_targets():
    p = RNG.uniform(size=(4, 5))
    p /= p.sum(1, keepdims=True)
    check(lambda t, q: _ce(t, q, label_smoothing=0.1), RNG.standard_normal((4, 5)), p)
    check(lambda t, q: _ce(t, q, reduction="none", weight=_W), RNG.standard_normal((4, 5)), p)


def test_comparisons_and_argmax():
    a = RNG.standard_normal((3, 4))
    b = a.copy()
    b[0, 1] += 1.0  # equal everywhere but one element
    dev = lambda v: nb.tensor(v, device="cuda") if isinstance(v, np.ndarray) else v  # noqa: E731
    for op in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        for p, q in ((a, b), (a, b[1]), (a, 0.1), (0.1, a)):
            r = op(dev(p), dev(q))  # a scalar on the left goes through the reflected operator
            assert r.is_cuda and r.dtype == nb.bool
            np.testing.assert_array_equal(r.cpu().numpy(), op(p, q))
    x = RNG.standard_normal((3, 4, 5))
    x[1, 2, 3] = np.nan
    gx = nb.tensor(x, device="cuda")
    for dim in (None, 0, 1, -1):
        for keep in (False, True):
            for f in ("argmax", "argmin"):
                want = getattr(nb.tensor(x), f)(dim, keep).numpy()
                got = getattr(nb, f)(gx, dim, keep)
                assert got.is_cuda and got.dtype == nb.int64
                np.testing.assert_array_equal(got.cpu().numpy(), want)
    labels = np.array([0, 1, 2, 3])
    logits, y = nb.tensor(x[0], device="cuda"), nb.tensor(labels, device="cuda")
    acc = (logits.argmax(1) == y).float().mean()
    assert acc.dtype == nb.float32
    np.testing.assert_allclose(acc.item(), np.mean(x[0].argmax(1) == labels))


# -- device semantics ------------------------------------------------------------------
def test_factories_and_moves():
    z = nb.zeros(2, 3, device="cuda")
    assert z.is_cuda and z.device.type == "cuda" and str(z.device) == "cuda:0"
    assert nb.ones_like(z).is_cuda and nb.zeros_like(z, device="cpu").device.type == "cpu"
    r = nb.randn(3, device=nb.device("cuda"), dtype=nb.float64, requires_grad=True)
    assert r.is_leaf and r.requires_grad and r.dtype == nb.float64
    x = nb.tensor([[1.0, 2.0]])
    assert x.cuda().cpu().tolist() == [[1.0, 2.0]] and x.to("cuda").is_cuda
    assert x.cuda().to("cpu", nb.float64).dtype == nb.float64
    assert nb.tensor([1, 2], device="cuda").long().cpu().tolist() == [1, 2]
    c = nb.tensor(x.cuda())  # a copy on the device (as torch.tensor of a tensor)
    assert c.is_cuda and nb.tensor(c, dtype=nb.float64, device="cpu").dtype == nb.float64
    c.fill_(5.0)
    assert x.tolist() == [[1.0, 2.0]] and c.tolist() == [[5.0, 5.0]]
    assert nb.cuda.device_count() >= 1
    nb.cuda.synchronize()
    assert repr(x.cuda()) == "tensor([[1., 2.]], device='cuda:0')"
    assert repr(r).endswith(", device='cuda:0', dtype=nbgrad.float64,\n       requires_grad=True)")
    assert "grad_fn=<MulBackward0>" in repr(r * 2)


def test_numpy_of_cuda_tensor_raises_pytorchs_error():
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy. Use"):
        nb.ones(2, device="cuda").numpy()


def test_mixing_devices_raises_pytorchs_error():
    a, b = nb.ones(2, device="cuda"), nb.ones(2)
    msg = "Expected all tensors to be on the same device, but found at least two devices, "
    with pytest.raises(RuntimeError, match=msg + "cuda:0 and cpu!"):
        a + b
    with pytest.raises(RuntimeError, match=msg + "cpu and cuda:0!"):
        b * a
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        nb.ones(2, 2) @ nb.ones(2, 2, device="cuda")
    with pytest.raises(RuntimeError, match=msg + "cpu and cuda:0!"):  # no host copy of it
        b.masked_select(nb.ones(2, dtype=nb.bool, device="cuda"))
    with pytest.raises(RuntimeError, match=msg + "cuda:0 and cpu!"):
        a.masked_select(nb.ones(2, dtype=nb.bool))
    # a CPU 0-dim tensor is a scalar operand, as in PyTorch
    assert (a * nb.tensor(3.0)).cpu().tolist() == [3.0, 3.0]


def test_gradient_returns_to_the_cpu_through_to():
    x = nb.tensor(X, requires_grad=True)
    y = ((x * 2).cuda().sin() * 3).cpu().exp().sum()  # CPU, CUDA, CPU rows in one graph
    y.backward()
    assert x.grad.device.type == "cpu"
    expect = np.exp(3 * np.sin(2 * X)) * 3 * np.cos(2 * X) * 2
    np.testing.assert_allclose(x.grad.numpy(), expect, rtol=1e-12)


def test_grad_accumulates_on_device_and_autograd_grad():
    x = nb.tensor(X, device="cuda", requires_grad=True)
    (x * x).sum().backward()
    (x * x).sum().backward()
    assert x.grad.is_cuda
    np.testing.assert_allclose(x.grad.cpu().numpy(), 4 * X)
    h = x.exp()
    h.retain_grad()
    (gx,) = nb.autograd.grad((h * 2).sum(), x, retain_graph=True)
    assert gx.is_cuda
    np.testing.assert_allclose(gx.cpu().numpy(), 2 * np.exp(X))
    (h * 2).sum().backward()
    assert h.grad.is_cuda
    np.testing.assert_allclose(h.grad.cpu().numpy(), 2.0)
    y = (x.sin() * 2).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        y.backward()


X3 = RNG.standard_normal((2, 3, 4))


def _idx(a, t):
    return nb.tensor(np.array(a), device=t.device)


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t.max(1).values,
        lambda t: nb.min(t, 2, keepdim=True)[0],
        lambda t: t.max(),
        lambda t: t.amax((0, 2)),  # non-adjacent dims: permuted to the end first
        lambda t: nb.amin(t, 1, keepdim=True),
        lambda t: t.prod(1),
        lambda t: t.prod(),
        lambda t: t.var((1, 2)),
        lambda t: nb.std(t, 0, correction=0),
        lambda t: t.norm(),
        lambda t: nb.norm(t, 3, dim=1),
        lambda t: t.norm(1, 2),
        lambda t: t.logsumexp(2),
        lambda t: t.cumsum(1),
        lambda t: nb.log_softmax(t, 1),  # softmax over a dim other than the last
    ],
)
def test_reductions_along_dims(fn):
    check(fn, X3)


def test_selection_indices_and_ties():
    x = nb.tensor([[1.0, 3.0, 3.0], [2.0, -1.0, 0.0]], device="cuda", requires_grad=True)
    r = x.max(1)
    assert r.indices.is_cuda and r.indices.tolist() == [1, 0]  # first index on ties
    x.amax(1).sum().backward()  # ties share the gradient evenly, as torch.amax
    np.testing.assert_allclose(x.grad.cpu().numpy(), [[0, 0.5, 0.5], [1, 0, 0]])
    z = nb.tensor([[2.0, 0.0, 3.0], [0.0, 1.0, 0.0]], device="cuda", requires_grad=True)
    z.prod(1).sum().backward()  # zeros: d/dz_i prod = product of the others
    np.testing.assert_allclose(z.grad.cpu().numpy(), [[0, 6, 0], [0, 0, 0]])


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t[1, :, ::2],
        lambda t: t[..., None, 1],
        lambda t: t[:, [0, 2, 2]],  # duplicate indices: their gradients add up
        lambda t: t[t > 0],
        lambda t: t.masked_select(_idx(X3[0] > 0, t)),  # the mask broadcasts
        lambda t: t[:, :1].masked_select(_idx(X3[0, :, :1] > 0, t)),  # both broadcast
        lambda t: t[_idx([1, 0], t), _idx([2, 2], t)],
        lambda t: t.gather(2, _idx(np.zeros((2, 3, 2), np.int64), t)),
        lambda t: t.index_select(1, _idx([2, 0, 2], t)),
        lambda t: nb.take_along_dim(t, _idx(np.ones((2, 1, 4), np.int64), t), 1),
        lambda t: t.scatter_add(1, _idx([[[0, 1, 0, 2]]] * 2, t), t[:, :1] * 3),
        lambda t: t.index_add(1, _idx([0, 0], t), t[:, :2] * 2, alpha=0.5),
        lambda t: t.index_put((_idx([0, 1, 0], t),), t[1, 0, 0] * 2),
        lambda t: t.index_put((_idx([0, 1, 0], t),), t[1] + 1, accumulate=True),
        lambda t: nb.cat([t, t * 2], 1),
        lambda t: nb.stack([t, t.exp()], 2),
        lambda t: t.split([1, 3], 2)[1],
        lambda t: nb.chunk(t, 2, 1)[0] * nb.chunk(t, 2, 1)[1][:, :1],
        lambda t: t.unbind(1)[2],
        lambda t: t.narrow(2, 1, 2),
        lambda t: t.flip(0, 2),
        lambda t: t.repeat(2, 1, 1, 2),
        lambda t: nb.movedim(t, 0, 2),
    ],
)
def test_indexing_and_joins(fn):
    check(fn, X3)


def _assign(index, value):
    def fn(t, v=None):
        y = t * 1
        y[index] = value if v is None else v
        return y

    return fn


def test_setitem():
    check(_assign((slice(1, None), 1), 2.5), X3)  # basic index, a number
    check(_assign((0, slice(None), [1, 3]), None), X3, RNG.standard_normal((2, 1)))
    # duplicate indices: the last write wins, every source gets its destination's
    # cotangent (PyTorch's convention, as the CPU)
    check(_assign((slice(None), [0, 2, 0]), None), X3, RNG.standard_normal((3, 4)))
    x = nb.zeros(2, 3, device="cuda", requires_grad=True)
    with nb.no_grad():  # outside autograd: in place
        x[0, 1] = 5.0
        x[[1, 1], [0, 2]] = nb.tensor([1.0, 2.0], device="cuda")
        x[x > 1.5] = -1.0
    assert x.is_leaf and x.tolist() == [[0, -1, 0], [1, 0, -1]]
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[0] = 1.0
    with pytest.raises(RuntimeError, match="shape mismatch"):
        nb.zeros(2, 3, device="cuda")[[0, 1]] = nb.ones(2, 2, device="cuda")


def test_inplace_methods():
    check(lambda t: (t * 1).clamp_(-0.5, 0.5).pow_(2), X)
    check(lambda t: nb.zeros(2, 3, device=t.device).copy_(t[:1] * 2), X)  # broadcast source
    i2 = [[0, 1, 0]]
    check(lambda t: (t * 1).scatter_add_(0, _idx(i2, t), t[:1] * 2), X)
    check(lambda t: (t * 1).index_add_(1, _idx([2, 2], t), t[:, :2], alpha=3), X)
    check(lambda t: (t * 1).index_put_((_idx([1, 1], t),), t[0] * 2, accumulate=True), X)
    check(lambda t: (t * 1).index_put_((_idx([1], t), _idx([0], t)), t[0, 2] * 2), X)
    x = nb.zeros(2, 3, device="cuda")
    x.index_add_(1, nb.tensor([0, 0], device="cuda"), nb.ones(2, 2, device="cuda"))
    x.scatter_add_(0, nb.tensor([[1, 0, 1]], device="cuda"), nb.ones(1, 3, device="cuda"))
    x.index_put_((nb.tensor([0], device="cuda"), nb.tensor([2], device="cuda")), nb.tensor(9.0))
    assert x.tolist() == [[2, 1, 9], [3, 0, 1]]
    x.copy_(nb.tensor([1.0, 2.0, 3.0]))  # from the host
    x.clamp_(max=2.5)
    x **= 2
    assert x.is_cuda and x.tolist() == [[1, 4, 6.25]] * 2


def test_where_one_argument():
    c = RNG.standard_normal((3, 4)) > 0
    got = nb.where(nb.tensor(c, device="cuda"))
    assert len(got) == 2 and all(i.is_cuda and i.dtype == nb.int64 for i in got)
    for g, want in zip(got, np.nonzero(c)):
        np.testing.assert_array_equal(g.cpu().numpy(), want)


def test_index_errors_are_the_cpu_ones():
    x = nb.tensor(X3, device="cuda")
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 1 with size 3"):
        x[:, [0, 5]]
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_select(1, _idx([3], x))
    with pytest.raises(RuntimeError, match="Sizes of tensors must match"):
        nb.cat([x, x[:, :2]], 2)


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: nb.where(t > 0, t, t * 2),
        lambda t: nb.where(t[:1] > 0, 0.5, t),  # broadcast condition, number operand
        lambda t: t.clamp(-0.5, 0.5),
        lambda t: t.clamp(min=t[0] * 0 - 0.2),  # tensor bound
        lambda t: nb.nn.functional.leaky_relu(t, 0.1),
        lambda t: nb.nn.functional.elu(t),
        lambda t: nb.nn.functional.softplus(t, 2.0),
        lambda t: nb.nn.functional.hardtanh(t, -0.3, 0.4),
    ],
)
def test_where_clamp_activations(fn):
    check(fn, X3)


def _target(t, y):
    return nb.tensor(y, device=t.device)


_Y = RNG.standard_normal(X3.shape)
_B = (RNG.uniform(size=X3.shape) > 0.5).astype(np.float64)


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: nb.nn.functional.mse_loss(t, _target(t, _Y), reduction="none"),
        lambda t: nb.nn.functional.l1_loss(t, _target(t, _Y)),
        lambda t: nb.nn.functional.l1_loss(t, _target(t, _Y), reduction="sum"),
        lambda t: nb.nn.functional.smooth_l1_loss(t, _target(t, _Y), beta=0.5),
        lambda t: nb.nn.functional.huber_loss(t, _target(t, _Y), delta=0.7),
        lambda t: nb.nn.functional.binary_cross_entropy(t.sigmoid(), _target(t, _B)),
        lambda t: nb.nn.functional.binary_cross_entropy_with_logits(
            t, _target(t, _B), pos_weight=_target(t, np.array([1.0, 2.0, 0.5, 3.0]))
        ),
        lambda t: nb.nn.functional.nll_loss(nb.log_softmax(t[0], 1), _target(t, [0, 3, 1])),
    ],
)
def test_losses(fn):
    check(fn, X3)


def test_loss_with_a_broadcast_target():
    y = RNG.standard_normal(4)
    with pytest.warns(UserWarning, match="Using a target size"):
        check(lambda t, v: nb.nn.functional.l1_loss(t, v), X3, y)


def test_integer_and_bool_ops_match_the_cpu():
    """No gradients here: one_hot, ~, &, |, ^, integer sums and integer/bool einsum give the
    CPU's values and dtypes exactly."""
    F = nb.nn.functional
    ia = RNG.integers(-9, 9, (3, 4))
    ib = RNG.integers(-9, 9, (4, 2))
    big = np.array([[2**31 + 1, 5]]), np.array([[2**31 + 3], [7]])  # past float64's 2**53
    cases = [
        lambda d: F.one_hot(nb.tensor([0, 3, 1], device=d)),
        lambda d: F.one_hot(nb.tensor([[2], [0]], device=d), 5),
        lambda d: ~(nb.tensor(ia, device=d) > 0),
        lambda d: ~nb.tensor(ia, device=d),
        lambda d: (nb.tensor(ia, device=d) > 0) & (nb.tensor(ia[0], device=d) < 5),
        lambda d: (nb.tensor(ia, device=d) > 0) | True,
        lambda d: nb.tensor(ia, device=d) ^ 3,
        lambda d: (nb.tensor(ia, device=d) > 0) ^ nb.tensor(ia, device=d),  # bool with int
        lambda d: (nb.tensor(ia, device=d) > 0).sum(),
        lambda d: nb.tensor(ia, device=d).sum(1),
        lambda d: nb.einsum("ij,jk->ik", nb.tensor(ia, device=d), nb.tensor(ib, device=d)),
        lambda d: nb.einsum("ii,ij->j", nb.tensor(ia[:, :3], device=d), nb.tensor(ia, device=d)),
        lambda d: nb.einsum("ij->j", nb.tensor(ia, dtype=nb.int32, device=d)),
        lambda d: nb.einsum("ij,jk->ik", *(nb.tensor(a, device=d) > 0 for a in (ia, ib))),
        lambda d: nb.einsum("ij,jk", *(nb.tensor(a, device=d) for a in big)),
    ]
    for fn in cases:
        want, got = fn("cpu"), fn("cuda")
        assert got.is_cuda and got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        nb.tensor(ia, device="cuda").mean()


def test_errors_match_the_cpu():
    F = nb.nn.functional
    for dev in ("cpu", "cuda"):
        with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
            F.one_hot(nb.tensor([0, 3], device=dev), 3)
        with pytest.raises(RuntimeError, match="Class values must be non-negative"):
            F.one_hot(nb.tensor([-1], device=dev))
        with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions"):
            F.linear(nb.ones(2, 3, device=dev), nb.ones(2, 3, 3, device=dev))
        with pytest.raises(RuntimeError, match="argmax\\(\\): Expected reduction dim to be"):
            nb.zeros(0, device=dev).argmax()
    with pytest.raises(IndexError, match="argmin\\(\\): Expected reduction dim 1 to have non-zero"):
        nb.zeros(2, 0, device="cuda").argmin(1)
    assert nb.zeros(2, 0, device="cuda").argmax(0).shape == (0,)  # as torch
    with pytest.raises(RuntimeError, match="masked_select: expected BoolTensor for mask"):
        nb.ones(2, device="cuda").masked_select(nb.ones(2, device="cuda"))


class _Scaled(nb.autograd.Function):
    """(t * t * k * w, (t * w).sum()): two outputs, a number argument; backward returns t's
    gradient with an extra leading dim and w's at t's shape (both summed down by the engine)."""

    @staticmethod
    def forward(ctx, t, k, w):
        ctx.save_for_backward(t, w)
        ctx.k = k
        return t * t * k * w, (t * w).sum()

    @staticmethod
    def backward(ctx, g, h):
        t, w = ctx.saved_tensors
        assert t.device == w.device == g.device == h.device
        gt = (g * 2 * ctx.k * t * w + h * w).expand(2, *t.shape) / 2
        return gt, None, g * t * t * ctx.k + h * t


def test_custom_function():
    def fn(t, w):
        y, s = _Scaled.apply(t.exp(), 3.0, w)
        return y.sin() * s

    check(fn, X, RNG.standard_normal(3))
    x = nb.tensor(X, device="cuda", requires_grad=True)
    y, _ = _Scaled.apply(x, 2.0, nb.ones(3, device="cuda"))
    assert y.is_cuda and y.grad_fn.name() == "_ScaledBackward"
    y.sum().backward()  # materialized zeros for the unused output
    np.testing.assert_allclose(x.grad.cpu().numpy(), 4 * X)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        y.sum().backward()


def _function(backward, setup=None):
    class Fn(nb.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            if setup:
                setup(ctx)
            return t * 2, t * 3

        @staticmethod
        def backward(ctx, g, h):
            return backward(g, h)

    return Fn


def test_custom_function_checks_its_gradients():
    x = nb.ones(2, 3, device="cuda", requires_grad=True)
    for bw, msg in [
        (lambda g, h: g.cpu(), "invalid gradient at index 0 - expected device cuda:0 but got cpu"),
        (lambda g, h: g[:, :2], "got \\[2, 2\\] but expected shape compatible with \\[2, 3\\]"),
        (lambda g, h: (g, g), "returned an incorrect number of gradients \\(expected 1, got 2"),
    ]:
        with pytest.raises(RuntimeError, match=msg):
            _function(bw).apply(x)[0].sum().backward()
    seen = []

    def no_materialize(ctx):
        ctx.set_materialize_grads(False)

    _function(lambda g, h: seen.append(h) or g * 2, no_materialize).apply(x)[0].sum().backward()
    assert seen == [None] and x.grad.tolist() == [[2.0] * 3] * 2
    with pytest.raises(NotImplementedError, match="mixing CPU and CUDA tensors"):

        class ToHost(nb.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t.cpu()

            @staticmethod
            def backward(ctx, g):
                return g.cuda()

        ToHost.apply(x)


def test_unavailable_without_gpu_or_simulator():
    if nb.cuda.is_available() and not nb.cuda.is_simulated():
        pytest.skip("a real GPU is present")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    code = (
        "import nbgrad as nb, sys\n"
        "assert 'numba.cuda' not in sys.modules\n"
        "assert nb.cuda.is_available() is False and nb.cuda.device_count() == 0\n"
        "try:\n    nb.zeros(2, device='cuda')\nexcept RuntimeError as e:\n"
        "    assert 'CUDA is not available' in str(e)\nelse:\n    raise SystemExit(1)\n"
        "print('ok')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


def test_module_moves_its_parameters_in_place():
    nn, F = nb.nn, nb.nn.functional
    nb.manual_seed(0)
    cpu = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    nb.manual_seed(0)
    gpu = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    w = gpu[0].weight
    assert gpu.cuda() is gpu and gpu[0].weight is w  # same Parameter object, now on the GPU
    assert w.is_cuda and isinstance(w, nn.Parameter) and w.requires_grad and w.is_leaf
    assert repr(w).startswith("Parameter containing:\ntensor([[")
    x, t = RNG.standard_normal((5, 4)), np.array([0, 1, 1, 0, 1])
    lc = F.cross_entropy(cpu(nb.tensor(x, dtype=nb.float32)), nb.tensor(t))
    lg = F.cross_entropy(gpu(nb.tensor(x, dtype=nb.float32, device="cuda")), nb.tensor(t).cuda())
    lc.backward()
    lg.backward()
    np.testing.assert_allclose(lg.item(), lc.item(), rtol=1e-5)
    for pc, pg in zip(cpu.parameters(), gpu.parameters()):
        assert pg.grad.is_cuda
        np.testing.assert_allclose(pg.grad.cpu().numpy(), pc.grad.numpy(), rtol=1e-4, atol=1e-6)
    twin = copy.deepcopy(gpu)  # copies on the device, parameters stay CUDA parameters
    tw = twin[0].weight
    assert type(tw) is type(w) and tw.is_cuda and tw.grad.is_cuda and tw is not w
    np.testing.assert_array_equal(tw.detach().cpu().numpy(), w.detach().cpu().numpy())
    tw.detach().fill_(0.0)
    assert w.detach().cpu().numpy().any()
    gpu.cpu()
    assert type(w) is nn.Parameter and not w.is_cuda and w.grad.device.type == "cpu"
    np.testing.assert_array_equal(w.detach().numpy(), cpu[0].weight.detach().numpy())


def test_embedding_and_dropout_modules():
    """Modules built from composites, on the GPU: Embedding (indices checked on the host;
    padding_idx's row takes no gradient) and Dropout (the mask drawn on the host, as the
    CPU draws it, and copied)."""
    res = {}
    for dev in ("cpu", "cuda"):
        nb.manual_seed(0)
        e, d = nb.nn.Embedding(4, 3, padding_idx=1).to(dev), nb.nn.Dropout(0.5)
        y = d(e(nb.tensor([[0, 1], [1, 3]], device=dev)))
        (y * nb.arange(12.0, device=dev).reshape(2, 2, 3)).sum().backward()
        res[dev] = [y.detach().cpu().numpy(), e.weight.grad.cpu().numpy()]
    for c, g in zip(res["cpu"], res["cuda"]):
        np.testing.assert_allclose(g, c, rtol=1e-6)
    assert not res["cuda"][1][1].any()  # the padding row
    with pytest.raises(IndexError, match="index out of range in self"):
        nb.nn.Embedding(4, 3).cuda()(nb.tensor([4], device="cuda"))


def test_higher_order_on_the_gpu():
    """The Python sweep (create_graph, batched VJPs, forward mode) runs GPU graphs on the
    device (tests/test_cuda_higher.py checks it op by op); the compiled sweep still runs
    a graph through the GPU."""
    x = nb.randn(3, device="cuda", requires_grad=True)
    (g,) = nb.autograd.grad((x * x).sum(), x, create_graph=True)
    assert g.is_cuda and g.requires_grad
    (jac,) = nb.autograd.grad(x * x, x, nb.eye(3, device="cuda"), is_grads_batched=True)
    assert jac.is_cuda
    np.testing.assert_allclose(jac.cpu().numpy(), np.diag(2 * x.detach().cpu().numpy()))
    c = nb.randn(3, requires_grad=True)
    (g,) = nb.autograd.grad((c.cuda() * 2).cpu().sum(), c)
    np.testing.assert_allclose(g.numpy(), np.full(3, 2.0))


@pytest.mark.parametrize(
    "make",
    [
        lambda p: nb.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
        lambda p: nb.optim.SGD(p, lr=0.1, momentum=0.5, dampening=0.1, maximize=True),
        lambda p: nb.optim.Adam(p, lr=0.01, amsgrad=True, weight_decay=0.1),
        lambda p: nb.optim.AdamW(p, lr=0.01),
        lambda p: nb.optim.RMSprop(p, lr=0.01, momentum=0.9, centered=True, weight_decay=0.1),
    ],
)
def test_optimizers_step_on_the_device(make):
    """Three steps on CUDA parameters match the CPU's steps (the same element rules);
    state buffers live on the device, the step count on the host (as torch)."""
    w0, b0, x = RNG.standard_normal((3, 4)), RNG.standard_normal(3), RNG.standard_normal((5, 4))
    res = {}
    for dev in ("cpu", "cuda"):
        w = nb.tensor(w0, device=dev, requires_grad=True)
        b = nb.tensor(b0, device=dev, requires_grad=True)
        opt = make([w, b])
        for _ in range(3):
            opt.zero_grad()
            (nb.tensor(x, device=dev) @ w.T + b).sin().sum().backward()
            opt.step()
        res[dev] = [w.detach().cpu().numpy(), b.detach().cpu().numpy()]
        assert w.is_cuda == (dev == "cuda")
        bufs = [v for v in opt.state[w].values() if isinstance(v, nb.Tensor) and v.dim()]
        assert bufs and all(v.is_cuda == (dev == "cuda") for v in bufs)
    for c, g in zip(res["cpu"], res["cuda"]):
        np.testing.assert_allclose(g, c, rtol=1e-12, atol=1e-12)


def test_compile_runs_cuda_functions_eagerly():
    """nbgrad.compile replays CPU programs only: a function with a CUDA argument, a CUDA
    parameter or a move to the GPU warns once and runs eagerly (right values, on the
    device), where a replay used to reach a CPU kernel with device memory."""
    from nbgrad._compile import CompileError, CompileWarning

    w = nb.tensor(X, device="cuda", requires_grad=True)
    xc = nb.tensor(X + 1.0, requires_grad=True)

    def with_arg(x):
        return nb.autograd.grad((x.sin() * x).sum(), x)[0]

    def with_param(x):
        return (w * x).sum()

    def with_move(x):
        return (x.to("cuda") * 2.0).sum()

    for fn, arg in ((with_arg, w), (with_param, w.detach()), (with_move, xc)):
        cf = nb.compile(fn)
        with pytest.warns(CompileWarning, match="CUDA tensors"):
            first = cf(arg)
        for out in (first, cf(arg)):  # the trace, then the eager fallback
            assert out.is_cuda
            np.testing.assert_allclose(out.detach().cpu().numpy(), fn(arg).detach().cpu().numpy())
        with pytest.raises(CompileError, match="CUDA tensors"):
            nb.compile(fn, fallback="raise")(arg)


def test_parameter_over_a_cuda_tensor_is_a_cuda_parameter():
    w = nb.nn.Parameter(nb.ones(2, 3, device="cuda"))
    assert w.is_cuda and isinstance(w, nb.nn.Parameter) and w.requires_grad and w.is_leaf
    (w * 2).sum().backward()
    assert w.grad.is_cuda and w.grad.cpu().tolist() == [[2.0] * 3] * 2
    assert repr(w).startswith("Parameter containing:\ntensor([[")


def test_cuda_rows_follow_their_ops_schema():
    """A row's attributes follow its op's one schema on either device: CUDA permutes,
    expands and joins record what the CPU rows record; CUDA gathers (slices, flips,
    splits) are take rows holding their positions."""
    from nbgrad._optable import OPS
    from nbgrad.autograd.derivatives import Row
    from nbgrad.tape import R_CODE, TAPE

    def rows(fn, dev):
        x = nb.arange(24.0).reshape(2, 3, 4).to(dev).requires_grad_()
        y = nb.ones(2, 2, 4, device=dev, requires_grad=True)
        start = TAPE.n
        keep = fn(x, y)  # (rows stay on the tape while their outputs live)
        out = []
        for k in range(start, TAPE.n):
            name = OPS[int(TAPE.R[k, R_CODE])].name
            out.append((name, tuple(Row(k, name, 0, ()).attrs())))
        del keep
        return out

    same = [
        lambda x, y: x.permute(2, 0, 1),
        lambda x, y: x.transpose(0, 2),
        lambda x, y: x[0].t(),
        lambda x, y: x[:, :1].expand(2, 5, 4),
        lambda x, y: nb.cat([x, y], 1),
        lambda x, y: nb.stack([x, x], 2),
    ]
    for fn in same:
        cpu, gpu = rows(fn, "cpu"), rows(fn, "cuda")
        assert cpu[-1] == gpu[-1], (cpu, gpu)
    assert rows(same[0], "cuda")[-1] == ("permute", (0, (1, 12, 4)))  # (offset, strides)
    for fn, node, n in [
        (lambda x, y: x[1, :, 1:3], "SliceBackward0", 6),
        (lambda x, y: x.flip(2), "FlipBackward0", 24),
        (lambda x, y: x.split(1, 1), "SplitBackward0", 8),
    ]:
        name, a = rows(fn, "cuda")[-1]
        assert name == "take_" + node and a == (0, n)  # (pos_at, n)
