"""nbgrad.compile of the ops that read more than their row (issue 7): einsum (its
equation), losses with probability targets or weights (read by address), and indexing by
integer tensor arguments (positions remade at each replay). Each program is compared with
eager execution bit for bit (values and gradients, at the trace, at the replay and with
new argument values), and with PyTorch where it is importable."""

import numpy as np
import pytest
from replay import _np, check_replay

import nbgrad as torch
import nbgrad.nn.functional as F
from nbgrad._compile import CompileWarning

_embedding = F.embedding  # what nn.Embedding calls

try:
    import torch as pt
except ImportError:  # pragma: no cover
    pt = None


def _check(f, make, seeds=(0, 1)):
    """f compiled matches f eagerly: the trace, the replay, then new arguments (seeds)."""
    cf = check_replay(f, make, seeds)
    assert not isinstance(next(iter(cf.programs.values())), str)
    return cf
    return cf


def _torch_check(f, args):
    """f(nbgrad, *args) against f(torch, *args) (the same code: nbgrad's API is
    PyTorch's), values and gradients."""
    if pt is None:
        return
    ours = f(torch, *args)
    theirs = f(pt, *[pt.tensor(a.detach().numpy(), requires_grad=a.requires_grad) for a in args])
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


def _grads(fn):
    """f(ns, *xs) -> (fn(ns, *xs), its gradients with respect to the first two xs... all)"""

    def f(ns, *xs):
        loss = fn(ns, *xs)
        wrt = [a for a in xs if a.requires_grad]
        return (loss, *ns.autograd.grad(loss, wrt))

    return f


# -- einsum ------------------------------------------------------------------------------
def _einsums(ns, a, b, c, d):
    """BLAS rows (operands and result in GEMM layout, gathered, scattered back, a
    contraction to a scalar, one under a sum: its VJP's no-GEMM path), generic rows (a
    diagonal, one operand), three operands (contracted pairwise) and a size-1 dim
    broadcast. a (3, 4), b (4, 5), c (2, 3, 4),
    d (3, 3); ns: nbgrad or torch."""
    e = ns.einsum
    return (
        e("ij,jk->ik", a, b).sin().sum()
        + e("bij,bjk->bik", c, b[:, :3].reshape(1, 4, 3).expand(2, 4, 3)).sum()
        + e("ij,jk->ki", a, b)[1].sum() * 0.5
        + e("bij,bkj->bik", c, c).tanh().sum()
        + e("ij,ij->", a, a)
        + (e("ii->i", d) * e("ij->j", d)).sum()
        + e("ij,jk,kl->il", d, a, b).pow(2).mean()
        + e("bij,xj->bi", c, a[:1]).sum()
    )


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_einsum_matches_eager(dtype):
    shapes = [(3, 4), (4, 5), (2, 3, 4), (3, 3)]

    def make(seed):
        r = np.random.default_rng(seed)
        return [torch.tensor(r.standard_normal(s), dtype=dtype, requires_grad=True) for s in shapes]

    f = _grads(_einsums)
    _check(lambda *xs: f(torch, *xs), make)
    if dtype is torch.float64:
        _torch_check(f, make(2))


# -- losses reading targets and weights by address ----------------------------------------
def _prob_losses(ns, x, x3, p, p3, w, wb, pwb):
    """cross_entropy with probability targets (computed, an argument; class weights, label
    smoothing, reductions, an extra dim) and weighted binary losses: x (6, 4), x3 (2, 4, 3)
    logits, p / p3 probabilities of their shapes, w (4,) class weights, wb (6, 4) and pwb
    (4,) BCE weights (pwb broadcast over rows); ns: nbgrad or torch."""
    F = ns.nn.functional
    q = F.softmax(x * 0.5, 1)
    return (
        F.cross_entropy(x, p)
        + F.cross_entropy(x, q, weight=w, reduction="sum") * 0.1
        + F.cross_entropy(x3, p3, label_smoothing=0.2)
        + F.cross_entropy(x3, p3, weight=w, reduction="none").sum()
        + F.binary_cross_entropy(ns.sigmoid(x), p, weight=wb)
        + F.binary_cross_entropy_with_logits(x, p, weight=pwb, pos_weight=pwb, reduction="sum")
    )


