"""Higher-order gradients on CUDA tensors against the CPU backend: create_graph double
backward, batched cotangents, forward mode, autograd.functional and nbgrad.func, and a
CPU leaf moved to the GPU. Runs on a GPU when present, else on Numba's CUDA simulator
(tests/conftest.py), with tiny sizes. The CPU backend is the oracle (checked against
finite differences and PyTorch in tests/test_higher_order.py), and a few closed forms
check both."""

import numpy as np
import pytest

import nbgrad as nb
import nbgrad.nn.functional as F
from nbgrad.autograd import forward_ad as fwAD
from nbgrad.autograd import functional as AF

pytestmark = pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")

RNG = np.random.default_rng(11)
TOL = 1e-9


def _host(t):
    return t.detach().cpu().numpy() if t.is_cuda else t.detach().numpy()


def _same(gpu, cpu, tol=TOL):
    """A CUDA result equals the CPU one (tensors or tuples of them)."""
    if isinstance(cpu, (tuple, list)):
        assert len(gpu) == len(cpu)
        for a, b in zip(gpu, cpu):
            _same(a, b, tol)
        return
    assert gpu.is_cuda and not cpu.is_cuda
    assert tuple(gpu.shape) == tuple(cpu.shape)
    np.testing.assert_allclose(_host(gpu), _host(cpu), rtol=tol, atol=tol)


def _leaves(arrays, device):
    return [nb.tensor(a, device=device, requires_grad=True) for a in arrays]


def second_order(fn, *arrays, tol=TOL):
    """g = d sum(fn . w)/dx with create_graph, then d sum(g . v)/dx: CUDA equals CPU."""
    w = RNG.standard_normal(fn(*_leaves(arrays, "cpu")).shape)
    vs = [RNG.standard_normal(np.shape(a)) for a in arrays]
    res = {}
    for dev in ("cpu", "cuda"):
        xs = _leaves(arrays, dev)
        y = fn(*xs)
        gs = nb.autograd.grad(y, xs, nb.tensor(w, device=dev), create_graph=True)
        s = sum((g * nb.tensor(v, device=dev)).sum() for g, v in zip(gs, vs))
        hs = nb.autograd.grad(s, xs, allow_unused=True, materialize_grads=True)
        res[dev] = (y, gs, hs)
    for a, b in zip(res["cuda"], res["cpu"]):
        _same(a, b, tol)


def test_double_backward_sin_exp_closed_form():
    x0 = np.linspace(-1.0, 1.0, 5)
    x = nb.tensor(x0, device="cuda", requires_grad=True)
    (g,) = nb.autograd.grad((x.sin() * x.exp()).sum(), x, create_graph=True)
    assert g.is_cuda and g.requires_grad
    (h,) = nb.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(_host(g), np.exp(x0) * (np.sin(x0) + np.cos(x0)), rtol=1e-12)
    np.testing.assert_allclose(_host(h), 2 * np.exp(x0) * np.cos(x0), rtol=1e-12)
    # backward(create_graph=True) leaves a differentiable .grad on the device
    x.grad = None
    (x.sin() * x.exp()).sum().backward(create_graph=True)
    assert x.grad.is_cuda and x.grad.requires_grad
    (h2,) = nb.autograd.grad(x.grad.sum(), x)
    np.testing.assert_allclose(_host(h2), _host(h), rtol=1e-12)


X = RNG.standard_normal((2, 3))
Y = RNG.uniform(0.2, 1.0, (2, 3))
W = RNG.standard_normal((3, 4))

