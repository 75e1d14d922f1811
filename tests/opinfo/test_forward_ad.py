"""Forward mode (autograd.forward_ad) through every op of the table: the tangent against
the central difference along random input tangents (float64)."""

import pytest

import nbgrad

from .harness import check_jvp, run_mode
from .table import OPS


@pytest.mark.parametrize("op", OPS, ids=repr)
def test_forward_ad(op):
    def run():
        for s in op.samples():
            f, arrays = op.bind(s, nbgrad)
            tol = op.tol.get("fwad", (1e-5, 1e-6))
            check_jvp(f, arrays, rtol=tol[0], atol=tol[1], eps=op.eps, what=f"{op.name}{s}")

    run_mode(op, "fwad", run)