@pytest.mark.parametrize("dtype, mode", [(torch.float64, "grad"), (torch.float32, "bwd")])
def test_prob_and_weighted_losses_match_eager(dtype, mode):
    rng = np.random.default_rng(5)
    x = torch.tensor(rng.standard_normal((6, 4)), dtype=dtype, requires_grad=True)
    x3 = torch.tensor(rng.standard_normal((2, 4, 3)), dtype=dtype, requires_grad=True)

    def make(seed):
        r = np.random.default_rng(seed)
        p = r.uniform(0.05, 1, (6, 4))
        p3 = r.uniform(0.05, 1, (2, 4, 3))
        out = [p / p.sum(1, keepdims=True), p3 / p3.sum(1, keepdims=True)]
        out += [r.uniform(0.5, 2, 4), r.uniform(0.5, 2, (6, 4)), r.uniform(0.5, 2, 4)]
        return [x, x3] + [torch.tensor(a, dtype=dtype) for a in out]

    def f(x, x3, *rest):
        x.grad = x3.grad = None
        loss = _prob_losses(torch, x, x3, *rest)
        if mode == "grad":
            return (loss, *torch.autograd.grad(loss, (x, x3)))
        loss.backward()
        return loss, x.grad, x3.grad

    _check(f, make)
    if mode == "grad":
        _torch_check(_grads(_prob_losses), make(2))


def test_captured_loss_weight_is_read_at_each_call():
    """A captured pos_weight is read at each call; if it dies, the function re-traces."""
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    t = torch.tensor(rng.uniform(0, 1, (3, 4)))
    pw = torch.tensor(rng.uniform(0.5, 2, 4))

    def f(x, t):
        loss = F.binary_cross_entropy_with_logits(x, t, pos_weight=pw)
        return (loss, *torch.autograd.grad(loss, x))

    cf = _check(f, lambda s: (x, t))
    with torch.no_grad():
        pw.mul_(3.0)
    for got, exp in zip(_np(cf(x, t)), _np(f(x, t))):
        np.testing.assert_array_equal(got, exp)


# -- indexing by integer tensor arguments --------------------------------------------------
def _indexing(w, x, v, i, j, k, m):
    """w (5, 3) rows picked by i (4,) (w[i]) and k (F.embedding), x (3, 5) gathered along 1
    by j (3, 2) (gather, take_along_dim, scatter_add), rows of x picked by k (2,) (index_select),
    v (2, 5) added there (index_add, index_put) or put there (out of place), and x[m] for a boolean
    mask m (3, 5). (An index computed inside the function, even `k.expand(...)`, is a new
    array: not compiled.)"""
    y = x * 1.0
    y[k] = v
    return (
        (w[i] * w[i].sin()).sum()
        + w[[0, 2, 0]].sum()  # a constant index
        + _embedding(k, w).tanh().sum()  # k: embedding refuses negative indices, as PyTorch
        + x.gather(1, j).pow(2).sum()
        + torch.take_along_dim(x, j, 1).sum() * 0.5
        + x.index_select(0, k).exp().sum()
        + x.scatter_add(1, j, x[:, 1:3].exp()).tanh().sum()
        + x.index_add(0, k, v, alpha=2.0).sin().sum()
        + x.index_put((k,), v * v, accumulate=True).tanh().sum()
        + y.cos().sum()
        + (x[m] ** 2).sum()
    )


