"""Higher-order gradients beyond single ops: a float32 -> float64 cast, every op having a
differentiable VJP, backward(create_graph=True), and freed graphs. Each op's create_graph,
batched and double backward are checked by the op table (tests/opinfo/test_gradgrad.py,
test_grad.py)."""

import numpy as np
import pytest

import nbgrad

rng = np.random.default_rng(0)
X = rng.uniform(-1, 1, (3, 4))


def test_dtype_cast_double_backward():
    """d2/dx2 sum((x as float64)^3) = 6x, through the float32 -> float64 cast row."""
    x32 = rng.uniform(-1, 1, 5).astype(np.float32)
    x = nbgrad.tensor(x32, requires_grad=True)
    (g,) = nbgrad.autograd.grad((x.to(nbgrad.float64) ** 3).sum(), x, create_graph=True)
    assert g.dtype == nbgrad.float32
    np.testing.assert_allclose(g.detach().numpy(), 3 * x32.astype(np.float64) ** 2, rtol=1e-6)
    (h,) = nbgrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6 * x32.astype(np.float64), rtol=1e-6)


def test_every_op_has_a_differentiable_vjp():
    """create_graph, batched VJPs and forward mode need a differentiable VJP for each op of
    the op table (their behaviour is checked per op in tests/opinfo/)."""
    from nbgrad._optable import OPS
    from nbgrad.autograd.graph import _ensure_loaded

    _ensure_loaded()
    from nbgrad.autograd.derivatives import DVJP

    # custom: the user's backward; device moves: the Python sweep refuses GPU graphs
    # (test_cuda.py::test_higher_order_refused)
    skip = ("custom", "to_cuda", "to_cpu")
    missing = [o.name for o in OPS if o.name not in skip and o.name not in DVJP]
    assert not missing, missing


def test_pure_python_subpackages_hold_no_compiled_code():
    """Editing nbgrad/autograd, nn or func must not need recompiled kernels (_cache.py
    leaves them out of the cache key), so they may not define Numba code."""
    from pathlib import Path

    from nbgrad import _cache

    root = Path(nbgrad.__file__).parent
    for sub in _cache.PURE_PYTHON:
        top = root / sub
        for p in [top] if top.suffix == ".py" else top.rglob("*.py"):
            text = p.read_text()
            assert "numba" not in text and "njit" not in text, p


def test_backward_create_graph_leaves_a_differentiable_grad():
    """x.grad from backward(create_graph=True) has a graph: d/dx sum(d/dx sum x^3) = 6x."""
    x = nbgrad.tensor(X, requires_grad=True)
    (x**3).sum().backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.grad_fn is not None
    np.testing.assert_allclose(x.grad.detach().numpy(), 3 * X**2)
    g = x.grad
    x.grad = None
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * X)


def test_double_backward_after_freeing_raises_torch_error():
    x = nbgrad.tensor(X, requires_grad=True)
    y = nbgrad.sin(x).sum()
    nbgrad.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        nbgrad.autograd.grad(y, x, create_graph=True)
