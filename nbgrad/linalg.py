"""`nbgrad.linalg` (torch.linalg): norms, inverses, solves, determinants and
factorizations.

Factorizations run forward in LAPACK through NumPy on the host, batched over leading dims,
and are custom `autograd.Function`s whose backward is PyTorch's formula written in nbgrad
ops. Under create_graph the backward recomputes its factors with these same functions, so
its own graph reaches the input: double backward works. CPU tensors only (CUDA ones raise
NotImplementedError). Errors are PyTorch's, `LinAlgError` included.
"""

from collections import namedtuple

import numpy as np

from ._array import contig
from ._dtype import scalar_name
from .autograd.function import Function
from .autograd.grad_mode import is_grad_enabled
from .ops.reduce import vector_norm as _vector_norm
from .tensor import Tensor

__all__ = [
    "LinAlgError",
    "cholesky",
    "det",
    "eigh",
    "eigvalsh",
    "inv",
    "matrix_norm",
    "matrix_rank",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_triangular",
    "svd",
    "svdvals",
    "vector_norm",
]


class LinAlgError(RuntimeError):
    """Raised for a singular or not positive-definite input, as torch.linalg.LinAlgError."""


return_types_slogdet = namedtuple("linalg_slogdet", ["sign", "logabsdet"])
return_types_qr = namedtuple("linalg_qr", ["Q", "R"])
return_types_eigh = namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
return_types_svd = namedtuple("linalg_svd", ["U", "S", "Vh"])


# -- checks and helpers -----------------------------------------------------------------
def _T(a):
    return Tensor._make(contig(a) if np.ndim(a) else np.array(a), -1, False)


def _mT(x):
    return x.transpose(-2, -1)


def _matrix(A, fname, square=True, kernel=None):
    if not isinstance(A, Tensor):
        raise TypeError(
            f"{fname}(): argument 'A' (position 1) must be Tensor, not {type(A).__name__}"
        )
    if A.dim() < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{fname}: A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )
    if not A.is_floating_point():
        if kernel:  # PyTorch reaches its kernel before checking the dtype
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(A.dtype)}'")
        raise RuntimeError(
            f"{fname}: Expected a floating point or complex tensor as input. Got "
            f"{scalar_name(A.dtype)}"
        )
    if A.is_cuda:
        raise NotImplementedError(
            f"{fname} runs in LAPACK on the host in nbgrad: it is not implemented for CUDA "
            "tensors; move the input to the CPU with .cpu()"
        )


def _batch(i, batched):
    return f"(Batch element {i}): " if batched else ""


def _first_bad(a, ok):
    """The first matrix of the batch `a` (as a flat index) for which `ok` is False."""
    flat = a.reshape(-1, *a.shape[-2:])
    for i, m in enumerate(flat):
        if not ok(m):
            return i, m
    return None, None


def _lu_diagonal(m):
    import warnings

    from scipy.linalg import lu_factor

    with warnings.catch_warnings():  # SciPy warns about the zero pivot we look for
        warnings.simplefilter("ignore")
        return np.diagonal(lu_factor(m, check_finite=False)[0])


def _inv_np(a):
    """np.linalg.inv, with PyTorch's error for an exactly singular matrix (LAPACK's zero
    pivot, found again by an LU of the failing batch element)."""
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        pass
    i, m = _first_bad(a, lambda m: np.all(_lu_diagonal(m) != 0))
    k = int(np.flatnonzero(_lu_diagonal(m) == 0)[0]) + 1 if i is not None else 1
    raise LinAlgError(
        f"linalg.inv: {_batch(i or 0, a.ndim > 2)}The diagonal element {k} is zero, the "
        "inversion could not be completed because the input matrix is singular."
    )


# -- inverse, solve, determinants -------------------------------------------------------
class _Inv(Function):
    @staticmethod
    def forward(ctx, A):
        y = _inv_np(A._data)
        ctx.save_for_backward(A)
        ctx.y = y
        return _T(y.astype(A._data.dtype, copy=False))

    @staticmethod
    def backward(ctx, g):
        (A,) = ctx.saved_tensors
        yt = _mT(inv(A) if is_grad_enabled() else _T(ctx.y))
        return -(yt @ g @ yt)


