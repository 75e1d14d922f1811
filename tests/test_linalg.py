"""nbgrad.linalg: values and gradients against torch.linalg, gradients against finite
differences (float64, also second order), and PyTorch's errors."""

import numpy as np
import pytest
from test_ops_helpers import T, gradcheck, needs_torch, parity, same_error, torch

import nbgrad
from nbgrad import linalg as LA

rng = np.random.default_rng(11)
A = rng.standard_normal((3, 3)) + 3 * np.eye(3)
AB = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
TALL = rng.standard_normal((2, 4, 3))
WIDE = rng.standard_normal((3, 5))
SING = np.array([[1.0, 2.0], [2.0, 4.0]])


def sym(a):  # a symmetric matrix with distinct eigenvalues that depends on all of `a`
    return (a + a.transpose(-2, -1)) * 0.5


def spd(a):  # a symmetric positive-definite matrix (of nbgrad's or torch's tensors)
    lib = nbgrad if isinstance(a, nbgrad.Tensor) else torch
    return a @ a.transpose(-2, -1) + 3 * lib.eye(a.shape[-1], dtype=a.dtype)


def _tnb(name):
    return getattr(LA, name), getattr(torch.linalg, name)


# -- values and gradients against torch --------------------------------------------------
# Beyond the op table (tests/opinfo/table.py: linalg.inv and linalg.det on single and batched
# matrices, linalg.solve with left=False, in every mode): batched inputs of the other
# functions, the factorizations' other outputs and the norms' other orders.
CASES = (
    [
        ("slogdet", lambda L, a: L.slogdet(a).logabsdet, (AB,)),
        ("solve", lambda L, a, b: L.solve(a, b), (AB, rng.standard_normal((2, 3, 2)))),
        ("solve vector", lambda L, a, b: L.solve(a, b), (AB, rng.standard_normal((2, 3)))),
        ("solve bcast", lambda L, a, b: L.solve(a, b), (A, rng.standard_normal((2, 3, 4)))),
        ("cholesky", lambda L, a: L.cholesky(spd(a)), (AB,)),
        ("cholesky upper", lambda L, a: L.cholesky(spd(a), upper=True), (A,)),
        (
            "qr tall",
            lambda L, a: (lambda q, r: q.sum(-1, keepdim=True) * 2 + r.sum())(*L.qr(a)),
            (TALL,),
        ),  # noqa: E501
        ("qr R", lambda L, a: L.qr(a).R, (AB,)),
        ("qr Q", lambda L, a: L.qr(a).Q, (AB,)),
        ("qr wide", lambda L, a: (lambda q, r: q.sum() + (r * r).sum())(*L.qr(a)), (WIDE,)),
        ("eigvalsh", lambda L, a: L.eigvalsh(sym(a)), (AB,)),
        ("eigh values", lambda L, a: L.eigh(sym(a)).eigenvalues, (AB,)),
        # eigenvectors are defined up to sign: compare sign-free functions of them
        (
            "eigh vectors",
            lambda L, a: (lambda w, v: v * v * w.unsqueeze(-2))(*L.eigh(sym(a))),
            (AB,),
        ),
        ("eigh upper", lambda L, a: L.eigvalsh(sym(a), UPLO="U"), (A,)),
        ("svdvals", lambda L, a: L.svdvals(a), (TALL,)),
        ("svd S", lambda L, a: L.svd(a).S, (WIDE,)),
        (
            "svd U Vh tall",
            lambda L, a: (lambda u, s, vh: u @ vh * 2 + u * u)(*L.svd(a, False)),
            (TALL,),
        ),  # noqa: E501
        (
            "svd U Vh wide",
            lambda L, a: (lambda u, s, vh: u @ vh + vh * vh)(*L.svd(a, False)),
            (WIDE,),
        ),  # noqa: E501
        ("svd full", lambda L, a: (lambda u, s, vh: u[..., :3] @ vh)(*L.svd(a)), (TALL,)),
        ("pinv tall", lambda L, a: L.pinv(a), (TALL,)),
        ("pinv wide", lambda L, a: L.pinv(a), (WIDE,)),
        ("norm", lambda L, a: L.norm(a), (AB,)),
        ("norm ord dim", lambda L, a: L.norm(a, 3, dim=1), (AB,)),
        ("norm matrix", lambda L, a: L.norm(a, "nuc", dim=(0, 2), keepdim=True), (AB,)),
        ("norm 2-D ord", lambda L, a: L.norm(a, float("inf")), (A,)),
        ("vector_norm", lambda L, a: L.vector_norm(a, 1, (0, 2)), (AB,)),
    ]
    + [
        (f"matrix_norm {o}", lambda L, a, o=o: L.matrix_norm(a, o), (AB,))
        for o in ("fro", "nuc", 2, -2, 1, -1, float("inf"), float("-inf"))
    ]
)


