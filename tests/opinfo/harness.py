"""The one finite-difference harness of the op table: first derivatives (every row of the
Jacobian from the compiled sweep, and all rows at once from the batched sweep), second
derivatives (create_graph) and forward mode, each against central differences in float64.

Every check takes `f(*leaves)`, a function of nbgrad tensors, and `arrays`, the float64
NumPy values of those leaves. Expected values come from differences of `f`'s forward
only, never from the derivative code under test.
"""

import numpy as np

import nbgrad
from nbgrad.autograd import forward_ad as fwAD

EPS = 1e-6


def _leaves(arrays):
    return [nbgrad.tensor(a, requires_grad=True) for a in arrays]


def _value(f, arrays):
    with nbgrad.no_grad():
        out = f(*[nbgrad.tensor(a) for a in arrays])
    return out.numpy().astype(np.float64)


def _central(fn, arrays, j, eps=EPS):
    """d fn / d arrays[j] by central differences: (size of arrays[j], *fn's shape)."""
    a = arrays[j]
    cols = []
    for k in range(a.size):
        hi, lo = a.copy(), a.copy()
        hi.reshape(-1)[k] += eps
        lo.reshape(-1)[k] -= eps
        f_hi = fn([hi if i == j else b for i, b in enumerate(arrays)])
        f_lo = fn([lo if i == j else b for i, b in enumerate(arrays)])
        cols.append((np.asarray(f_hi) - np.asarray(f_lo)) / (2 * eps))
    return np.array(cols)


def _grads(f, arrays, v, **kw):
    ts = _leaves(arrays)
    out = f(*ts)
    gs = nbgrad.autograd.grad(out, ts, nbgrad.tensor(v), allow_unused=True, **kw)
    return ts, gs


def _np(g, shape):
    return np.zeros(shape) if g is None else g.detach().numpy()


def check_grad(f, arrays, rtol=1e-5, atol=1e-6, eps=EPS, what=""):
    """The Jacobian from one VJP per output element (the compiled sweep) and from one
    batched sweep (is_grads_batched), against central differences."""
    ts = _leaves(arrays)
    out = f(*ts)
    assert out.requires_grad and out.grad_fn is not None, f"{what}: output has no graph"
    n = out.numel()
    eye = np.eye(n).reshape((n, *out.shape))
    rows = [np.zeros((n, a.size)) for a in arrays]
    for i in range(n):
        seed = nbgrad.tensor(eye[i])
        gs = nbgrad.autograd.grad(out, ts, seed, retain_graph=True, allow_unused=True)
        # the sweep reads a seed in place (no copy): no VJP may write its output's gradient
        assert np.array_equal(seed.numpy(), eye[i]), f"{what}: the VJP wrote its seed"
        for j, g in enumerate(gs):
            if g is None:
                continue
            assert g.shape == ts[j].shape and g.dtype is ts[j].dtype, what
            assert not g.requires_grad, what
            rows[j][i] = g.numpy().reshape(-1)
    if n:
        batched = nbgrad.autograd.grad(
            out, ts, nbgrad.tensor(eye), is_grads_batched=True, allow_unused=True
        )
        for j, g in enumerate(batched):
            got = _np(g, (n, *arrays[j].shape)).reshape(n, -1)
            np.testing.assert_allclose(
                got, rows[j], rtol=1e-10, atol=1e-12, err_msg=f"{what}: batched, input {j}"
            )
    for j in range(len(arrays) if n else 0):
        if not arrays[j].size:
            continue
        num = _central(lambda arrs: _value(f, arrs).reshape(-1), arrays, j, eps)
        np.testing.assert_allclose(
            rows[j], num.T, rtol=rtol, atol=atol, err_msg=f"{what}: d out / d input {j}"
        )


def check_gradgrad(f, arrays, seed=0, rtol=1e-4, atol=1e-5, eps=EPS, what=""):
    """create_graph gives the compiled sweep's gradient, and the gradient of
    h = sum_j <grad_j, w_j> matches central differences of h (first derivatives)."""
    rng = np.random.default_rng(seed)
    out_shape = _value(f, arrays).shape
    v = rng.standard_normal(out_shape)
    _, ref = _grads(f, arrays, v)
    ts, gs = _grads(f, arrays, v, create_graph=True)
    for j, (g, r) in enumerate(zip(gs, ref)):
        tight = arrays[j].dtype == np.float64  # float32: the two may round apart
        np.testing.assert_allclose(
            _np(g, arrays[j].shape),
            _np(r, arrays[j].shape),
            rtol=1e-10 if tight else 1e-6,
            atol=1e-12 if tight else 1e-7,
            err_msg=f"{what}: create_graph gradient {j}",
        )
    ws = [rng.standard_normal(a.shape) for a in arrays]
    terms = [(g * nbgrad.tensor(w)).sum() for g, w in zip(gs, ws) if g is not None]
    terms = [t for t in terms if t.requires_grad]
    # no graph: the first derivative claims not to depend on the inputs (a linear op)
    hh = nbgrad.autograd.grad(sum(terms), ts, allow_unused=True) if terms else [None] * len(ts)

    def h_of(arrs):
        _, gg = _grads(f, arrs, v)
        return sum(float((_np(g, w.shape) * w).sum()) for g, w in zip(gg, ws))

    for j, a in enumerate(arrays):
        num = _central(h_of, arrays, j, eps).reshape(a.shape)
        np.testing.assert_allclose(
            _np(hh[j], a.shape), num, rtol=rtol, atol=atol, err_msg=f"{what}: d2 input {j}"
        )


def check_jvp(f, arrays, seed=0, rtol=1e-5, atol=1e-6, eps=EPS, what=""):
    """Forward mode: the tangent of f's output for random input tangents, against the
    central difference of f along them; the primal is f's value."""
    rng = np.random.default_rng(seed)
    tangents = [rng.standard_normal(a.shape) for a in arrays]
    with fwAD.dual_level():
        duals = [
            fwAD.make_dual(nbgrad.tensor(a), nbgrad.tensor(t)) for a, t in zip(arrays, tangents)
        ]
        primal, tangent = fwAD.unpack_dual(f(*duals))
    want = _value(f, arrays)
    np.testing.assert_allclose(primal.numpy(), want, rtol=rtol, atol=atol, err_msg=what)
    assert tangent is not None, f"{what}: no tangent"
    hi = _value(f, [a + eps * t for a, t in zip(arrays, tangents)])
    lo = _value(f, [a - eps * t for a, t in zip(arrays, tangents)])
    np.testing.assert_allclose(
        tangent.numpy(), (hi - lo) / (2 * eps), rtol=rtol, atol=atol, err_msg=f"{what}: jvp"
    )


def run_mode(op, mode, run):
    """Run `run()`, the op's check in `mode`; where the table says the op does not support
    the mode, check the error it must raise instead, or skip with the documented reason."""
    import pytest

    u = op.unsupported.get(mode)
    if u is None:
        run()
        return
    if u.raises is None:
        pytest.skip(f"{op.name} does not support {mode}: {u.reason}")
    exc, match = u.raises
    with pytest.raises(exc, match=match):
        run()
