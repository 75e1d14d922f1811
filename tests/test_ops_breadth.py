"""PyTorch's op list beyond the core: triangles and diagonals, sorting and searching,
running products and extrema, products, rearrangements. Values and gradients against
PyTorch, gradients against finite differences (float64), and PyTorch's errors."""

import warnings

import numpy as np
import pytest
from test_ops_helpers import T, gradcheck, needs_torch, parity, same_error, torch

import nbgrad

rng = np.random.default_rng(7)
X = rng.standard_normal((3, 4))
X3 = rng.standard_normal((2, 3, 4))
V = rng.standard_normal(5)


def _nb_and_torch(name):
    return getattr(nbgrad, name), getattr(torch, name)


# -- triangles and diagonals ------------------------------------------------------------
TRI_CASES = [
    ("tril", (X,), {}),
    ("tril", (X3,), {"diagonal": 1}),
    ("triu", (X,), {"diagonal": -1}),
    ("triu", (X3,), {}),
    ("diagonal", (X,), {"offset": 1}),
    ("diagonal", (X3,), {"offset": -1, "dim1": 2, "dim2": 0}),
    ("diag", (V,), {"diagonal": -2}),
    ("diag", (X,), {"diagonal": 1}),
    ("diag_embed", (X,), {}),
    ("diag_embed", (X,), {"offset": 1, "dim1": 0, "dim2": 2}),
    ("diag_embed", (X,), {"offset": -1, "dim1": -1, "dim2": 0}),
    ("trace", (X,), {}),
]


