"""create_graph, batched cotangents and double backward of the rows only internal helpers
record (no public entry point records them yet), by calling the helpers (tests/higher.py).
Each program is nonlinear after the op, so the op's differentiable VJP is differentiated
again with a cotangent that depends on the input. Every public op is checked by the op
table (tests/opinfo/)."""

import numpy as np
import pytest
from higher import check_higher

import nbgrad
from nbgrad._optable import OPS
from nbgrad.autograd.graph import needed_rows
from nbgrad.ops import indexing, joins
from nbgrad.tape import R_CODE, TAPE

rng = np.random.default_rng(1)
X = rng.uniform(-1, 1, (3, 4))
V2 = rng.uniform(-1, 1, (2, 2))


def nl(y):
    """A nonlinear tail, so second derivatives see the op's VJP with a varying cotangent."""
    return nbgrad.sin(y) * y


CASES = {
    # take rows: out = x.flat[pos]
    "take": (
        lambda x: nl(indexing.take(x, np.array([5, 0, 5, 11]), (2, 2), "TakeBackward0")),
        X,
    ),
    # overwrite rows: out = x, out.flat[dpos] = src.flat[spos]
    "put-copyslices": (
        lambda x, v: nl(indexing.put(x, v, np.array([1, 6, 7]), np.array([0, 0, 3]), "CopySlices")),
        X,
        V2,
    ),
    # strided views
    "view-select-narrow": (
        lambda x: (
            nl(joins.view_row(x, x._data[1], "SelectBackward0"))
            * joins.view_row(x, x._data[:, 1:3], "NarrowBackward0").sum()
        ),
        X,
    ),
}


OPS_COVERED = [
    "take_TakeBackward0",
    "put_CopySlices",
    "view_SelectBackward0",
    "view_NarrowBackward0",
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
