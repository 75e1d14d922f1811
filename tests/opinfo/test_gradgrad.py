"""Second derivatives of every op of the table (create_graph) against finite differences
of the first derivative (float64)."""

import pytest

import nbgrad

from .harness import check_gradgrad, run_mode
from .table import OPS


@pytest.mark.parametrize("op", OPS, ids=repr)
def test_gradgrad(op):
    def run():
        for s in op.samples():
            f, arrays = op.bind(s, nbgrad)
            tol = op.tol.get("gradgrad", (1e-4, 1e-5))
            check_gradgrad(f, arrays, rtol=tol[0], atol=tol[1], eps=op.eps, what=f"{op.name}{s}")

    run_mode(op, "gradgrad", run)
