"""Shape ops and joins, gather/scatter/indexing, einsum."""

import numpy as np
import pytest
from test_ops_helpers import T, gradcheck, needs_torch, parity, same_error, torch

import nbgrad

rng = np.random.default_rng(3)
A = rng.standard_normal((3, 4))
B = rng.standard_normal((3, 2))
X3 = rng.standard_normal((2, 3, 4))

JOINS = [
    ("cat", lambda a, b: nbgrad.cat([a, b, a], 1), lambda a, b: torch.cat([a, b, a], 1)),
    ("cat0", lambda a, b: nbgrad.cat([a.T, b.T], 0), lambda a, b: torch.cat([a.T, b.T], 0)),
    ("stack", lambda a, b: nbgrad.stack([a, a * 2], 1), lambda a, b: torch.stack([a, a * 2], 1)),
    ("split", lambda a, b: nbgrad.split(a, 3, 1)[1], lambda a, b: torch.split(a, 3, 1)[1]),
    ("split_sizes", lambda a, b: a.split([1, 3], 1)[1], lambda a, b: a.split([1, 3], 1)[1]),
    ("chunk", lambda a, b: a.chunk(2, 0)[1], lambda a, b: a.chunk(2, 0)[1]),
    ("unbind", lambda a, b: a.unbind(1)[2], lambda a, b: a.unbind(1)[2]),
    ("narrow", lambda a, b: a.narrow(1, 1, 2), lambda a, b: a.narrow(1, 1, 2)),
    ("flip", lambda a, b: a.flip(0, 1), lambda a, b: a.flip(0, 1)),
    ("repeat", lambda a, b: b.repeat(2, 1, 3), lambda a, b: b.repeat(2, 1, 3)),
    ("tile", lambda a, b: b.tile((2,)), lambda a, b: b.tile((2,))),
    (
        "movedim",
        lambda a, b: a.unsqueeze(0).movedim(0, 2),
        lambda a, b: a.unsqueeze(0).movedim(0, 2),
    ),
    ("unsqueeze", lambda a, b: a.unsqueeze(-1), lambda a, b: a.unsqueeze(-1)),
    ("squeeze", lambda a, b: a[:1].squeeze(0), lambda a, b: a[:1].squeeze(0)),
    ("permute", lambda a, b: a.permute(1, 0), lambda a, b: a.permute(1, 0)),
]


@pytest.mark.parametrize("name,fn,ft", JOINS, ids=[j[0] for j in JOINS])
def test_join_gradcheck(name, fn, ft):
    gradcheck(fn, A, B)


@needs_torch
@pytest.mark.parametrize("name,fn,ft", JOINS, ids=[j[0] for j in JOINS])
def test_join_parity(name, fn, ft):
    parity(fn, ft, A, B, rtol=1e-12)


@needs_torch
def test_join_dtype_promotion_and_errors():
    y = nbgrad.cat([T(A.astype(np.float32), True), T(B, True)], 1)
    assert y.dtype is nbgrad.float64
    y.sum().backward()
    same_error(lambda a, b: nbgrad.cat([a, b], 0), lambda a, b: torch.cat([a, b], 0), A, B)
    same_error(lambda a, b: nbgrad.stack([a, b]), lambda a, b: torch.stack([a, b]), A, B)
    same_error(lambda a: a.narrow(1, 3, 2), lambda a: a.narrow(1, 3, 2), A)
    same_error(lambda a: a.split([1, 1], 1), lambda a: a.split([1, 1], 1), A)
    same_error(lambda a: a.flip(0, 0), lambda a: a.flip(0, 0), A)
    same_error(lambda a: a.repeat(2), lambda a: a.repeat(2), A)


