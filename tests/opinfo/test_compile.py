"""`nbgrad.compile` of every op of the table: the value and the gradients (a program
that calls autograd.grad) at the trace, at the replay and for new argument values, bit
for bit against eager execution (float64)."""

import numpy as np
import pytest

import nbgrad

from .harness import run_mode
from .table import OPS


def _program(f, n):
    def prog(*args):
        xs, v = args[:n], args[-1]
        out = f(*args[:-1])
        # a scalar loss: compiled programs take no grad_outputs
        return (out, *nbgrad.autograd.grad((out * v).sum(), xs))

    return prog


def _run(prog, arrays, index, v):
    ts = [nbgrad.tensor(a, requires_grad=True) for a in arrays]
    return [t.detach().numpy().copy() for t in prog(*ts, *index, nbgrad.tensor(v))]


def compare(op, s):
    f, arrays = op.bind(s, nbgrad, index_args=True)
    prog = _program(f, len(arrays))
    cf = nbgrad.compile(prog, fallback="raise")
    rng = np.random.default_rng(3)
    shape = tuple(f(*[nbgrad.tensor(a) for a in arrays], *f.index_args).shape)
    v = rng.standard_normal(shape)
    # the trace, the replay, then new values of the same signature
    others = [a + rng.uniform(-0.05, 0.05, a.shape) for a in arrays]
    for arrs in (arrays, arrays, others):
        want = _run(prog, arrs, f.index_args, v)
        for k, (got, exp) in enumerate(zip(_run(cf, arrs, f.index_args, v), want)):
            msg = f"{op.name}{s}: result {k}"
            if "compile" in op.tol:  # an entry that states why its bits may differ
                rtol, atol = op.tol["compile"]
                np.testing.assert_allclose(got, exp, rtol=rtol, atol=atol, err_msg=msg)
            else:
                np.testing.assert_array_equal(got, exp, err_msg=msg)


@pytest.mark.parametrize("op", OPS, ids=repr)
def test_compiled_matches_eager(op):
    def run():
        for s in op.samples()[: op.compile_samples]:
            compare(op, s)

    run_mode(op, "compile", run)
