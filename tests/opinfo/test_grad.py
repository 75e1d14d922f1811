"""First derivatives of every op of the table against finite differences (float64): each
row of the Jacobian from the compiled sweep, and all rows from one batched sweep."""

import pytest

import nbgrad

from .harness import check_grad, run_mode
from .table import OPS


@pytest.mark.parametrize("op", OPS, ids=repr)
def test_grad(op):
    def run():
        for s in op.samples():
            f, arrays = op.bind(s, nbgrad)
            tol = op.tol.get("grad", (1e-5, 1e-6))
            check_grad(f, arrays, tol[0], tol[1], eps=op.eps, what=f"{op.name}{s}")

    run_mode(op, "grad", run)