IDX = np.array([[0, 2, 1, 0], [2, 2, 2, 2]])
INDEXING = [
    ("gather", lambda a: a.gather(0, T(IDX)), lambda a: a.gather(0, torch.tensor(IDX))),
    (
        "gather1",
        lambda a: a.gather(1, T(IDX[:, :2])),
        lambda a: a.gather(1, torch.tensor(IDX[:, :2])),
    ),
    (
        "index_select",
        lambda a: a.index_select(1, T(np.array([3, 0, 3]))),
        lambda a: a.index_select(1, torch.tensor([3, 0, 3])),
    ),
    (
        "int_index",
        lambda a: a[T(np.array([0, 2, 2, -1]))],
        lambda a: a[torch.tensor([0, 2, 2, -1])],
    ),
    ("list_index", lambda a: a[[0, 0], 1:], lambda a: a[[0, 0], 1:]),
    (
        "two_tensors",
        lambda a: a[T(np.array([0, 1, 1])), T(np.array([3, 3, 0]))],
        lambda a: a[torch.tensor([0, 1, 1]), torch.tensor([3, 3, 0])],
    ),
    ("bool_mask", lambda a: a[a > 0], lambda a: a[a > 0]),
    (
        "bool_rows",
        lambda a: a[T(np.array([True, False, True]))],
        lambda a: a[torch.tensor([True, False, True])],
    ),
    (
        "take_along",
        lambda a: nbgrad.take_along_dim(a, T(np.array([[0], [3], [3]])), 1),
        lambda a: torch.take_along_dim(a, torch.tensor([[0], [3], [3]]), 1),
    ),
    ("masked_select", lambda a: a.masked_select(a > 0.1), lambda a: a.masked_select(a > 0.1)),
]


@pytest.mark.parametrize("name,fn,ft", INDEXING, ids=[j[0] for j in INDEXING])
def test_indexing_gradcheck(name, fn, ft):
    gradcheck(fn, A)


@needs_torch
@pytest.mark.parametrize("name,fn,ft", INDEXING, ids=[j[0] for j in INDEXING])
def test_indexing_parity(name, fn, ft):
    parity(fn, ft, A, rtol=1e-12)


def test_duplicate_indices_accumulate():
    x = T(A, True)
    x[T(np.array([1, 1, 1]))].sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[1], 3.0)
    np.testing.assert_allclose(x.grad.numpy()[[0, 2]], 0.0)


def test_scatter_index_add_gradcheck():
    src = rng.standard_normal((2, 4))
    gradcheck(lambda a, s: a.scatter_add(0, T(IDX), s), A, src)
    gradcheck(
        lambda a, s: a.index_add(1, T(np.array([0, 3, 3])), s, alpha=2.0),
        A,
        rng.standard_normal((3, 3)),
    )
    gradcheck(
        lambda a, v: a.index_put((T(np.array([0, 2])),), v, accumulate=True),
        A,
        rng.standard_normal(4),
    )


@needs_torch
def test_scatter_index_add_parity():
    src = rng.standard_normal((2, 4))
    parity(
        lambda a, s: a.scatter_add(0, T(IDX), s),
        lambda a, s: a.scatter_add(0, torch.tensor(IDX), s),
        A,
        src,
        rtol=1e-12,
    )
    parity(
        lambda a, s: a.index_add(1, T(np.array([0, 3, 3])), s, alpha=2.0),
        lambda a, s: a.index_add(1, torch.tensor([0, 3, 3]), s, alpha=2.0),
        A,
        rng.standard_normal((3, 3)),
        rtol=1e-12,
    )


def test_setitem_advanced():
    x = T(A, True) * 1.0
    v = T(np.ones(4), True)
    x[T(np.array([0, 2]))] = v * 3
    assert x.grad_fn.name() == "IndexPutBackward0"
    x.sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), 6.0)
    y = T(A.copy())
    y[y > 0] = 0.0
    assert (y.numpy() <= 0).all()