def inv(A, *, out=None):
    """The inverse of a square matrix (or of each in a batch).

    Args:
        A (Tensor): (*, n, n), invertible.

    Raises:
        LinAlgError: if a matrix is singular.

    Example::

        >>> torch.linalg.inv(torch.tensor([[2., 0.], [0., 4.]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    _matrix(A, "linalg.inv")
    return _Inv.apply(A)


class _Solve(Function):
    @staticmethod
    def forward(ctx, A, B):
        try:
            x = np.linalg.solve(A._data, B._data)
        except np.linalg.LinAlgError:
            raise LinAlgError(
                "torch.linalg.solve: The solver failed because the input matrix is singular."
            ) from None
        ctx.save_for_backward(A, B)
        ctx.x = x
        return _T(x)

    @staticmethod
    def backward(ctx, g):
        A, B = ctx.saved_tensors
        X = _Solve.apply(A, B) if is_grad_enabled() else _T(ctx.x)
        gB = _Solve.apply(_mT(A), g)
        return -(gB @ _mT(X)), gB


def solve(A, B, *, left=True, out=None):
    """The solution X of `A X = B` (or `X A = B` with `left=False`), batched; B may be a
    vector (or a batch of vectors).

    Args:
        A (Tensor): (*, n, n), invertible.
        B (Tensor): (*, n, k) or (*, n), of A's dtype.
        left (bool): solve A X = B (True) or X A = B. Default: True.

    Raises:
        LinAlgError: if A is singular.

    Example::

        >>> torch.linalg.solve(torch.tensor([[2., 0.], [0., 4.]]), torch.tensor([2., 2.]))
        tensor([1.0000, 0.5000])
    """
    _matrix(A, "linalg.solve")
    if not isinstance(B, Tensor):
        raise TypeError(
            f"linalg.solve(): argument 'B' (position 2) must be Tensor, not {type(B).__name__}"
        )
    if B.dtype is not A.dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{scalar_name(A.dtype)} and B of type {scalar_name(B.dtype)} instead"
        )
    n = A.shape[-1]
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if not left:  # X A = B  <=>  A^T X^T = B^T
        if vector:
            return solve(_mT(A), B)
        return _mT(solve(_mT(A), _mT(B)))
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.dim() < 2 or Bm.shape[-2] != n:
        rows = Bm.shape[-2] if Bm.dim() >= 2 else Bm.shape[-1]
        cols = Bm.shape[-1] if Bm.dim() >= 2 and not vector else 1
        raise RuntimeError(
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B "
            f"({n}x{n} and {rows}x{cols})"
        )
    from .ops.pointwise import broadcast_shapes

    batch = broadcast_shapes(tuple(A.shape[:-2]), tuple(Bm.shape[:-2]))
    Ae = A if tuple(A.shape[:-2]) == batch else A.expand(*batch, n, n)
    Be = Bm if tuple(Bm.shape[:-2]) == batch else Bm.expand(*batch, *Bm.shape[-2:])
    X = _Solve.apply(Ae, Be)
    return X.squeeze(-1) if vector else X


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """The solution X of `A X = B` (or `X A = B` with `left=False`) for a triangular A,
    batched. Only A's triangle is read (its diagonal taken as ones with
    `unitriangular=True`), and A's gradient lies in that triangle, as in PyTorch.

    Args:
        A (Tensor): (*, n, n), triangular.
        B (Tensor): (*, n, k) (or (*, k, n) with `left=False`), of A's dtype.
        upper (bool): A is upper (True) or lower (False) triangular.
        left (bool): solve A X = B (True) or X A = B. Default: True.
        unitriangular (bool): A's diagonal is all ones. Default: False.

    Example::

        >>> L = torch.tensor([[2., 0.], [1., 1.]])
        >>> torch.linalg.solve_triangular(L, torch.tensor([[2.], [3.]]), upper=False)
        tensor([[1.],
                [2.]])
    """
    from .ops.triangular import diag_embed, diagonal, tril, triu

    _matrix(A, "linalg.solve_triangular")
    if not isinstance(B, Tensor) or B.dim() < 2:
        raise RuntimeError(
            "linalg.solve_triangular: The input tensor B must have at least 2 dimensions."
        )
    T = triu(A) if upper else tril(A)
    if unitriangular:  # the diagonal replaced by ones
        T = T - diag_embed(diagonal(T, 0, -2, -1)) + diag_embed(diagonal(T, 0, -2, -1) * 0 + 1)
    return solve(T, B, left=left)


def cholesky_solve(B, L, upper=False):
    """The solution X of `A X = B` given the Cholesky factor of A (`A = L L^T`, or
    `A = U^T U` with `upper=True`), batched. Differentiable in both arguments, with
    PyTorch's gradient for the factor.

    Args:
        B (Tensor): (*, n, k), the right-hand sides.
        L (Tensor): (*, n, n), the lower (or upper) triangular Cholesky factor.
        upper (bool): L is upper triangular. Default: False.

    Example::

        >>> L = torch.linalg.cholesky(torch.tensor([[4., 2.], [2., 2.]]))
        >>> torch.cholesky_solve(torch.tensor([[2.], [2.]]), L)
        tensor([[0.],
                [1.]])
    """
    _matrix(L, "cholesky_solve")
    if not isinstance(B, Tensor):
        raise TypeError(
            f"cholesky_solve(): argument 'input' (position 1) must be Tensor, not "
            f"{type(B).__name__}"
        )
    if B.dim() < 2:
        raise RuntimeError(
            f"b should have at least 2 dimensions, but has {B.dim()} dimensions instead"
        )
    if B.dtype is not L.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{scalar_name(B.dtype)} and A of type {scalar_name(L.dtype)} instead."
        )
    n = L.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for cholesky_solve: each A matrix is {n} by {n} but "
            f"each b matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    lower = _mT(L) if upper else L
    # X = L^{-T} L^{-1} B: the same function of every entry of L as (L L^T)^{-1} B, so its
    # gradient is PyTorch's (which is not confined to the triangle)
    return solve(_mT(lower), solve(lower, B))


def _adjugate_t(a):
    """The transposed adjugate (cofactor matrix) of each matrix, also of singular ones:
    with A = U S V^T, adj(A) = det(U) det(V) V diag(prod_{j != i} s_j) U^T."""
    u, s, vh = np.linalg.svd(a)
    n = s.shape[-1]
    c = np.ones_like(s)
    for i in range(n):
        c[..., i] = np.prod(np.delete(s, i, axis=-1), axis=-1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    adj = (np.swapaxes(vh, -1, -2) * c[..., None, :]) @ np.swapaxes(u, -1, -2)
    return np.swapaxes(adj * sign[..., None, None], -1, -2)


class _Det(Function):
    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        return _T(np.asarray(np.linalg.det(A._data), A._data.dtype))

    @staticmethod
    def backward(ctx, g):
        (A,) = ctx.saved_tensors
        g = g.unsqueeze(-1).unsqueeze(-1)
        if is_grad_enabled():  # det(A) A^{-T}: differentiable (A invertible)
            return g * _Det.apply(A).unsqueeze(-1).unsqueeze(-1) * _mT(inv(A))
        return g * _T(_adjugate_t(A._data).astype(A._data.dtype))


def det(A, *, out=None):
    """The determinant of a square matrix (or of each in a batch). Its gradient is the
    cofactor matrix, also for singular matrices.

    Args:
        A (Tensor): (*, n, n).

    Example::

        >>> torch.linalg.det(torch.tensor([[1., 2.], [3., 4.]]))
        tensor(-2.)
    """
    _matrix(A, "linalg.det")
    return _Det.apply(A)


class _Slogdet(Function):
    @staticmethod
    def forward(ctx, A):
        sign, logabs = np.linalg.slogdet(A._data)
        ctx.save_for_backward(A)
        dt = A._data.dtype
        s = _T(np.asarray(sign, dt))
        ctx.mark_non_differentiable(s)
        return s, _T(np.asarray(logabs, dt))

    @staticmethod
    def backward(ctx, gsign, glog):
        (A,) = ctx.saved_tensors
        return glog.unsqueeze(-1).unsqueeze(-1) * _mT(inv(A))


def slogdet(A, *, out=None):
    """The sign and the log of the absolute value of the determinant: `(sign, logabsdet)`.

    Args:
        A (Tensor): (*, n, n).

    Example::

        >>> sign, logabsdet = torch.linalg.slogdet(torch.tensor([[1., 2.], [3., 4.]]))
        >>> sign, logabsdet
        (tensor(-1.), tensor(0.6931))
    """
    _matrix(A, "linalg.slogdet")
    return return_types_slogdet(*_Slogdet.apply(A))


def logdet(input):  # noqa: A002
    """The log of the determinant: NaN for a negative determinant, -inf for zero.

    Args:
        input (Tensor): (*, n, n).

    Example::

        >>> torch.logdet(torch.tensor([[2., 0.], [0., 3.]]))
        tensor(1.7918)
    """
    _matrix(input, "linalg.slogdet")
    sign, logabs = slogdet(input)
    from .ops.select import where

    return where(sign < 0, float("nan"), logabs)


# -- factorizations ---------------------------------------------------------------------
def _cholesky_np(a):
    try:
        return np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        pass

    def order(m):
        for k in range(1, m.shape[-1] + 1):
            try:
                np.linalg.cholesky(m[:k, :k])
            except np.linalg.LinAlgError:
                return k
        return 0

    i, m = _first_bad(a, lambda m: order(m) == 0)
    raise LinAlgError(
        f"linalg.cholesky: {_batch(i, a.ndim > 2)}The factorization could not be completed "
        "because the input is not positive-definite (the leading minor of order "
        f"{order(m)} is not positive-definite)."
    )


class _Cholesky(Function):
    @staticmethod
    def forward(ctx, A):
        L = _cholesky_np(A._data)
        ctx.save_for_backward(A)
        ctx.L = L
        return _T(L)

    @staticmethod
    def backward(ctx, gL):
        from .ops.triangular import tril

        (A,) = ctx.saved_tensors
        L = _Cholesky.apply(A) if is_grad_enabled() else _T(ctx.L)
        # PyTorch's formula: gA = L^{-H} Phi(L^H gL) L^{-1}, Phi = symmetrized lower part
        P = tril(_mT(L) @ gL)
        P = 0.5 * (P + _mT(tril(P, -1)))
        Lh = _mT(L)
        X = _Solve.apply(Lh, P)  # L^{-H} P
        return _mT(_Solve.apply(Lh, _mT(X)))  # (L^{-H} X^H)^H = X L^{-1}


def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor L (lower) of a symmetric positive-definite matrix, `A = L L^T`
    (or U = L^T with `upper=True`). Only the lower triangle of A is read.

    Args:
        A (Tensor): (*, n, n), symmetric positive-definite.
        upper (bool): return the upper factor. Default: False.

    Raises:
        LinAlgError: if a matrix is not positive-definite.

    Example::

        >>> torch.linalg.cholesky(torch.tensor([[4., 2.], [2., 2.]]))
        tensor([[2., 0.],
                [1., 1.]])
    """
    _matrix(A, "linalg.cholesky")
    L = _Cholesky.apply(A)
    return _mT(L) if upper else L


