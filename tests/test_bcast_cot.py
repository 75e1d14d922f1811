"""Gradients through a `sum`/`mean` whose cotangent the sweep keeps as one value
(backends/cpu/rowio.py: BCAST), checked against PyTorch on the same programs: the value
passed on through add/sub, turned into `c * other` by mul, filled out where a kernel that
does not know the state reads or adds to it, and read out of the sweep (retain_grad,
autograd.grad of a non-leaf, a custom Function)."""

import numpy as np
import pytest

import nbgrad

pt = pytest.importorskip("torch")

TOL = {np.float32: dict(rtol=2e-5, atol=1e-6), np.float64: dict(rtol=1e-12, atol=1e-13)}
DTYPES = (np.float32, np.float64)


def _grads(mod, fn, arrays):
    xs = [mod.tensor(a, requires_grad=True) for a in arrays]
    fn(mod, *xs).backward()
    return [None if x.grad is None else x.grad.numpy() for x in xs]


def check(fn, *shapes, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    for g, want in zip(_grads(nbgrad, fn, arrays), _grads(pt, fn, arrays)):
        assert (g is None) == (want is None)
        if g is None:
            continue
        assert g.dtype == want.dtype
        np.testing.assert_allclose(g, want, **TOL[dtype])


# each program ends in a sum or mean over a non-leaf; comments say what meets the value
PROGRAMS = {
    "mul": lambda m, x, w: (x * 1.5 * w).sum(),  # c * other, into a leaf and a non-leaf
    "add-sub-chain": lambda m, x, w: (x * 2 + w - x * w).sum() * 3,  # passed on, then c * b
    "softmax": lambda m, x, w: (m.softmax(x * 1.0, 1) * w).sum(),
    "div-exp": lambda m, x, w: (x.exp() / (w * w + 1)).mean(),  # kernels that fill it out
    "x-times-x": lambda m, x, w: ((x + 0) * (x + 0)).sum(),  # both operands, one buffer
    "two-sums": lambda m, x, w: (x * w).sum() + (x * w).mean() * 2,  # one value added to
    "sum-and-elementwise": lambda m, x, w: (x * w).sum() + ((x * w) ** 2).sum(),
    "leaf-twice": lambda m, x, w: (x * w).sum() + (x * x).sum() + x.sum(),
    "broadcast-operand": lambda m, x, w: ((x * 1.0) - w[:1]).sum() * (w[1:] * 1.0).sum(),
    "expand": lambda m, x, w: (x[:1].expand(3, 5) * w).sum(),
    "in-place": lambda m, x, w: _in_place(x, w),
    # mul below a sum hands its operands c * other: softmax, reuse, a second contribution,
    # a mul of y by itself
    "log-softmax": lambda m, x, w: (m.log_softmax(x * 1.0, 1) * w).sum(),
    "softmax-dim0": lambda m, x, w: (m.softmax(x * 1.0, 0) * w).mean(),
    "softmax-used-twice": lambda m, x, w: _used_twice(m.softmax(x * 1.0, 1), w),
    "scaled-then-more": lambda m, x, w: _used_twice(x * 1.0, w),
    "scaled-then-exp": lambda m, x, w: ((x * 1.0).exp() * w).sum(),
    "y-times-y": lambda m, x, w: (_same(x * 1.0)).sum(),
}


def _used_twice(y, w):
    return (y * w).sum() + (y * w).mean() + (y * y).sum()


def _same(y):
    return y * y


def _in_place(x, w):
    y = x * 2
    y += w  # a non-leaf: rebinds in nbgrad, mutates in torch; same gradients
    y.mul_(w)
    return y.sum()


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_against_torch(name, dtype):
    check(PROGRAMS[name], (3, 5), (3, 5), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_large(dtype):
    # above the parallel thresholds of gmul/gscale (64K elements)
    check(PROGRAMS["add-sub-chain"], (256, 300), (256, 300), dtype=dtype)
    check(PROGRAMS["softmax"], (256, 300), (256, 300), dtype=dtype)


def _both(fn):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 4, 3))
    return fn(nbgrad, a, b), fn(pt, a, b)


def test_retain_graph_backward_twice():
    def fn(m, a, b):
        x, w = m.tensor(a, requires_grad=True), m.tensor(b)
        loss = (x * 3 * w).sum() + (x - w).mean()
        loss.backward(retain_graph=True)
        loss.backward()
        return x.grad.numpy()

    got, want = _both(fn)
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_create_graph_double_backward():
    def fn(m, a, b):
        x, w = m.tensor(a, requires_grad=True), m.tensor(b)
        (g,) = m.autograd.grad((x * x * w).sum(), x, create_graph=True)
        (g * w).sum().backward()
        return g.detach().numpy(), x.grad.numpy()

    (g1, h1), (g2, h2) = _both(fn)
    np.testing.assert_allclose(g1, g2, rtol=1e-13)
    np.testing.assert_allclose(h1, h2, rtol=1e-13)


def test_read_out_of_the_sweep():
    def fn(m, a, b):
        x = m.tensor(a, requires_grad=True)
        y = x * 2
        y.retain_grad()
        z = y * 1.0
        z.retain_grad()
        ((z * m.tensor(b)).sum() * 3).backward(retain_graph=True)  # z: c * b, read out
        r = [z.grad.numpy().copy(), y.grad.numpy().copy()]
        z.grad = y.grad = x.grad = None
        (gz,) = m.autograd.grad(z.sum() * 3 + y.mean(), z, retain_graph=True)
        (y.sum() * 5).backward()
        return r + [y.grad.numpy(), gz.numpy(), x.grad.numpy()]

    for got, want in zip(*_both(fn)):
        np.testing.assert_allclose(got, want, rtol=1e-13)


def test_custom_function_reads_it():
    def make(m):
        class Twice(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2 + 1  # not linear in g: a wrong (unfilled) g shows

        return Twice

    def fn(m, a, b):
        x = m.tensor(a, requires_grad=True)
        (make(m).apply(x * 1.0) * 1.0).sum().backward()
        return x.grad.numpy()

    got, want = _both(fn)
    np.testing.assert_allclose(got, want, rtol=1e-13)


PRODUCTS = {
    "einsum-bmm": lambda m, a, b: m.einsum("bij,bjk->bik", a, b).sum(),
    "einsum-permuted": lambda m, a, b: m.einsum("bij,bjk->bki", a, b).mean() * 3,
    "einsum-transposed": lambda m, a, b: m.einsum("bji,bjk->bik", a.transpose(1, 2), b).sum(),
    "matmul": lambda m, a, b: (a @ b).sum() + (a @ b).mean(),
    "mm-leaf-twice": lambda m, a, b: (a[0] @ b[0]).sum() + (a[1] @ a[1].T).sum() + a.sum(),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(PRODUCTS))
def test_products_against_torch(name, dtype):
    # the product's VJP from row / column sums when its cotangent is one value
    check(PRODUCTS[name], (2, 3, 4), (2, 4, 5), dtype=dtype)