@needs_torch
@pytest.mark.parametrize("name,args,kw", TRI_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_triangles_parity(name, args, kw, dtype):
    fn, ft = _nb_and_torch(name)
    parity(lambda *a: fn(*a, **kw), lambda *a: ft(*a, **kw), *[a.astype(dtype) for a in args])


@pytest.mark.parametrize("name,args,kw", TRI_CASES)
def test_triangles_gradcheck(name, args, kw):
    fn = getattr(nbgrad, name)
    gradcheck(lambda *a: fn(*a, **kw), *args)


@needs_torch
def test_triangles_methods_ints_and_indices():
    x = np.arange(12).reshape(3, 4)
    for f in (
        lambda m, t: t.tril(1),
        lambda m, t: t.triu(),
        lambda m, t: t.diagonal(),
        lambda m, t: t.diag(),
        lambda m, t: t.trace(),
        lambda m, t: t.diag_embed(),
    ):
        a, b = f(nbgrad, T(x)), f(torch, torch.tensor(x))
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    b = np.array([[True, False], [True, True]])
    np.testing.assert_array_equal(nbgrad.triu(T(b)).numpy(), torch.triu(torch.tensor(b)).numpy())
    for args in [(3, 3), (4, 3, -1), (3, 5, 2), (0, 3), (3, 3, -5)]:
        for name in ("tril_indices", "triu_indices"):
            fn, ft = _nb_and_torch(name)
            np.testing.assert_array_equal(fn(*args).numpy(), ft(*args).numpy())
    assert nbgrad.tril_indices(3, 3, dtype=nbgrad.int32).dtype is nbgrad.int32


@needs_torch
def test_triangles_errors():
    same_error(nbgrad.tril, torch.tril, V)
    same_error(nbgrad.triu, torch.triu, V)
    same_error(nbgrad.trace, torch.trace, V)
    same_error(nbgrad.trace, torch.trace, X3)
    same_error(nbgrad.diag, torch.diag, X3)
    same_error(lambda x: nbgrad.diagonal(x, 0, 0, 0), lambda x: torch.diagonal(x, 0, 0, 0), X)
    same_error(lambda x: nbgrad.diagonal(x, 0, 0, 2), lambda x: torch.diagonal(x, 0, 0, 2), X)
    same_error(lambda x: nbgrad.diag_embed(x, 0, 1, 1), lambda x: torch.diag_embed(x, 0, 1, 1), V)
    same_error(lambda x: nbgrad.tril_indices(-1, 3), lambda x: torch.tril_indices(-1, 3), V)
    with pytest.raises(TypeError):
        nbgrad.tril(X)


# -- sorting and searching --------------------------------------------------------------
NODUP = rng.permutation(24).reshape(2, 3, 4) / 7.0 - 1.0  # distinct values: one order


SORT_CASES = [
    ("sort", {}),
    ("sort", {"dim": 0, "descending": True}),
    ("sort", {"dim": 1, "stable": True}),
    ("argsort", {"dim": 1, "descending": True}),
    ("topk", {"k": 2}),
    ("topk", {"k": 2, "dim": 1, "largest": False}),
    ("kthvalue", {"k": 2, "dim": 2}),
    ("kthvalue", {"k": 1, "dim": 0, "keepdim": True}),
    ("msort", {}),
]


@needs_torch
@pytest.mark.parametrize("name,kw", SORT_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sorting_parity(name, kw, dtype):
    fn, ft = _nb_and_torch(name)
    x = NODUP.astype(dtype)
    a, b = fn(T(x), **kw), ft(torch.tensor(x), **kw)
    if isinstance(b, tuple):
        assert type(a).__name__ == type(b).__name__
        np.testing.assert_array_equal(a.indices.numpy(), b.indices.numpy())
        a, b = a.values, b.values
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    if name != "argsort":
        parity(lambda t: fn(t, **kw), lambda t: ft(t, **kw), x)


@pytest.mark.parametrize("name,kw", [c for c in SORT_CASES if c[0] != "argsort"])
def test_sorting_gradcheck(name, kw):
    fn = getattr(nbgrad, name)
    gradcheck(lambda t: fn(t, **kw) if name == "msort" else fn(t, **kw)[0], NODUP)


@needs_torch
def test_sort_ties_nan_stable_and_ints():
    x = np.array([[2.0, 1.0, 2.0, np.nan, 1.0, -np.inf, np.nan]])
    for desc in (False, True):
        a = nbgrad.sort(T(x), descending=desc, stable=True)
        b = torch.sort(torch.tensor(x), descending=desc, stable=True)
        np.testing.assert_array_equal(a.indices.numpy(), b.indices.numpy())
        np.testing.assert_array_equal(a.values.numpy(), b.values.numpy())
    i = np.array([[3, 1, 2], [0, -5, 9]])
    a, b = T(i).sort(1), torch.tensor(i).sort(1)
    np.testing.assert_array_equal(a.values.numpy(), b.values.numpy())
    assert a.values.dtype is nbgrad.int64
    # gradient of a tie goes to the element whose index sort returned
    t = T(np.array([1.0, 1.0, 0.0]), True)
    t.sort(descending=True).values[0].backward()
    np.testing.assert_array_equal(t.grad.numpy(), [1.0, 0.0, 0.0])
    s = T(np.array(3.0), True)
    v, j = nbgrad.sort(s)
    assert v.shape == () and j.item() == 0 and v.requires_grad


@needs_torch
def test_sorting_errors():
    same_error(lambda x: nbgrad.topk(x, 5), lambda x: torch.topk(x, 5), X)
    same_error(lambda x: nbgrad.kthvalue(x, 0), lambda x: torch.kthvalue(x, 0), X)
    same_error(lambda x: nbgrad.kthvalue(x, 5), lambda x: torch.kthvalue(x, 5), X)
    same_error(lambda x: nbgrad.sort(x, 2), lambda x: torch.sort(x, 2), X)
    same_error(lambda x: nbgrad.topk(x, 1, 3), lambda x: torch.topk(x, 1, 3), X)
    with pytest.raises(TypeError):
        nbgrad.sort(X)


@needs_torch
def test_searchsorted_bucketize():
    seq = np.array([1.0, 2.0, 2.0, 3.0])
    vals = np.array([[0.5, 2.0], [2.5, 9.0]])
    for kw in ({}, {"right": True}, {"side": "right"}, {"out_int32": True}):
        a = nbgrad.searchsorted(T(seq), T(vals), **kw)
        b = torch.searchsorted(torch.tensor(seq), torch.tensor(vals), **kw)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        kb = {k: v for k, v in kw.items() if k != "side"}
        a = nbgrad.bucketize(T(vals), T(seq), **kb)
        b = torch.bucketize(torch.tensor(vals), torch.tensor(seq), **kb)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    rows = np.array([[1.0, 3.0, 5.0], [0.0, 2.0, 4.0]])
    a = nbgrad.searchsorted(T(rows), T(vals), right=True)
    b = torch.searchsorted(torch.tensor(rows), torch.tensor(vals), right=True)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    unsorted = np.array([3.0, 1.0, 2.0])
    order = np.array([1, 2, 0])
    a = nbgrad.searchsorted(T(unsorted), T(vals), sorter=T(order))
    b = torch.searchsorted(torch.tensor(unsorted), torch.tensor(vals), sorter=torch.tensor(order))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert nbgrad.bucketize(1.5, T(seq)).item() == torch.bucketize(1.5, torch.tensor(seq)).item()
    same_error(lambda s, v: nbgrad.bucketize(v, s), lambda s, v: torch.bucketize(v, s), rows, vals)
    same_error(nbgrad.searchsorted, torch.searchsorted, rows, V)
    same_error(
        lambda s, v: nbgrad.searchsorted(s, v, side="left", right=True),
        lambda s, v: torch.searchsorted(s, v, side="left", right=True),
        seq,
        vals,
    )


@needs_torch
def test_unique_and_histc():
    x = np.array([[3, 1, 3], [1, 1, 2]])
    both = {"return_inverse": True, "return_counts": True}
    for kw in ({}, {"return_inverse": True}, {"return_counts": True}, {**both, "dim": 0},
               {"dim": 1, "return_counts": True}):  # fmt: skip
        a, b = nbgrad.unique(T(x), **kw), torch.unique(torch.tensor(x), **kw)
        a, b = (a, b) if isinstance(b, tuple) else ((a,), (b,))
        assert len(a) == len(b)
        for p, q in zip(a, b):
            np.testing.assert_array_equal(p.numpy(), q.numpy())
            assert str(p.dtype).split(".")[-1] == str(q.dtype).split(".")[-1]
    u = nbgrad.unique(T(X, True))
    assert not u.requires_grad
    assert T(x).unique().tolist() == [1, 2, 3]
    d = rng.standard_normal(50)
    for args in ((), (7,), (5, -1.0, 1.0), (4, 0.0, 0.0)):
        np.testing.assert_array_equal(
            nbgrad.histc(T(d), *args).numpy(), torch.histc(torch.tensor(d), *args).numpy()
        )
    np.testing.assert_array_equal(
        T(np.array([1.0, 2, 3, 4])).histc(4, 1, 4).numpy(),
        torch.tensor([1.0, 2, 3, 4]).histc(4, 1, 4).numpy(),
    )
    same_error(lambda t: nbgrad.histc(t, 3), lambda t: torch.histc(t, 3), x)
    same_error(lambda t: nbgrad.histc(t, -1), lambda t: torch.histc(t, -1), X)
    same_error(lambda t: nbgrad.histc(t, 3, 2, 1), lambda t: torch.histc(t, 3, 2, 1), X)
    same_error(lambda t: nbgrad.unique(t, dim=3), lambda t: torch.unique(t, dim=3), X)


# -- running products and extrema -------------------------------------------------------
WITH_ZEROS = np.array(
    [[1.5, 0.0, -2.0, 3.0, 0.0, -1.0, 2.0], [-1.0, 2.0, 0.5, -0.5, 4.0, 1.0, 0.25]]
)


@needs_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cumulative_parity(dtype):
    for x in (WITH_ZEROS, X3):
        x = x.astype(dtype)
        for d in range(x.ndim):
            parity(lambda t, d=d: nbgrad.cumprod(t, d), lambda t, d=d: torch.cumprod(t, d), x)
            parity(lambda t, d=d: t.cummax(d).values, lambda t, d=d: t.cummax(d).values, x)
            parity(lambda t, d=d: nbgrad.cummin(t, d)[0], lambda t, d=d: torch.cummin(t, d)[0], x)
            for n in ("cummax", "cummin"):
                a, b = getattr(nbgrad, n)(T(x), d), getattr(torch, n)(torch.tensor(x), d)
                np.testing.assert_array_equal(a.indices.numpy(), b.indices.numpy())
                assert type(a).__name__ == type(b).__name__


def test_cumprod_gradcheck_with_zeros():
    for d in (0, 1):
        gradcheck(lambda t, d=d: nbgrad.cumprod(t, d), WITH_ZEROS)
    gradcheck(lambda t: t.cumprod(-1), X3)
    gradcheck(lambda t: nbgrad.cummax(t, 1).values, X)
    gradcheck(lambda t: nbgrad.cummin(t, 0).values, X)


def test_cumprod_double_backward_with_a_zero():
    # y = x0 * x1 * x2 at x1 = 0: d2y/dx0dx2 = x1 = 0, d2y/dx0dx1 = x2
    x = T(np.array([2.0, 0.0, 3.0]), True)
    (g,) = nbgrad.autograd.grad(nbgrad.cumprod(x, 0)[2], x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [0.0, 6.0, 0.0])
    (h,) = nbgrad.autograd.grad(g[0], x)
    np.testing.assert_allclose(h.numpy(), [0.0, 3.0, 0.0])


@needs_torch
def test_cumulative_ints_nan_and_errors():
    i = np.array([[1, 2, 3], [0, -2, 4]])
    a, b = nbgrad.cumprod(T(i), 1), torch.cumprod(torch.tensor(i), 1)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert a.dtype is nbgrad.int64
    assert nbgrad.cumprod(T(X), 0, dtype=nbgrad.float64).dtype is nbgrad.float64
    x = np.array([[1.0, 3.0, 3.0, np.nan, 2.0, np.nan]])
    for n in ("cummax", "cummin"):
        a, b = getattr(nbgrad, n)(T(x), 1), getattr(torch, n)(torch.tensor(x), 1)
        np.testing.assert_array_equal(a.indices.numpy(), b.indices.numpy())
        np.testing.assert_array_equal(a.values.numpy(), b.values.numpy())
    same_error(lambda t: nbgrad.cumprod(t, 2), lambda t: torch.cumprod(t, 2), X)
    same_error(lambda t: nbgrad.cummax(t, 2), lambda t: torch.cummax(t, 2), X)


# -- products ---------------------------------------------------------------------------
A23, B34, C24 = (
    rng.standard_normal((2, 3)),
    rng.standard_normal((3, 4)),
    rng.standard_normal((2, 4)),
)
BA, BB, BC = (
    rng.standard_normal((2, 2, 3)),
    rng.standard_normal((2, 3, 4)),
    rng.standard_normal((2, 2, 4)),
)
PROD_CASES = [
    ("addmm", (C24, A23, B34), {}),
    ("addmm", (C24[0], A23, B34), {"beta": 0.5, "alpha": -2.0}),
    ("baddbmm", (BC, BA, BB), {"beta": 2.0, "alpha": 0.5}),
    ("bmm", (BA, BB), {}),
    ("tensordot", (X3, rng.standard_normal((3, 4, 2))), {"dims": 2}),
    ("tensordot", (X3, rng.standard_normal((4, 5, 2))), {"dims": ([2, 0], [0, 2])}),
    ("kron", (A23, rng.standard_normal((2, 2))), {}),
    ("kron", (V[:3], A23), {}),
    ("cdist", (rng.standard_normal((4, 3)), rng.standard_normal((5, 3))), {}),
    ("cdist", (rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 5, 3))), {"p": 1.0}),
    ("cdist", (rng.standard_normal((4, 3)), rng.standard_normal((5, 3))), {"p": 3.0}),
    ("cdist", (rng.standard_normal((4, 3)), rng.standard_normal((5, 3))), {"p": float("inf")}),
    ("lerp", (A23, rng.standard_normal((2, 3)), rng.uniform(size=(2, 3))), {}),
    ("lerp", (A23, rng.standard_normal((2, 3)), 0.3), {}),
    ("lerp", (A23, rng.standard_normal((2, 3)), 0.8), {}),
]