class _QR(Function):
    @staticmethod
    def forward(ctx, A, mode):
        q, r = np.linalg.qr(A._data, mode="complete" if mode == "complete" else "reduced")
        ctx.save_for_backward(A)
        ctx.qr = (q, r)
        ctx.mode = mode
        return _T(q), _T(r)

    @staticmethod
    def backward(ctx, gQ, gR):
        (A,) = ctx.saved_tensors
        m, n = A.shape[-2:]
        if ctx.mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
            )
        Q, R = _QR.apply(A, ctx.mode) if is_grad_enabled() else map(_T, ctx.qr)
        if m >= n:
            return _qr_square_backward(Q, R, gQ, gR), None
        # wide: A = Q [X | Y] with X = R[:, :m] square; Y = Q^T A[:, m:]
        X, gX, gY = R[..., :m], gR[..., :m], gR[..., m:]
        A2 = A[..., m:]
        gA1 = _qr_square_backward(Q, X, gQ + A2 @ _mT(gY), gX)
        from .ops.joins import cat

        return cat([gA1, Q @ gY], -1), None


def _qr_square_backward(Q, R, gQ, gR):
    """PyTorch's QR backward for m >= n: gA = [gQ + Q copyltu(M)] R^{-H},
    M = R gR^H - gQ^H Q."""
    from .ops.triangular import triu

    M = gR @ _mT(R) - _mT(Q) @ gQ
    Mu = triu(M)
    sym = Mu + _mT(Mu)
    from .ops.triangular import diag_embed, diagonal

    sym = sym - 0.5 * diag_embed(diagonal(sym, 0, -2, -1))
    G = Q @ sym + gQ
    # G R^{-H}: solve R X^H = G^H
    return _mT(_Solve.apply(R, _mT(G)))


