"""create_graph, batched cotangents and double backward through indexing, joins, strided
views, where and einsum (tests/higher.py). Each program is nonlinear after the op, so the
op's differentiable VJP is differentiated again with a cotangent that depends on the input.

A few ops are recorded only by internal helpers (no public entry point records them yet:
take_TakeBackward0, put_CopySlices, view_SelectBackward0, view_NarrowBackward0); those
programs call the helpers directly.
"""

import numpy as np
import pytest
from higher import check_higher

import nbgrad
from nbgrad.autograd.graph import needed_rows
from nbgrad.ops import indexing, joins
from nbgrad.ops.registry import OPS
from nbgrad.tape import R_CODE, TAPE

rng = np.random.default_rng(1)
X = rng.uniform(-1, 1, (3, 4))
Y = rng.uniform(-1, 1, (3, 4))
ROW = rng.uniform(-1, 1, (1, 4))
X3 = rng.uniform(-1, 1, (2, 2, 3))
V2 = rng.uniform(-1, 1, (2, 2))


def T(a):
    return nbgrad.tensor(np.asarray(a))


def nl(y):
    """A nonlinear tail, so second derivatives see the op's VJP with a varying cotangent."""
    return nbgrad.sin(y) * y


DUP = T([2, 0, 2])  # duplicate indices: gradients accumulate
MASK = T(rng.uniform(size=(3, 4)) > 0.4)

CASES = {
    # take rows: out = x.flat[pos]
    "index-dup": (lambda x: nl(x[DUP]) * nl(x[:, T([1, 1, -1])]).sum(), X),
    "index-bool": (lambda x: nl(x[MASK]), X),
    "gather": (lambda x: nl(nbgrad.gather(x, -1, T([[0, 0], [3, 1], [2, 2]]))), X),
    "index_select": (lambda x: nl(nbgrad.index_select(x, -2, DUP)), X),
    "max-min-dim": (
        lambda x: nl(x.max(dim=-1).values) * nl(x.min(dim=0, keepdim=True).values).sum(),
        X,
    ),
    "take_along_dim": (
        lambda x: nl(nbgrad.take_along_dim(x, T([[1, 1], [0, 3], [2, 0]]), dim=1)),
        X,
    ),
    "masked_select": (lambda x: nl(x.masked_select(T([[True, False, True, True]]))), X),
    "take": (
        lambda x: nl(indexing.take(x, np.array([5, 0, 5, 11]), (2, 2), "TakeBackward0")),
        X,
    ),
    # add-into rows: out = x, out.flat[dpos] += alpha * src.flat[spos]
    "scatter_add": (
        lambda x, s: nl(x.scatter_add(-1, T([[0, 0], [3, 1], [2, 2]]), s)),
        X,
        rng.uniform(-1, 1, (3, 2)),
    ),
    "index_add": (
        lambda x, s: nl(x.index_add(0, DUP, s, alpha=2.0)),
        X,
        rng.uniform(-1, 1, (3, 4)),
    ),
    "index_put-acc": (
        lambda x, v: nl(x.index_put((DUP, T([1, 3, 1])), v, accumulate=True)),
        X,
        rng.uniform(-1, 1, 3),
    ),
    # overwrite rows: out = x, out.flat[dpos] = src.flat[spos]
    "index_put": (
        # distinct rows: with duplicates PyTorch (and nbgrad) give every write the cotangent
        # at its destination although only the last one lands, so the gradient is not the
        # derivative and no finite difference can check it (test_ops_joins checks it
        # against PyTorch instead)
        lambda x, v: nl(x.index_put((T([2, 0]),), v)),
        X,
        ROW,  # broadcast over the written rows
    ),
    "put-copyslices": (
        lambda x, v: nl(indexing.put(x, v, np.array([1, 6, 7]), np.array([0, 0, 3]), "CopySlices")),
        X,
        V2,
    ),
    "setitem": (lambda x, v: nl(_setitem(x, v)), X, rng.uniform(-1, 1, (2, 1))),
    # joins
    "cat": (lambda x, y: nl(nbgrad.cat([x, y * y], dim=-1)), X[:, :2], Y),
    "stack": (lambda x, y: nl(nbgrad.stack([x, y], dim=1)) * x.sum(), X[:2], Y[:2]),
    # strided views
    "flip": (lambda x: nl(nbgrad.flip(x, (0, -1))) * x, X),
    "repeat": (lambda x: nl(x.repeat(2, 1, 2)), X[:2, :3]),
    "movedim": (lambda x: nl(nbgrad.movedim(x, 0, -1)), X3),
    "narrow": (lambda x: nl(nbgrad.narrow(x, -1, 1, 2)) * x[:, :2], X),
    "split": (lambda x: nl(nbgrad.split(x, 3, dim=-1)[0]) * nbgrad.split(x, 3, -1)[1].sum(), X),
    "split-sizes": (lambda x: nl(nbgrad.split(x, [1, 3], dim=1)[1]) * x[:, :1], X),
    "unbind": (lambda x: nl(nbgrad.unbind(x, dim=-2)[2]) * nbgrad.unbind(x, 1)[0].sum(), X),
    "view-select-narrow": (
        lambda x: (
            nl(joins.view_row(x, x._data[1], "SelectBackward0"))
            * joins.view_row(x, x._data[:, 1:3], "NarrowBackward0").sum()
        ),
        X,
    ),
    # where: condition, a and b broadcast against each other
    "where": (
        lambda a, b: nl(nbgrad.where(T([[True], [False], [True]]), a, b * b)),
        X,
        ROW,
    ),
    # einsum: BLAS rows (batch/m/k/n letters) and generic rows
    "einsum-mm": (
        lambda a, b: nl(nbgrad.einsum("ij,kj->ki", a, b)),
        X[:2, :3],
        Y[:3, :3],
    ),
    "einsum-batched": (
        lambda a, b: nl(nbgrad.einsum("bij,bjk->bik", a, b)),
        X3,
        rng.uniform(-1, 1, (2, 3, 2)),
    ),
    "einsum-diag": (lambda a, b: nl(nbgrad.einsum("ii,i->i", a, b)), V2 * 2, V2[0]),
    "einsum-own-letter": (
        lambda a, b: nl(nbgrad.einsum("ij,j->j", a, b)),  # i only in a: summed
        X[:2, :3],
        Y[0, :3],
    ),
    "einsum-one": (lambda a: nl(nbgrad.einsum("iij->ji", a)), rng.uniform(-1, 1, (2, 2, 3))),
    "einsum-three": (
        lambda a, b, c: nl(nbgrad.einsum("ij,jk,k->i", a, b, c)),  # contracted pairwise
        X[:2, :3],
        Y[:3, :2],
        ROW[0, :2],
    ),
    "einsum-ellipsis": (
        lambda a, b: nl(nbgrad.einsum("...i,i", a, b)),
        X[:2],
        Y[0],
    ),
}


