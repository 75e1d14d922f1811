"""nbgrad.compile with nbgrad.func's transforms inside (grad, grad_and_value, vjp, jacrev,
vmap of grad: compiled without falling back, equal to eager) and outside
(func.grad(compile(f)): gradients through a compiled function)."""

import numpy as np
import pytest

import nbgrad as nb
from nbgrad import func

R = np.random.default_rng(7)
XA = R.standard_normal(6)


def _f(x):
    return (x.sin() * x.exp()).sum() + (x * x).mean()


def _g(x):
    return x.tanh() * x.sum()


def _strict(fn):
    return nb.compile(fn, fallback="raise")


def _calls(cf, ref, *argsets):
    for args in argsets:
        for _ in range(2):  # the trace, then the program
            got, want = cf(*args), ref(*args)
            for a, b in zip(_flat(got), _flat(want)):
                np.testing.assert_array_equal(a.numpy(), b.detach().numpy())


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [u for v in x for u in _flat(v)]
    return [x]


def test_grad_and_grad_and_value_compile():
    x, x2 = nb.tensor(XA), nb.tensor(XA[::-1].copy())
    _calls(_strict(func.grad(_f)), func.grad(_f), (x,), (x2,))
    _calls(_strict(func.grad_and_value(_f)), func.grad_and_value(_f), (x,))

    def two(a, b):
        return (a * b.sin()).sum(), (a * 2).detach()

    gv = func.grad_and_value(two, argnums=(0, 1), has_aux=True)
    _calls(_strict(gv), gv, (x, x2))
    cf = _strict(func.grad(_f))
    cf(x)
    cf(x)
    assert all(type(p) is not str for p in cf.programs.values())


def test_input_that_requires_grad():
    x = nb.tensor(XA, requires_grad=True)
    cf = _strict(func.grad(_f))
    for _ in range(2):
        np.testing.assert_array_equal(cf(x).numpy(), func.grad(_f)(x).detach().numpy())
    assert x.grad is None  # func.grad leaves .grad alone, compiled too


def test_vjp_based_function_compiles():
    def h(v, ct):
        _, fn = func.vjp(_g, v)
        return fn(ct)[0]

    _calls(_strict(h), h, (nb.tensor(XA), nb.tensor(XA[::-1].copy())))


def test_jacrev_compiles_and_matches_torch():
    torch = pytest.importorskip("torch")
    x = nb.tensor(XA)
    cj = _strict(func.jacrev(_g))
    for _ in range(2):
        np.testing.assert_allclose(cj(x).numpy(), func.jacrev(_g)(x).numpy(), rtol=1e-13)
    ref = torch.func.jacrev(lambda v: v.tanh() * v.sum())(torch.tensor(XA))
    np.testing.assert_allclose(cj(x).numpy(), ref.numpy(), rtol=1e-12)


def _loss(a, b, x, y):
    return ((b @ nb.tanh(a @ x) - y) ** 2).sum()


def test_vmap_of_grad_compiles_per_sample_grads():
    torch = pytest.importorskip("torch")
    w1, w2 = R.standard_normal((8, 4)) / 2, R.standard_normal((1, 8)) / 3
    xb, yb = R.standard_normal((16, 4)), R.standard_normal((16, 1))
    per = func.vmap(func.grad(_loss, argnums=(0, 1)), in_dims=(None, None, 0, 0))
    args = [nb.tensor(a) for a in (w1, w2, xb, yb)]
    cp = _strict(per)
    for _ in range(3):
        for a, b in zip(cp(*args), per(*args)):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-13, atol=1e-15)

    def tloss(a, b, x, y):
        return ((b @ torch.tanh(a @ x) - y) ** 2).sum()

    ref = torch.func.vmap(torch.func.grad(tloss, argnums=(0, 1)), in_dims=(None, None, 0, 0))(
        *(torch.tensor(a) for a in (w1, w2, xb, yb))
    )
    for a, b in zip(cp(*args), ref):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)


def test_grad_of_a_compiled_function():
    x = nb.tensor(XA)
    cf = _strict(_f)
    gc = func.grad(cf)
    for _ in range(3):
        np.testing.assert_allclose(gc(x).numpy(), func.grad(_f)(x).numpy(), rtol=1e-13)
    cg = _strict(_g)
    xl = nb.tensor(XA, requires_grad=True)
    for _ in range(2):
        xl.grad = None
        (cg(xl) * nb.tensor(XA)).sum().backward()
        want = func.vjp(_g, nb.tensor(XA))[1](nb.tensor(XA))[0]
        np.testing.assert_allclose(xl.grad.numpy(), want.numpy(), rtol=1e-13)


def test_grad_of_a_compiled_function_of_two_tensors():
    """Differentiating w.r.t. one argument: the other's trace stand-in requires grad, but
    the compiled backward must not differentiate it (it raised on the second call)."""
    x, w = nb.tensor(XA), nb.tensor(XA[::-1].copy())
    cf = _strict(lambda v, u: (v.sin() * u).sum())
    for _ in range(3):
        np.testing.assert_allclose(func.grad(cf)(x, w).numpy(), XA[::-1] * np.cos(XA))
        np.testing.assert_allclose(func.grad(cf, argnums=1)(x, w).numpy(), np.sin(XA))


def test_nested_transforms_fall_back_with_eager_results():
    x = nb.tensor(XA)

    def gg(v):
        return func.grad(lambda u: func.grad(_f)(u).sum())(v)

    cg = nb.compile(gg, fallback="silent")
    for _ in range(2):
        np.testing.assert_allclose(cg(x).numpy(), gg(x).numpy(), rtol=1e-13)