def qr(A, mode="reduced", *, out=None):
    """The QR decomposition `A = Q R`, Q with orthonormal columns, R upper triangular.

    Args:
        A (Tensor): (*, m, n).
        mode (str): "reduced" (Q is m x k, k = min(m, n)), "complete" (Q is m x m) or
            "r" (R only; Q is empty). Default: "reduced".

    Example::

        >>> Q, R = torch.linalg.qr(torch.tensor([[3., 1.], [4., 2.]]))
        >>> torch.allclose(Q @ R, torch.tensor([[3., 1.], [4., 2.]]))
        True
    """
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    _matrix(A, "linalg.qr", square=False)
    if mode == "r":
        return return_types_qr(_T(np.zeros(0, A._data.dtype)), _QROnlyR.apply(A))
    return return_types_qr(*_QR.apply(A, mode))


class _QROnlyR(Function):
    @staticmethod
    def forward(ctx, A):
        return _T(np.linalg.qr(A._data, mode="r"))

    @staticmethod
    def backward(ctx, gR):
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
            "through linalg.qr."
        )


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


class _Eigh(Function):
    @staticmethod
    def forward(ctx, A, UPLO):
        w, v = np.linalg.eigh(A._data, UPLO=UPLO)
        ctx.save_for_backward(A)
        ctx.wv, ctx.uplo = (w, v), UPLO
        return _T(w), _T(v)

    @staticmethod
    def backward(ctx, gL, gV):
        from .ops.triangular import diag_embed

        (A,) = ctx.saved_tensors
        L, V = _Eigh.apply(A, ctx.uplo) if is_grad_enabled() else map(_T, ctx.wv)
        n = A.shape[-1]
        eye = _T(np.eye(n, dtype=A._data.dtype))
        # PyTorch's formula: gA = V (skew(V^H gV) / E + diag(gL)) V^H, E_ij = L_j - L_i
        VhgV = _mT(V) @ gV
        VhgV = 0.5 * (VhgV - _mT(VhgV))
        E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye
        inner = VhgV / E * (1 - eye) + diag_embed(gL)
        return V @ inner @ _mT(V), None


