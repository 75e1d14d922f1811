"""Checks of an op's differentiable VJP (create_graph, batched cotangents, double backward).

`check_higher(fn, *args)`: float64 NumPy arrays among `args` become leaves that require
grad; anything else (index tensors, ints) is passed through. Expected values come from
the compiled first-order backward (itself checked against finite differences and PyTorch
in tests/opinfo/) and from central differences of it, never from the code under test.
"""

import numpy as np

import nbgrad


def _leaves(args):
    return [nbgrad.tensor(a, requires_grad=True) if _is_float(a) else a for a in args]


def _is_float(a):
    return isinstance(a, np.ndarray) and a.dtype == np.float64


def _grads(fn, arrays, v, **kw):
    """Compiled VJP of fn at `arrays` (the float args) with cotangent v, as NumPy."""
    ts = _leaves(arrays)
    out = fn(*ts)
    leaves = [t for t in ts if isinstance(t, nbgrad.Tensor) and t.requires_grad]
    gs = nbgrad.autograd.grad(out, leaves, nbgrad.tensor(v), allow_unused=True, **kw)
    return [np.zeros(t.shape) if g is None else g.detach().numpy() for t, g in zip(leaves, gs)]


def check_higher(fn, *args, batch=3, seed=0, eps=1e-6, rtol=1e-5, atol=1e-7):
    rng = np.random.default_rng(seed)
    ts = _leaves(args)
    out = fn(*ts)
    leaves = [t for t in ts if isinstance(t, nbgrad.Tensor) and t.requires_grad]
    assert leaves, "nothing to differentiate"
    vs = rng.standard_normal((batch,) + tuple(out.shape))
    ref = [_grads(fn, args, v) for v in vs]  # compiled sweep, one cotangent at a time

    # 1. create_graph=True gives the compiled sweep's gradient
    gs = nbgrad.autograd.grad(
        out, leaves, nbgrad.tensor(vs[0]), create_graph=True, allow_unused=True
    )
    for g, r in zip(gs, ref[0]):
        got = np.zeros_like(r) if g is None else g.detach().numpy()
        np.testing.assert_allclose(got, r, rtol=rtol, atol=atol)

    # 2. a batch of cotangents in one sweep equals one sweep per cotangent
    out2 = fn(*ts)
    gb = nbgrad.autograd.grad(
        out2, leaves, nbgrad.tensor(vs), is_grads_batched=True, allow_unused=True
    )
    for j, g in enumerate(gb):
        want = np.stack([r[j] for r in ref])
        got = np.zeros_like(want) if g is None else g.detach().numpy()
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)

    # 3. double backward: gradient of h = sum_j <grad_j, w_j> against central differences
    ws = [rng.standard_normal(t.shape) for t in leaves]
    diff = [g for g in gs if g is not None and g.requires_grad]
    if not diff:
        return  # first derivative constant in the inputs (e.g. linear ops in one operand)
    h = sum(
        (g * nbgrad.tensor(w)).sum() for g, w in zip(gs, ws) if g is not None and g.requires_grad
    )
    hh = nbgrad.autograd.grad(h, leaves, allow_unused=True)
    floats = [i for i, a in enumerate(args) if _is_float(a)]

    def h_of(arrs):
        gg = _grads(fn, arrs, vs[0])
        return sum(float((g * w).sum()) for g, w in zip(gg, ws))

    for j, i in enumerate(floats):
        num = np.zeros(args[i].shape)
        for e in range(args[i].size):
            hi, lo = list(args), list(args)
            hi[i] = args[i].copy()
            lo[i] = args[i].copy()
            hi[i].flat[e] += eps
            lo[i].flat[e] -= eps
            num.flat[e] = (h_of(hi) - h_of(lo)) / (2 * eps)
        got = np.zeros(args[i].shape) if hh[j] is None else hh[j].numpy()
        np.testing.assert_allclose(got, num, rtol=1e-4, atol=1e-5)