@needs_torch
@pytest.mark.parametrize("name,f,args", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_parity_with_torch(name, f, args, dtype):
    tol = 2e-4 if dtype == np.float32 else 1e-9
    args = [a.astype(dtype) for a in args]
    parity(lambda *a: f(LA, *a), lambda *a: f(torch.linalg, *a), *args, rtol=tol, atol=tol)


@pytest.mark.parametrize("name,f,args", CASES, ids=[c[0] for c in CASES])
def test_gradcheck(name, f, args):
    gradcheck(lambda *a: f(LA, *a), *args, atol=1e-6, rtol=1e-5)


SECOND = [c for c in CASES if c[0] in (
    "slogdet", "solve", "solve vector", "cholesky", "qr tall", "qr wide",
    "eigh vectors", "eigvalsh", "svd U Vh tall", "svdvals", "pinv wide", "matrix_norm nuc",
)]  # fmt: skip


@pytest.mark.parametrize("name,f,args", SECOND, ids=[c[0] for c in SECOND])
def test_second_order(name, f, args):
    """create_graph through the backward: the gradient of a gradient matches finite
    differences of the first gradient."""
    cot = [rng.standard_normal(np.shape(f(LA, *[T(a) for a in args]))) for _ in range(1)][0]

    def first_grad(*xs):
        with nbgrad.enable_grad():  # also while the finite differences run
            ins = [x if x.requires_grad else x.detach().requires_grad_() for x in xs]
            out = f(LA, *ins)
            gs = nbgrad.autograd.grad(out, ins, T(cot), create_graph=True)
            r = sum((g * g).sum() for g in gs)
        return r if any(x.requires_grad for x in xs) else r.detach()

    gradcheck(first_grad, *args, atol=1e-5, rtol=1e-4)


def test_det_gradient_of_a_singular_matrix_is_the_cofactor_matrix():
    a = T(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]), True)
    LA.det(a).backward()
    m = a.detach().numpy()
    cof = np.array(
        [
            [(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(m, i, 0), j, 1)) for j in range(3)]
            for i in range(3)
        ]
    )
    np.testing.assert_allclose(a.grad.numpy(), cof, atol=1e-12)


@needs_torch
def test_outputs_types_and_aliases():
    a = T(AB)
    assert type(LA.slogdet(a)).__name__ == "linalg_slogdet"
    assert type(LA.qr(a)).__name__ == "linalg_qr"
    assert type(LA.eigh(a)).__name__ == "linalg_eigh"
    assert type(LA.svd(a)).__name__ == "linalg_svd"
    assert LA.slogdet(a).sign.requires_grad is False
    u, s, vh = LA.svd(T(TALL))
    assert u.shape == (2, 4, 4) and vh.shape == (2, 3, 3) and s.shape == (2, 3)
    q, r = LA.qr(T(TALL), mode="complete")
    assert q.shape == (2, 4, 4) and r.shape == (2, 4, 3)
    q, r = LA.qr(T(TALL), mode="r")
    assert q.numel() == 0
    np.testing.assert_allclose(np.abs(r.numpy()), np.abs(torch.linalg.qr(torch.tensor(TALL)).R))
    np.testing.assert_allclose(nbgrad.det(a).numpy(), np.linalg.det(AB))
    np.testing.assert_allclose(a.det().numpy(), np.linalg.det(AB))
    np.testing.assert_allclose(a.inverse().numpy(), np.linalg.inv(AB))
    np.testing.assert_allclose(nbgrad.inverse(a).numpy(), np.linalg.inv(AB))
    np.testing.assert_allclose(a.slogdet()[1].numpy(), np.linalg.slogdet(AB)[1])
    m = np.array([[[1.0, 2.0], [3.0, 4.0]], [[2.0, 0.0], [0.0, 3.0]], [[0.0, 1.0], [0.0, 2.0]]])
    np.testing.assert_array_equal(
        nbgrad.logdet(T(m)).numpy(), torch.logdet(torch.tensor(m)).numpy()
    )
    for kw in ({}, {"atol": 0.5}, {"rtol": 0.3}, {"hermitian": True}):
        x = (
            (AB + AB.swapaxes(-1, -2)) / 2
            if kw.get("hermitian")
            else np.concatenate([TALL, TALL[:, :, :1]], -1)
        )
        np.testing.assert_array_equal(
            LA.matrix_rank(T(x), **kw).numpy(), torch.linalg.matrix_rank(torch.tensor(x), **kw)
        )
    x = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(
        LA.pinv(T(x)).numpy(), torch.linalg.pinv(torch.tensor(x)).numpy(), atol=1e-12
    )