# float32 only (the ops' code does not depend on the dtype but for index_add's scaled
# values, rounded to float32 first; one program less to compile)
@pytest.mark.parametrize("dtype", [torch.float32])
def test_indexing_by_arguments_matches_eager(dtype):
    rng = np.random.default_rng(9)
    w = torch.tensor(rng.standard_normal((5, 3)), dtype=dtype, requires_grad=True)
    x = torch.tensor(rng.standard_normal((3, 5)), dtype=dtype, requires_grad=True)
    v = torch.tensor(rng.standard_normal((2, 5)), dtype=dtype, requires_grad=True)
    mask0 = rng.random((3, 5)) < 0.5

    def make(seed, count_as_traced=True):
        r = np.random.default_rng(seed)
        m = r.permutation(mask0.ravel()).reshape(3, 5) if count_as_traced else ~mask0
        return (
            w,
            x,
            v,
            torch.from_numpy(r.integers(-5, 5, 4)),  # negative indices wrap, as in eager
            torch.from_numpy(r.integers(0, 5, (3, 2))),
            torch.from_numpy(r.permutation(3)[:2]),
            torch.from_numpy(m),
        )

    def f(w, x, v, *idx):
        loss = _indexing(w, x, v, *idx)
        return (loss, *torch.autograd.grad(loss, (w, x, v)))

    cf = _check(f, make, seeds=(0, 1, 2))
    # a mask selecting another number of elements: that call runs eagerly
    args = make(3, count_as_traced=False)
    for got, exp in zip(_np(cf(*args)), _np(f(*args))):
        np.testing.assert_array_equal(got, exp)
    # out of range: the eager op's check, before the program runs
    args = list(make(4))
    args[3] = torch.tensor([0, 5, 1, 2])
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 5"):
        cf(*args)
    args = list(make(4))
    args[4] = torch.tensor([[0, 1], [2, 7], [1, 1]])
    with pytest.raises(RuntimeError, match="index 7 is out of bounds for dimension 1"):
        cf(*args)
    for got, exp in zip(_np(cf(*make(5))), _np(f(*make(5)))):  # and it recovers
        np.testing.assert_array_equal(got, exp)
    assert len(cf.programs) == 1


@pytest.mark.parametrize(
    "body, why",
    [  # an index computed inside the function, positions by value (max over a dim)
        (lambda x, i, t: x[i + 0].sum(), "positions"),
        (lambda x, i, t: x.max(1)[0].sum(), "argmax"),
        # a loss weight computed inside (eager: it does not require grad, so no error)
        (lambda x, i, t: F.binary_cross_entropy(x, t, weight=t * 2.0), "loss weight"),
    ],
)
def test_what_cannot_be_remade_falls_back(body, why):
    """Arrays read by address that a replay cannot remake before the program runs: eager,
    with the reason, and the traced call's result is eager's."""
    x = torch.tensor(np.linspace(0.1, 0.9, 6).reshape(2, 3), requires_grad=True)
    i = torch.tensor([1, 0])
    t = torch.tensor(np.linspace(0.2, 0.7, 6).reshape(2, 3))

    def f(x, i, t):
        return torch.autograd.grad(body(x, i, t), x)[0]

    cf = torch.compile(f)
    with pytest.warns(CompileWarning, match=why):
        got = cf(x, i, t)
    np.testing.assert_array_equal(got.numpy(), f(x, i, t).numpy())


# the ops of the table whose compiled replay this file tests (test_compile.py's table check
# counts them as reached)
EXERCISED = {"einsum", "einsum_bmm", "cross_entropy_prob", "cross_entropy_prob_sum"}
EXERCISED |= {"take_" + n + "Backward0" for n in ("Index", "Gather", "IndexSelect", "TakeAlongDim")}
EXERCISED |= {"putadd_" + n + "Backward0" for n in ("ScatterAdd", "IndexAdd", "IndexPut")}
EXERCISED |= {"put_IndexPutBackward0"}


def test_new_ops_are_exercised():
    """The programs above reach every op this file is about (test_compile.py's table check
    leaves them to this file)."""
    from nbgrad._compile.program import has_replay
    from nbgrad._compile.trace import run_traced

    r = np.random.default_rng(0)
    t = lambda *s: torch.tensor(r.uniform(0.1, 0.9, s), requires_grad=True)  # noqa: E731
    ints = (torch.tensor([0, 1, 2, 4]), torch.tensor([[0, 1], [2, 3], [4, 0]]))
    ints += (torch.tensor([2, 0]), torch.tensor(r.random((3, 5)) < 0.5))
    p = torch.tensor(np.full((6, 4), 0.25))
    p3 = torch.tensor(np.full((2, 4, 3), 0.25))
    ws = [(4,), (6, 4), (4,)]
    cases = [
        (_einsums, (torch, t(3, 4), t(4, 5), t(2, 3, 4), t(3, 3))),
        (_prob_losses, (torch, t(6, 4), t(2, 4, 3), p, p3, *(t(*s).detach() for s in ws))),
        (_indexing, (t(5, 3), t(3, 5), t(2, 5), *ints)),
    ]
    seen = set()
    for fn, args in cases:
        _, tr = run_traced(fn, args, {})
        assert not isinstance(tr, str), tr
        seen.update(r.op for r in tr.rows)
    assert all(has_replay(n) for n in EXERCISED)
    assert EXERCISED <= seen, EXERCISED - seen