def _setitem(x, v):
    y = x * 1.0  # a non-leaf to write into
    y[1:, ::2] = v
    return y


OPS_COVERED = [
    "take_IndexBackward0",
    "take_GatherBackward0",
    "take_IndexSelectBackward0",
    "take_MaxBackward0",
    "take_MinBackward0",
    "take_TakeAlongDimBackward0",
    "take_MaskedSelectBackward0",
    "take_TakeBackward0",
    "putadd_ScatterAddBackward0",
    "putadd_IndexAddBackward0",
    "putadd_IndexPutBackward0",
    "put_IndexPutBackward0",
    "put_CopySlices",
    "setitem",
    "cat",
    "stack",
    "view_FlipBackward0",
    "view_RepeatBackward0",
    "view_PermuteBackward0",
    "view_SliceBackward0",
    "view_SelectBackward0",
    "view_NarrowBackward0",
    "view_SplitBackward0",
    "view_UnbindBackward0",
    "view_SplitWithSizesBackward0",
    "where",
    "einsum",
    "einsum_bmm",
]


@pytest.mark.parametrize("case", list(CASES))
def test_higher(case):
    fn, *args = CASES[case]
    check_higher(fn, *args)


def test_programs_record_the_ops_covered():
    recorded = set()
    for fn, *args in CASES.values():
        out = fn(*(nbgrad.tensor(a, requires_grad=True) for a in args))
        recorded |= {OPS[int(TAPE.R[k, R_CODE])].name for k in needed_rows([out._slot])}
    assert set(OPS_COVERED) <= recorded, sorted(set(OPS_COVERED) - recorded)