def same_linalg_error(f, ft, *args):
    """torch raises its LinAlgError (a RuntimeError); nbgrad raises its own, same text."""
    with pytest.raises(torch.linalg.LinAlgError) as want:
        ft(*[torch.tensor(a) for a in args])
    with pytest.raises(LA.LinAlgError) as got:
        f(*[T(a) for a in args])
    assert isinstance(got.value, RuntimeError)
    assert str(got.value) == str(want.value)


# -- errors -----------------------------------------------------------------------------
@needs_torch
def test_errors_as_torch():
    for name in ("inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh"):
        f, ft = _tnb(name)
        same_error(f, ft, A[0])
        same_error(f, ft, TALL)
        same_error(f, ft, np.ones((2, 2), np.int64))
    for name in ("svd", "svdvals", "qr"):
        f, ft = _tnb(name)
        same_error(f, ft, A[0])
    same_linalg_error(LA.inv, torch.linalg.inv, SING)
    same_linalg_error(LA.inv, torch.linalg.inv, np.stack([np.eye(2), SING]))
    same_linalg_error(LA.solve, torch.linalg.solve, SING, np.ones(2))
    same_error(LA.solve, torch.linalg.solve, np.eye(2), np.ones(3))
    same_error(LA.solve, torch.linalg.solve, np.eye(2), np.ones((3, 1)))
    same_error(LA.solve, torch.linalg.solve, np.eye(2), np.ones(2, np.float32))
    not_pd = np.array([[1.0, 2.0], [2.0, 1.0]])
    same_linalg_error(LA.cholesky, torch.linalg.cholesky, not_pd)
    same_linalg_error(LA.cholesky, torch.linalg.cholesky, np.stack([np.eye(2), not_pd]))
    same_error(lambda a: LA.qr(a, mode="x"), lambda a: torch.linalg.qr(a, mode="x"), A)
    same_error(lambda a: LA.eigh(a, UPLO="X"), lambda a: torch.linalg.eigh(a, UPLO="X"), A)
    same_error(lambda a: LA.norm(a, "fro"), lambda a: torch.linalg.norm(a, "fro"), AB)
    same_error(lambda a: LA.matrix_norm(a, 3), lambda a: torch.linalg.matrix_norm(a, 3), A)
    same_error(LA.matrix_norm, torch.linalg.matrix_norm, A[0])
    same_error(LA.vector_norm, torch.linalg.vector_norm, np.ones(2, np.int64))
    same_error(LA.matrix_rank, torch.linalg.matrix_rank, np.ones((2, 2), np.int64))
    with pytest.raises(RuntimeError):  # torch.linalg.LinAlgError is a RuntimeError too
        LA.inv(T(SING))
    with pytest.raises(LA.LinAlgError):
        LA.cholesky(T(not_pd))
    with pytest.raises(TypeError):
        LA.inv(A)


@needs_torch
def test_qr_backward_refusals_as_torch():
    for mode, a in (("complete", TALL), ("r", AB)):
        x, xt = T(a, True), torch.tensor(a, requires_grad=True)
        with pytest.raises(RuntimeError) as want:
            torch.linalg.qr(xt, mode=mode).R.sum().backward()
        with pytest.raises(RuntimeError) as got:
            LA.qr(x, mode=mode).R.sum().backward()
        assert str(got.value) == str(want.value)


def test_cuda_tensors_are_refused_clearly():
    if not nbgrad.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    a = T(A).cuda()
    for f in (LA.inv, LA.det, LA.cholesky, LA.svdvals, lambda x: LA.solve(x, x)):
        with pytest.raises(NotImplementedError, match="CUDA"):
            f(a)
    # the norms are composites of ops with CUDA kernels
    np.testing.assert_allclose(LA.norm(a).cpu().numpy(), np.linalg.norm(A))