class _Eigvalsh(Function):
    @staticmethod
    def forward(ctx, A, UPLO):
        w, v = np.linalg.eigh(A._data, UPLO=UPLO)
        ctx.save_for_backward(A)
        ctx.v, ctx.uplo = v, UPLO
        return _T(w)

    @staticmethod
    def backward(ctx, gL):
        (A,) = ctx.saved_tensors
        V = _Eigh.apply(A, ctx.uplo)[1] if is_grad_enabled() else _T(ctx.v)
        return (V * gL.unsqueeze(-2)) @ _mT(V), None


def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix; only the
    `UPLO` triangle is read. Gradients are PyTorch's (defined for distinct eigenvalues).

    Args:
        A (Tensor): (*, n, n), symmetric.
        UPLO (str): "L" or "U", the triangle to read. Default: "L".

    Example::

        >>> torch.linalg.eigh(torch.tensor([[2., 0.], [0., 1.]])).eigenvalues
        tensor([1., 2.])
    """
    _uplo(UPLO)
    _matrix(A, "linalg.eigh", kernel="linalg_eigh_cpu")
    return return_types_eigh(*_Eigh.apply(A, UPLO))


def eigvalsh(A, UPLO="L", *, out=None):
    """The eigenvalues (ascending) of a symmetric matrix (see `eigh`).

    Args:
        A (Tensor): (*, n, n), symmetric.
        UPLO (str): "L" or "U". Default: "L".

    Example::

        >>> torch.linalg.eigvalsh(torch.tensor([[2., 0.], [0., 1.]]))
        tensor([1., 2.])
    """
    _uplo(UPLO)
    _matrix(A, "linalg.eigh", kernel="linalg_eigh_cpu")
    return _Eigvalsh.apply(A, UPLO)


class _SVD(Function):
    @staticmethod
    def forward(ctx, A, full_matrices):
        u, s, vh = np.linalg.svd(A._data, full_matrices=full_matrices)
        ctx.save_for_backward(A)
        ctx.usv, ctx.full = (u, s, vh), full_matrices
        return _T(u), _T(s), _T(vh)

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        (A,) = ctx.saved_tensors
        U, S, Vh = _SVD.apply(A, False) if is_grad_enabled() else map(_T, _reduced(ctx))
        k = S.shape[-1]
        if ctx.full:  # the extra columns carry no gradient, as in PyTorch
            gU, gVh = gU[..., :k], gVh[..., :k, :]
        return _svd_backward(U, S, Vh, gU, gS, gVh, *A.shape[-2:]), None


def _reduced(ctx):
    u, s, vh = ctx.usv
    k = s.shape[-1]
    return u[..., :k], s, vh[..., :k, :]


def _svd_backward(U, S, Vh, gU, gS, gVh, m, n):
    """PyTorch's real SVD backward: gA = U [(skew(U^T gU) S + S skew(V^T gV)) / E + diag(gS)]
    V^T plus the parts of gU, gV outside span(U), span(V); E_jk = S_k^2 - S_j^2."""
    from .ops.triangular import diag_embed

    V, gV = _mT(Vh), _mT(gVh)
    k = S.shape[-1]
    eye = _T(np.eye(k, dtype=S._data.dtype))
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye
    UhgU = _mT(U) @ gU
    VhgV = _mT(V) @ gV
    UhgU = UhgU - _mT(UhgU)
    VhgV = VhgV - _mT(VhgV)
    gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E * (1 - eye) + diag_embed(gS)
    if m > n:
        gA = U @ gA
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U @ (_mT(U) @ gUSinv)
        return gA @ Vh
    if m < n:
        gA = gA @ Vh
        SinvgVh = _mT(gV) / S.unsqueeze(-1)
        gA = gA + SinvgVh - (SinvgVh @ V) @ Vh
        return U @ gA
    return U @ gA @ Vh


class _SVDvals(Function):
    @staticmethod
    def forward(ctx, A):
        u, s, vh = np.linalg.svd(A._data, full_matrices=False)
        ctx.save_for_backward(A)
        ctx.uv = (u, vh)
        return _T(s)

    @staticmethod
    def backward(ctx, gS):
        (A,) = ctx.saved_tensors
        if is_grad_enabled():
            U, _, Vh = _SVD.apply(A, False)
        else:
            U, Vh = map(_T, ctx.uv)
        return (U * gS.unsqueeze(-2)) @ Vh, None


def svd(A, full_matrices=True, *, driver=None, out=None):
    """The singular value decomposition `A = U diag(S) Vh`, S descending.

    Args:
        A (Tensor): (*, m, n).
        full_matrices (bool): U (m, m) and Vh (n, n) if True, else (m, k) and (k, n) with
            k = min(m, n). Default: True.
        driver: accepted (CUDA-only in PyTorch); ignored.

    Example::

        >>> torch.linalg.svd(torch.tensor([[3., 0.], [0., 4.]])).S
        tensor([4., 3.])
    """
    _matrix(A, "linalg.svd", square=False)
    return return_types_svd(*_SVD.apply(A, bool(full_matrices)))


def svdvals(A, *, driver=None, out=None):
    """The singular values of a matrix, descending.

    Args:
        A (Tensor): (*, m, n).

    Example::

        >>> torch.linalg.svdvals(torch.tensor([[3., 0.], [0., 4.]]))
        tensor([4., 3.])
    """
    _matrix(A, "linalg.svd", square=False)
    return _SVDvals.apply(A)


def _tolerance(s, atol, rtol, m, n):
    """PyTorch's cut-off: max(atol, rtol * largest singular value)."""
    smax = s.max(axis=-1, initial=0.0) if s.size else np.zeros(s.shape[:-1])
    if atol is None and rtol is None:
        rtol = np.finfo(s.dtype).eps * max(m, n)
    atol = 0.0 if atol is None else _host(atol)
    rtol = 0.0 if rtol is None else _host(rtol)
    return np.maximum(atol, rtol * smax)