@needs_torch
@pytest.mark.parametrize("name,args,kw", PROD_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_parity(name, args, kw, dtype):
    fn, ft = _nb_and_torch(name)
    args = [a.astype(dtype) if isinstance(a, np.ndarray) else a for a in args]
    tol = 1e-5 if dtype == np.float32 else 1e-10
    parity(lambda *a: fn(*a, **kw), lambda *a: ft(*a, **kw), *args, rtol=tol, atol=tol)


@pytest.mark.parametrize("name,args,kw", PROD_CASES)
def test_products_gradcheck(name, args, kw):
    fn = getattr(nbgrad, name)
    gradcheck(lambda *a: fn(*a, **kw), *args)


@needs_torch
def test_products_methods_beta_zero_and_errors():
    nan_in = np.full((2, 4), np.nan)
    out = nbgrad.addmm(T(nan_in), T(A23), T(B34), beta=0)
    np.testing.assert_allclose(out.numpy(), A23 @ B34)
    t = T(C24)
    np.testing.assert_allclose(t.addmm(T(A23), T(B34), alpha=2).numpy(), C24 + 2 * A23 @ B34)
    np.testing.assert_allclose(T(BA).bmm(T(BB)).numpy(), BA @ BB)
    np.testing.assert_allclose(T(A23).kron(T(A23)).numpy(), np.kron(A23, A23))
    np.testing.assert_allclose(T(A23).lerp(T(C24[:, :3]), 0.5).numpy(), (A23 + C24[:, :3]) / 2)
    # zero distance: PyTorch's gradient is 0 there, not NaN
    x = T(np.ones((2, 3)), True)
    nbgrad.cdist(x, T(np.ones((1, 3)))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))
    same_error(
        lambda c, b: nbgrad.addmm(c, b[0], b), lambda c, b: torch.addmm(c, b[0], b), C24, B34
    )
    same_error(lambda c, a, b: nbgrad.addmm(c[0, :3], a, b),
               lambda c, a, b: torch.addmm(c[0, :3], a, b), C24, A23, B34)  # fmt: skip
    for dims in (3, -1, ([1], [1])):
        same_error(lambda a, b, d=dims: nbgrad.tensordot(a, b, d),
                   lambda a, b, d=dims: torch.tensordot(a, b, d), A23, B34)  # fmt: skip
    same_error(nbgrad.cdist, torch.cdist, A23, B34)
    same_error(nbgrad.cdist, torch.cdist, V, V)
    same_error(
        lambda a, b: nbgrad.cdist(a, b, -1.0), lambda a, b: torch.cdist(a, b, -1.0), A23, A23
    )
    same_error(lambda a, b: nbgrad.lerp(a, b, 0.5), lambda a, b: torch.lerp(a, b, 0.5),
               A23.astype(np.float32), A23)  # fmt: skip