@needs_torch
def test_index_put_duplicates_as_torch():
    """Without accumulate, duplicate indices: the last write wins and, as in PyTorch, every
    written value gets the cotangent at its destination (PyTorch calls the forward
    undefined; this is what its CPU kernel and its backward formula do)."""
    idx = np.array([0, 2, 0])
    parity(
        lambda x, v: x.index_put((T(idx),), v),
        lambda x, v: x.index_put((torch.tensor(idx),), v),
        rng.standard_normal(4),
        rng.standard_normal(3),
        rtol=1e-12,
    )

    def setitem(mod, x, v):
        y = x * 1.0
        y[(T if mod is nbgrad else torch.tensor)(np.array([1, 2, 1]))] = v
        return y

    parity(
        lambda x, v: setitem(nbgrad, x, v),
        lambda x, v: setitem(torch, x, v),
        A,
        rng.standard_normal(4),  # one row broadcast to the three writes
        rtol=1e-12,
    )


@needs_torch
def test_indexing_errors():
    same_error(lambda a: a[T(np.array([0, 3]))], lambda a: a[torch.tensor([0, 3])], A)
    same_error(lambda a: a[T(np.array([True, False]))], lambda a: a[torch.tensor([True, False])], A)
    same_error(
        lambda a: a.gather(0, T(np.array([[3]]))), lambda a: a.gather(0, torch.tensor([[3]])), A
    )
    same_error(lambda a: a.gather(0, T(np.array([0]))), lambda a: a.gather(0, torch.tensor([0])), A)
    same_error(
        lambda a: a.index_select(0, T(np.array([5]))),
        lambda a: a.index_select(0, torch.tensor([5])),
        A,
    )
    with pytest.raises(IndexError):
        T(A)[T(np.array([0.5]))]


EINSUM = [
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ibj,kjb->bki", [(3, 2, 4), (5, 4, 2)]),
    ("ij,jk", [(3, 4), (4, 2)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("ij->", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(3,), (3,)]),
    ("ij,kj->i", [(3, 4), (2, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 2)]),
    ("b...,b->...", [(2, 3, 4), (2,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("iij,jk->ik", [(3, 3, 2), (2, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    # size-1 dims broadcast, also on an operand with a repeated letter
    ("ii,i->i", [(1, 1), (3,)]),
    ("bii,bi->bi", [(1, 3, 3), (2, 3)]),
    ("iij,ij->j", [(1, 1, 2), (3, 2)]),
    ("bij,bjk->bik", [(2, 3, 0), (2, 0, 4)]),  # empty contraction: zeros
]


@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e[0] for e in EINSUM])
def test_einsum_gradcheck(eq, shapes):
    args = [rng.standard_normal(s) for s in shapes]
    gradcheck(lambda *ts: nbgrad.einsum(eq, *ts), *args)


@needs_torch
@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e[0] for e in EINSUM])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_einsum_parity(eq, shapes, dtype):
    args = [rng.standard_normal(s).astype(dtype) for s in shapes]
    tol = 1e-5 if dtype == np.float32 else 1e-12
    parity(
        lambda *ts: nbgrad.einsum(eq, *ts),
        lambda *ts: torch.einsum(eq, *ts),
        *args,
        rtol=tol,
        atol=tol,
    )


@needs_torch
def test_einsum_errors():
    same_error(
        lambda a, b: nbgrad.einsum("ij,jk->ik", a, b),
        lambda a, b: torch.einsum("ij,jk->ik", a, b),
        A,
        B,
    )
    same_error(lambda a: nbgrad.einsum("ijk->i", a), lambda a: torch.einsum("ijk->i", a), A)
    same_error(lambda a: nbgrad.einsum("ij,jk->ik", a), lambda a: torch.einsum("ij,jk->ik", a), A)
    same_error(lambda a: nbgrad.einsum("ij->iz", a), lambda a: torch.einsum("ij->iz", a), A)
    # a repeated letter takes a diagonal: its sizes must match (no broadcasting within one
    # operand)
    for eq, shapes in (("ii->i", [(1, 3)]), ("iji,j->i", [(3, 2, 1), (2,)])):
        args = [rng.standard_normal(s) for s in shapes]
        same_error(
            lambda *a, eq=eq: nbgrad.einsum(eq, *a), lambda *a, eq=eq: torch.einsum(eq, *a), *args
        )