def _host(v):
    return v._data if isinstance(v, Tensor) else v


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The number of singular values above max(atol, rtol * the largest); int64.

    Args:
        A (Tensor): (*, m, n).
        atol (float or Tensor, optional): absolute tolerance. Default: 0.
        rtol (float or Tensor, optional): relative tolerance. Default: eps * max(m, n)
            when both are None, else 0.
        hermitian (bool): A is symmetric (eigenvalues are used). Default: False.

    Example::

        >>> torch.linalg.matrix_rank(torch.tensor([[1., 2.], [2., 4.]]))
        tensor(1)
    """
    if isinstance(A, Tensor) and not A.is_floating_point():
        raise RuntimeError("This function doesn't handle types other than float and double")
    _matrix(A, "linalg.matrix_rank", square=bool(hermitian))
    a = A._data
    s = np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)
    tol = _tolerance(s, atol, rtol, *a.shape[-2:])
    return _T(np.sum(s > np.asarray(tol)[..., None], axis=-1).astype(np.int64))


class _Pinv(Function):
    @staticmethod
    def forward(ctx, A, atol, rtol, hermitian):
        a = A._data
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        tol = np.asarray(_tolerance(s, atol, rtol, *a.shape[-2:]))[..., None]
        with np.errstate(divide="ignore"):
            sinv = np.where(s > tol, 1.0 / s, 0.0).astype(a.dtype)
        p = (np.swapaxes(vh, -1, -2) * sinv[..., None, :]) @ np.swapaxes(u, -1, -2)
        ctx.save_for_backward(A)
        ctx.p, ctx.args = p, (atol, rtol, hermitian)
        return _T(p)

    @staticmethod
    def backward(ctx, g):
        (A,) = ctx.saved_tensors
        P = _Pinv.apply(A, *ctx.args) if is_grad_enabled() else _T(ctx.p)
        m, n = A.shape[-2:]
        Ph, gh = _mT(P), _mT(g)
        # PyTorch's pinv backward (for a pseudo-inverse of locally constant rank)
        if m <= n:
            K = gh @ P
            KPh = K @ Ph
            return (
                -_mT(P @ K) + KPh - (A @ P) @ KPh + (Ph @ P) @ (gh - K @ A),
                None,
                None,
                None,
            )
        K = P @ gh
        PhK = Ph @ K
        return -_mT(K @ P) + (gh - A @ K) @ P @ Ph + PhK - PhK @ P @ A, None, None, None


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse, from the SVD with singular values below
    max(atol, rtol * the largest) treated as zero.

    Args:
        A (Tensor): (*, m, n).
        atol (float, optional), rtol (float, optional): tolerances, as in `matrix_rank`.
        hermitian (bool): accepted; the SVD is used either way. Default: False.

    Example::

        >>> torch.linalg.pinv(torch.tensor([[2., 0.], [0., 0.]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
    """
    _matrix(A, "linalg.pinv", square=False)
    return _Pinv.apply(A, atol, rtol, hermitian)