OPS = {
    "pointwise": lambda x, y: (x.tanh() * y + x.sigmoid() / y) ** 2,
    "broadcast": lambda x, y: x * y[0] - y.sum(0, keepdim=True).exp(),
    "reduce": lambda x, y: x.sum(1) * (y * x).mean(0)[:2] + x.sum() * x.mean(),
    "transpose": lambda x, y: (x.t() * y.transpose(0, 1)).permute(1, 0).sin(),
    "matmul": lambda x, y: (x @ y.t()).tanh() @ x,
    "softmax": lambda x, y: x.softmax(0) * y + F.log_softmax(x * y, -1) ** 2,
    "lines": lambda x, y: (
        x.logsumexp(1) + x.var(0)[:2] + y.std(1) + y.prod(1) + x.norm(dim=1) + x.amax(0)[:2]
    ),
    "cumsum": lambda x, y: x.cumsum(1) * y,
    "activations": lambda x, y: (
        F.elu(x) * F.softplus(y) + F.leaky_relu(x, 0.1) * x.clamp(-0.5, 0.5) * y
    ),
    "index": lambda x, y: x[:, 1:] * y[0, :2] + x[[1, 0, 1]].sum(0)[1:] * y[1, 1:],
    "joins": lambda x, y: (
        nb.cat([x * y, x.exp()], 0).sum(1) * nb.stack([x, y]).sum((0, 2)).repeat(2)
    ),
    "where": lambda x, y: nb.where(x > 0, x * y, y.exp() * x),
    "losses": lambda x, y: (
        F.mse_loss(x * y, y)
        + F.smooth_l1_loss(x, y * 0.2)
        + F.binary_cross_entropy_with_logits(x, y)
    ),
    "cross_entropy": lambda x, y: (
        F.cross_entropy(x * y, nb.tensor([2, 0], device=x.device), label_smoothing=0.1)
        + F.cross_entropy(x, y.softmax(1))
    ),
    "gathers": lambda x, y: (
        x.index_select(1, _i([2, 0])) * x.gather(1, _i([[1, 1], [0, 2]]))
        + x.take_along_dim(_i([[0, 2], [1, 1]]), 1) * x.masked_select(y > 0.5)[:1]
        + nb.zeros(2, 3, device=x.device, dtype=x.dtype).scatter_add(
            1, _i([[0, 1], [1, 1]]), y[:, :2]
        )[:, :2]
    ),
    "setitem": lambda x, y: _setitem(x, y),
    "views": lambda x, y: (
        (
            x.flip(1)[:, :2] * x.narrow(1, 1, 2) * x.unsqueeze(0).squeeze(0)[:, 1:]
            + nb.stack(x.unbind(0)).split(2, 1)[0] * x.max(1).values.reshape(2, 1)
            + x.amin(1, keepdim=True) * x.norm(p=3, dim=1, keepdim=True) * x.norm(p=float("inf"))
        )
        * y[:, 1:]
    ),
    "bmm": lambda x, y: (
        (x.reshape(2, 1, 3) @ (y.reshape(2, 3, 1) * x.reshape(2, 3, 1))).reshape(2)
        + (nb.stack([x, y]) @ x.t()).sum((0, 2))
    ),
    "losses2": lambda x, y: (
        F.huber_loss(x, y, delta=0.5)
        + F.l1_loss(x, y, reduction="sum")
        + F.binary_cross_entropy(y * 0.9, x.sigmoid())
        + F.hardtanh(x, -0.3, 0.3).sum()
        + F.nll_loss(F.log_softmax(x, 1), _i([2, 1]), weight=y[1].detach(), ignore_index=1)
        + F.cross_entropy(x, y.softmax(1), weight=y[0], reduction="sum")
    ),
}


def _i(v):
    return nb.tensor(v, device="cuda" if _i.cuda else "cpu")


def _setitem(x, y):
    _i.cuda = x.is_cuda
    z = x * 1.0
    z[0, 1:] = y[1, :2] * 2.0
    z[_i([1, 0]), _i([0, 0])] = y[0, :2]
    return z.index_put((_i([1, 1]),), y[0] * 3.0, accumulate=True) * x


@pytest.mark.parametrize("name", list(OPS))
def test_second_order(name):
    def fn(x, y):
        _i.cuda = x.is_cuda
        return OPS[name](x, y)

    second_order(fn, X, Y)


def test_mlp_hessian_vector_product():
    xb = RNG.standard_normal((4, 3))
    target = np.array([0, 2, 1, 2])
    w1, w2 = RNG.standard_normal((3, 5)) * 0.5, RNG.standard_normal((5, 3)) * 0.5
    v1, v2 = RNG.standard_normal(w1.shape), RNG.standard_normal(w2.shape)
    res = {}
    for dev in ("cpu", "cuda"):
        p1, p2 = _leaves((w1, w2), dev)
        logits = nb.tanh(nb.tensor(xb, device=dev) @ p1) @ p2
        loss = F.cross_entropy(logits, nb.tensor(target, device=dev))
        g1, g2 = nb.autograd.grad(loss, (p1, p2), create_graph=True)
        dot = (g1 * nb.tensor(v1, device=dev)).sum() + (g2 * nb.tensor(v2, device=dev)).sum()
        res[dev] = nb.autograd.grad(dot, (p1, p2))
    _same(res["cuda"], res["cpu"])


def test_grads_batched():
    res = {}
    for dev in ("cpu", "cuda"):
        (x,) = _leaves((X,), dev)
        y = (x.exp() * x) @ nb.tensor(W, device=dev)  # (2, 4)
        basis = nb.eye(8, device=dev).reshape(8, 2, 4)
        (jac,) = nb.autograd.grad(y, x, basis, is_grads_batched=True)
        res[dev] = jac
    assert tuple(res["cuda"].shape) == (8, 2, 3)
    _same(res["cuda"], res["cpu"])


