"""Products and blends built from matmul and elementwise ops: addmm, baddbmm, tensordot,
kron, cdist, lerp. Each is a composite, so gradients (also double backward), compiled mode
and CUDA come from its pieces.
"""

import numpy as np

from .._dtype import scalar_name
from .hostside import check_tensor
from .linalg import bmm, mm


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    """`beta * input + alpha * (mat1 @ mat2)`; with `beta=0` `input` is ignored (its NaN
    and inf do not propagate).

    Args:
        input (Tensor): broadcastable to (n, p).
        mat1 (Tensor): (n, m).
        mat2 (Tensor): (m, p).
        beta (Number), alpha (Number): the scales. Default: 1.

    Example::

        >>> torch.addmm(torch.zeros(2, 2), torch.eye(2), torch.ones(2, 2), alpha=2)
        tensor([[2., 2.],
                [2., 2.]])
    """
    check_tensor(input, "addmm")
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        check_tensor(m, "addmm", name, 2 if name == "mat1" else 3)
        if m.dim() != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.dim()}-D tensor")
    p = mm(mat1, mat2)
    _broadcast_check(input, p)
    return _blend(input, p, beta, alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """`beta * input + alpha * (batch1 @ batch2)` over a batch of matrices.

    Args:
        input (Tensor): broadcastable to (b, n, p).
        batch1 (Tensor): (b, n, m).
        batch2 (Tensor): (b, m, p).
        beta (Number), alpha (Number): the scales. Default: 1.

    Example::

        >>> torch.baddbmm(torch.zeros(1, 2, 2), torch.ones(1, 2, 3), torch.ones(1, 3, 2))
        tensor([[[3., 3.],
                 [3., 3.]]])
    """
    check_tensor(input, "baddbmm")
    p = bmm(batch1, batch2)
    _broadcast_check(input, p)
    return _blend(input, p, beta, alpha)


def _broadcast_check(input, p):  # noqa: A002
    target = tuple(p.shape)
    try:
        fits = np.broadcast_shapes(tuple(input.shape), target) == target
    except ValueError:
        fits = False
    if not fits:
        input.expand(*target)  # raises PyTorch's "expanded size" error


def _blend(input, prod, beta, alpha):  # noqa: A002
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:
        return prod
    return (input if beta == 1 else input * beta) + prod


def tensordot(a, b, dims=2, out=None):
    """Sums products over the last `dims` dims of `a` and the first `dims` of `b`, or over
    the listed dims `dims=(dims_a, dims_b)`.

    Args:
        a (Tensor), b (Tensor): the operands.
        dims (int or (list, list)): how many, or which, dims to contract. Default: 2.

    Example::

        >>> torch.tensordot(torch.ones(2, 3), torch.ones(3, 4), 1).shape
        nbgrad.Size([2, 4])
    """
    check_tensor(a, "tensordot", "a")
    check_tensor(b, "tensordot", "b", 2)
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.dim() or dims > b.dim():
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da = list(range(a.dim() - dims, a.dim()))
        db = list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    from .hostside import wrap_dim

    da = [wrap_dim(d, a.dim()) for d in da]
    db = [wrap_dim(d, b.dim()) for d in db]
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[x]} in dim "
                f"{x} and second has size {b.shape[y]} in dim {y}"
            )
    fa = [d for d in range(a.dim()) if d not in da]
    fb = [d for d in range(b.dim()) if d not in db]
    k = int(np.prod([a.shape[d] for d in da], dtype=np.int64))
    am = a.permute(fa + da).reshape(-1, k)
    bm = b.permute(db + fb).reshape(k, -1)
    return mm(am, bm).reshape(*[a.shape[d] for d in fa], *[b.shape[d] for d in fb])


def kron(input, other):  # noqa: A002
    """The Kronecker product: blocks `input[i, j] * other` (any number of dims).

    Args:
        input (Tensor), other (Tensor): the factors.

    Example::

        >>> torch.kron(torch.eye(2), torch.ones(2, 2))
        tensor([[1., 1., 0., 0.],
                [1., 1., 0., 0.],
                [0., 0., 1., 1.],
                [0., 0., 1., 1.]])
    """
    check_tensor(input, "kron")
    check_tensor(other, "kron", "other", 2)
    nd = max(input.dim(), other.dim())
    sa = (1,) * (nd - input.dim()) + tuple(input.shape)
    sb = (1,) * (nd - other.dim()) + tuple(other.shape)
    a = input.reshape(*[v for n in sa for v in (n, 1)])
    b = other.reshape(*[v for n in sb for v in (1, n)])
    return (a * b).reshape(*[x * y for x, y in zip(sa, sb)])


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between each row of `x1` and each row of `x2` (batched).

    Args:
        x1 (Tensor): (B..., P, M).
        x2 (Tensor): (B..., R, M).
        p (float): the norm, >= 0. Default: 2.
        compute_mode (str): accepted; distances are always computed directly.

    Example::

        >>> torch.cdist(torch.tensor([[0., 0.]]), torch.tensor([[3., 4.]]))
        tensor([[5.]])
    """
    check_tensor(x1, "cdist", "x1")
    check_tensor(x2, "cdist", "x2", 2)
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if not (x1.is_floating_point() and x2.is_floating_point()):
        raise RuntimeError(
            "cdist only supports floating-point dtypes, "
            + ("X1" if not x1.is_floating_point() else "X2")
            + " got: "
            + scalar_name((x1 if not x1.is_floating_point() else x2).dtype)
        )
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    from .reduce import vector_norm

    return vector_norm(diff, p, -1)


def check_lerp(input, end, weight):  # noqa: A002
    """PyTorch's checks of lerp's arguments (the op itself is `functions.lerp`)."""
    check_tensor(input, "lerp")
    check_tensor(end, "lerp", "end", 2)
    if not input.is_floating_point():
        kernel = "lerp_kernel_tensor" if hasattr(weight, "dtype") else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input.dtype)}'")
    if end.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {_tname(input)} for `end` but got dtype {_tname(end)}")
    if hasattr(weight, "dtype") and weight.dtype is not input.dtype:
        raise RuntimeError(
            f"expected dtype {_tname(input)} for `weight` but got dtype {_tname(weight)}"
        )


def _tname(t):
    return {"float32": "float", "float64": "double"}.get(t.dtype.name, t.dtype.name)