# -- norms ------------------------------------------------------------------------------
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """The vector `ord`-norm over `dim` (all elements if None).

    Args:
        x (Tensor): a float tensor.
        ord (float): 2, 1, inf, -inf, 0 or any other real p. Default: 2.
        dim (int or tuple, optional): the dims. Default: all.
        keepdim (bool): keep the reduced dims with size 1. Default: False.
        dtype (nbgrad.dtype, optional): compute in this dtype.

    Example::

        >>> torch.linalg.vector_norm(torch.tensor([3., 4.]))
        tensor(5.)
    """
    if isinstance(x, Tensor) and dtype is None and not x.is_floating_point():
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{scalar_name(x.dtype)}"
        )
    return _vector_norm(x, ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """A matrix norm over the two dims `dim`: "fro", "nuc", 2, -2, 1, -1, inf, -inf.

    Args:
        A (Tensor): at least 2-D, float.
        ord: the norm. Default: "fro".
        dim (tuple of two ints): the matrix dims. Default: (-2, -1).
        keepdim (bool): keep the reduced dims with size 1. Default: False.
        dtype (nbgrad.dtype, optional): compute in this dtype.

    Example::

        >>> torch.linalg.matrix_norm(torch.tensor([[1., -2.], [3., 4.]]), 1)
        tensor(6.)
    """
    if not isinstance(A, Tensor):
        raise TypeError(
            f"linalg.matrix_norm(): argument 'A' (position 1) must be Tensor, not "
            f"{type(A).__name__}"
        )
    if A.dim() < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    if dtype is not None:
        A = A.to(dtype)
    if not A.is_floating_point():
        raise RuntimeError(
            "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
            f"{scalar_name(A.dtype)}"
        )
    from .ops.hostside import wrap_dim

    d0, d1 = (wrap_dim(d, A.dim()) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if ord == "fro":
        return _vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        B = A.movedim((d0, d1), (-2, -1))
        s = svdvals(B)
        r = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
        if keepdim:
            r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
        return r
    if ord in (1, -1, float("inf"), float("-inf")):
        inner, outer = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = A.abs().sum(inner, keepdim=True)
        r = sums.amax(outer, keepdim=True) if ord > 0 else sums.amin(outer, keepdim=True)
        return r if keepdim else r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """A vector or matrix norm: a vector norm for an int `dim` (or, without `dim`, a 1-D
    input or `ord=None`), a matrix norm for a two-int `dim` (or a 2-D input with `ord`).

    Args:
        A (Tensor): a float tensor.
        ord: the norm (see `vector_norm` and `matrix_norm`). Default: 2 / "fro".
        dim (int or tuple, optional): the dims.
        keepdim (bool): keep the reduced dims with size 1. Default: False.
        dtype (nbgrad.dtype, optional): compute in this dtype.

    Example::

        >>> torch.linalg.norm(torch.tensor([[3., 0.], [0., 4.]]))
        tensor(5.)
    """
    if not isinstance(A, Tensor):
        raise TypeError(
            f"linalg.norm(): argument 'A' (position 1) must be Tensor, not {type(A).__name__}"
        )
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        if len(dim) == 1:
            return _vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return _vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.dim() not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
            f"Got {A.dim()}D."
        )
    if A.dim() == 1:
        return _vector_norm(A, ord, None, keepdim, dtype=dtype)
    return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)


from ._torch_names import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.linalg")  # PyTorch's names say nbgrad lacks them