def test_forward_mode_jvp():
    t = RNG.standard_normal(X.shape)
    res = {}
    for dev in ("cpu", "cuda"):
        with fwAD.dual_level():
            x = fwAD.make_dual(nb.tensor(X, device=dev), nb.tensor(t, device=dev))
            y = (x.sin() @ nb.tensor(W, device=dev)).softmax(-1).t()[1:] * x.sum()
            p, tan = fwAD.unpack_dual(y)
        assert p.is_cuda == (dev == "cuda")
        res[dev] = (p, tan)
    _same(res["cuda"], res["cpu"])
    with fwAD.dual_level(), pytest.raises(RuntimeError, match="different device"):
        fwAD.make_dual(nb.tensor(X, device="cuda"), nb.tensor(t))


def test_functional():
    def f(x):
        return (x.exp() * x).sum() + x.norm() * x[0, 1]

    def g(x):
        return (x.sin() @ x.t()).reshape(-1)

    res = {}
    for dev in ("cpu", "cuda"):
        x = nb.tensor(X, device=dev)
        v = nb.tensor(RNG.standard_normal(X.shape) if dev == "cpu" else res["v"], device=dev)
        if dev == "cpu":
            res["v"] = v.numpy()
        res[dev] = (
            AF.hessian(f, x),
            AF.jacobian(g, x, vectorize=True),
            AF.jacobian(g, x, vectorize=True, strategy="forward-mode"),
            AF.hvp(f, x, v)[1],
            AF.jvp(g, x, v)[1],
            AF.vjp(g, x, nb.ones(4, device=dev))[1],
        )
    _same(res["cuda"], res["cpu"])


def test_func():
    def f(x):
        return (x.tanh() * x).sum()

    res = {}
    for dev in ("cpu", "cuda"):
        x = nb.tensor(X, device=dev)
        res[dev] = (
            nb.func.grad(f)(x),
            nb.func.jacfwd(nb.sin)(x[0]),
            nb.func.hessian(f)(x[1]),
            nb.func.jvp(nb.tanh, (x,), (x * 2,))[1],
        )
    _same(res["cuda"], res["cpu"])


def test_mixed_device_leaf_gets_cpu_gradients():
    """A CPU leaf moved to the GPU: every order of gradient comes back on the CPU."""
    x0 = np.linspace(-1.0, 1.0, 4)
    c = nb.tensor(x0, requires_grad=True)
    y = (c.cuda().sin() * c.cuda().exp()).sum()
    (g,) = nb.autograd.grad(y, c, create_graph=True)
    assert not g.is_cuda and g.requires_grad
    (h,) = nb.autograd.grad(g.sum(), c)
    assert not h.is_cuda
    np.testing.assert_allclose(g.detach().numpy(), np.exp(x0) * (np.sin(x0) + np.cos(x0)))
    np.testing.assert_allclose(h.numpy(), 2 * np.exp(x0) * np.cos(x0))
    # float32 on the device, float64 leaf: the gradient comes back in the leaf's dtype
    (g32,) = nb.autograd.grad((c.to("cuda", nb.float32) ** 3).sum(), c, create_graph=True)
    assert g32.dtype == nb.float64 and not g32.is_cuda
    np.testing.assert_allclose(g32.detach().numpy(), 3 * x0**2, rtol=1e-6)
    # and a GPU result moved back: CPU graph, GPU rows in the middle
    (h3,) = nb.autograd.grad(((c.cuda() * 2).cpu() ** 3).sum(), c, create_graph=True)
    (h4,) = nb.autograd.grad(h3.sum(), c)
    np.testing.assert_allclose(h4.numpy(), 48 * x0)


def test_unused_input_materialized_on_its_device():
    x, u = (nb.ones(2, device="cuda", requires_grad=True) for _ in range(2))
    for cg in (False, True):
        _, gu = nb.autograd.grad((x * 2).sum(), (x, u), create_graph=cg, materialize_grads=True)
        assert gu.is_cuda and not gu.cpu().numpy().any()


def test_custom_function_double_backward():
    class Cube(nb.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x * x

    x0 = np.array([1.0, 2.0, -1.0])
    x = nb.tensor(x0, device="cuda", requires_grad=True)
    (g,) = nb.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (h,) = nb.autograd.grad(g.sum(), x)
    assert h.is_cuda
    np.testing.assert_allclose(_host(h), 6 * x0)
    (jac,) = nb.autograd.grad(Cube.apply(x), x, nb.eye(3, device="cuda"), is_grads_batched=True)
    np.testing.assert_allclose(_host(jac), np.diag(3 * x0**2))