# -- rearrangements ---------------------------------------------------------------------
REARRANGE_CASES = [
    ("roll", (X,), {"shifts": 1}),
    ("roll", (X3,), {"shifts": (1, -2), "dims": (0, 2)}),
    ("roll", (X,), {"shifts": -5, "dims": 1}),
    ("repeat_interleave", (X,), {"repeats": 2}),
    ("repeat_interleave", (X3,), {"repeats": 3, "dim": 1}),
]


@needs_torch
@pytest.mark.parametrize("name,args,kw", REARRANGE_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rearrange_parity(name, args, kw, dtype):
    fn, ft = _nb_and_torch(name)
    parity(lambda *a: fn(*a, **kw), lambda *a: ft(*a, **kw), *[a.astype(dtype) for a in args])


@pytest.mark.parametrize("name,args,kw", REARRANGE_CASES)
def test_rearrange_gradcheck(name, args, kw):
    fn = getattr(nbgrad, name)
    gradcheck(lambda *a: fn(*a, **kw), *args)


@needs_torch
def test_repeat_interleave_tensor_repeats_and_index_form():
    r = np.array([1, 0, 2])
    parity(
        lambda t: nbgrad.repeat_interleave(t, T(r), dim=0),
        lambda t: torch.repeat_interleave(t, torch.tensor(r), dim=0),
        X,
    )
    gradcheck(lambda t: t.repeat_interleave(T(np.array([2, 1, 0, 3])), dim=1), X)
    np.testing.assert_array_equal(
        nbgrad.repeat_interleave(T(r)).numpy(), torch.repeat_interleave(torch.tensor(r)).numpy()
    )
    same_error(
        lambda t: nbgrad.repeat_interleave(t, T(np.array([1, 2])), 1),
        lambda t: torch.repeat_interleave(t, torch.tensor([1, 2]), 1),
        X,
    )
    same_error(
        lambda t: nbgrad.repeat_interleave(t, T(np.array([-1, 2, 1])), 0),
        lambda t: torch.repeat_interleave(t, torch.tensor([-1, 2, 1]), 0),
        X,
    )
    same_error(nbgrad.repeat_interleave, torch.repeat_interleave, np.array([[1, 2]]))
    same_error(lambda t: nbgrad.roll(t, (1, 2), (0,)), lambda t: torch.roll(t, (1, 2), (0,)), X)
    same_error(lambda t: nbgrad.roll(t, 1, 3), lambda t: torch.roll(t, 1, 3), X)


@needs_torch
def test_meshgrid_and_cartesian_prod():
    a, b, c = rng.standard_normal(2), rng.standard_normal(3), rng.standard_normal(4)
    for ix in ("ij", "xy"):
        gn = nbgrad.meshgrid(T(a), T(b), T(c), indexing=ix)
        gt = torch.meshgrid(torch.tensor(a), torch.tensor(b), torch.tensor(c), indexing=ix)
        for p, q in zip(gn, gt):
            np.testing.assert_array_equal(p.numpy(), q.numpy())

        def weighted(x, y, ix=ix):
            grids = nbgrad.meshgrid(x, y, indexing=ix)
            return sum((g * (i + 1)).sum() for i, g in enumerate(grids))

        gradcheck(weighted, a, b)
    with pytest.warns(UserWarning, match="indexing"):
        nbgrad.meshgrid(T(a), T(b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda x: nbgrad.meshgrid(x, indexing="foo"),
                   lambda x: torch.meshgrid(x, indexing="foo"), a)  # fmt: skip
    parity(nbgrad.cartesian_prod, torch.cartesian_prod, a, b)
    parity(nbgrad.cartesian_prod, torch.cartesian_prod, a, b, c)
    same_error(nbgrad.cartesian_prod, torch.cartesian_prod, X)


# -- CUDA (Numba's simulator when there is no GPU) ----------------------------------------
CUDA_CASES = {
    "tril": lambda t: nbgrad.tril(t),
    "diagonal": lambda t: nbgrad.diagonal(t, 1),
    "diag_embed": lambda t: nbgrad.diag_embed(t),
    "trace": lambda t: nbgrad.trace(t),
    "sort": lambda t: nbgrad.sort(t, 1, descending=True).values,
    "topk": lambda t: nbgrad.topk(t, 2).values,
    "cummax": lambda t: nbgrad.cummax(t, 1).values,
    "cumprod": lambda t: nbgrad.cumprod(t, 1),
    "roll": lambda t: nbgrad.roll(t, 1, 0),
    "repeat_interleave": lambda t: nbgrad.repeat_interleave(t, 2, 0),
    "kron": lambda t: nbgrad.kron(t, t),
    "cdist": lambda t: nbgrad.cdist(t, t * 2),
    "lerp": lambda t: nbgrad.lerp(t, t * 2, 0.3),
    "addmm": lambda t: nbgrad.addmm(t[:, :3], t, t.mT),
    "tensordot": lambda t: nbgrad.tensordot(t, t, 2),
}


@pytest.mark.parametrize("name", list(CUDA_CASES))
def test_composites_on_cuda(name):
    """The composites run on CUDA tensors (index computations on a host copy), with the
    CPU's values and gradients."""
    if not nbgrad.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    f = CUDA_CASES[name]
    x = T(X, True)
    xc = x.cuda()
    want, got = f(x), f(xc)
    assert got.is_cuda
    np.testing.assert_allclose(got.cpu().detach().numpy(), want.detach().numpy(), rtol=1e-12)
    (g,) = nbgrad.autograd.grad(got.sum(), xc)
    (h,) = nbgrad.autograd.grad(want.sum(), x)
    np.testing.assert_allclose(g.cpu().numpy(), h.numpy(), rtol=1e-12)


def test_compile_runs_value_dependent_indices_eagerly():
    """sort's order comes from the values: a compiled program must not replay it frozen."""
    w = T(np.array([1.0, 10.0, 100.0]))

    def step(x):
        loss = (nbgrad.sort(x).values * w).sum()
        loss.backward()
        return loss

    f = nbgrad.compile(step)
    for i, (v, order) in enumerate((([3.0, 1.0, 2.0], [1, 2, 0]), ([0.0, 5.0, -1.0], [2, 0, 1]))):
        x = T(np.array(v), True)
        if i == 0:  # said once, when the trace is rejected
            with pytest.warns(Warning, match="frozen"):
                loss = f(x)
        else:
            loss = f(x)
        want = np.zeros(3)
        want[order] = [1.0, 10.0, 100.0]
        np.testing.assert_array_equal(x.grad.numpy(), want)
        assert loss.item() == float(np.dot(np.array(v)[order], [1.0, 10.0, 100.0]))


@needs_torch
def test_bad_argument_types_as_torch():
    ints = np.ones((2, 2), np.int64)
    same_error(lambda t: nbgrad.roll(t, 1.5), lambda t: torch.roll(t, 1.5), X)
    same_error(lambda t: nbgrad.roll(t, 1, 0.5), lambda t: torch.roll(t, 1, 0.5), X)
    same_error(
        lambda t, r: nbgrad.repeat_interleave(t, r), lambda t, r: torch.repeat_interleave(t, r),
        V[:3], np.array([1.0, 2.0, 3.0]),
    )  # fmt: skip
    same_error(nbgrad.repeat_interleave, torch.repeat_interleave, np.array([1.0, 2.0]))
    same_error(nbgrad.cdist, torch.cdist, ints, ints)
    same_error(nbgrad.cdist, torch.cdist, A23, ints[:, :1].repeat(3, 1))
    same_error(lambda a, b: nbgrad.lerp(a, b, 0.5), lambda a, b: torch.lerp(a, b, 0.5), ints, ints)
    same_error(nbgrad.lerp, torch.lerp, ints, ints, ints)
