"""The table itself: it reaches every op of nbgrad's op registry, its entries are well
formed, and the harness fails on a wrong derivative."""

import numpy as np
import pytest

import nbgrad
from nbgrad._optable import OPS as REGISTRY
from nbgrad.autograd import forward_ad as fwAD
from nbgrad.autograd.graph import needed_rows
from nbgrad.ops.indexing import _VIEW_TAKE_NODES
from nbgrad.tape import R_CODE, TAPE

from .harness import check_grad, check_gradgrad, check_jvp
from .table import MODES, OPS

# rows no public function records: device moves (test_cuda.py), and the rows only internal
# helpers record (tests/test_higher_ops_shape.py)
NOT_PUBLIC = {
    "unsafe_view",  # registered, but no code path records these two
    "index_basic",
    # maximum/minimum take tensors only, as in PyTorch: their rows for a Python number
    # are recorded by nbgrad's own code only
    "maximum_ts",
    "maximum_st",
    "minimum_ts",
    "minimum_st",
    # nn.LSTM's fused recurrence (one row per layer and direction): nn.LSTM is a module,
    # not a function of the table; tests/test_lstm_fused.py checks it in every mode
    "lstm_seq",
    "to_cuda",
    "to_cpu",
    "take_TakeBackward0",
    "put_CopySlices",
    "view_SelectBackward0",
    "view_NarrowBackward0",
}
# the take rows CUDA slices, flips, splits, ... record (on the CPU these ops are strided or
# view rows): the table's CUDA mode checks them (opinfo/test_cuda.py)
NOT_PUBLIC |= {"take_" + n for n in _VIEW_TAKE_NODES}


def _recorded(op):
    names = set()
    for s in op.samples():
        f, arrays = op.bind(s, nbgrad)
        out = f(*[nbgrad.tensor(a, requires_grad=True) for a in arrays])
        names |= {REGISTRY[int(TAPE.R[k, R_CODE])].name for k in needed_rows([out._slot])}
    return names


def test_table_records_every_registered_op():
    seen = set().union(*(_recorded(op) for op in OPS))
    missing = {o.name for o in REGISTRY} - seen - NOT_PUBLIC
    assert not missing, sorted(missing)


def test_entries_are_well_formed():
    for op in OPS:
        assert op.samples(), op
        assert set(op.unsupported) <= set(MODES), op
        assert all(u.reason for u in op.unsupported.values()), op


class _Wrong(nbgrad.autograd.Function):
    """x * x with the derivative of 3x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3.0 * x


class _Detached(nbgrad.autograd.Function):
    """x * x with the right derivative, computed from a detached x: its own derivative
    (the second) is lost."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2.0 * x.detach()


X = np.array([0.5, -1.0, 2.0])


def test_harness_fails_on_a_wrong_derivative():
    with pytest.raises(AssertionError):
        check_grad(_Wrong.apply, [X])
    check_grad(_Detached.apply, [X])  # right to first order


def test_harness_fails_on_a_wrong_second_derivative():
    with pytest.raises(AssertionError):
        check_gradgrad(_Detached.apply, [X])


def test_harness_fails_on_a_wrong_tangent():
    """Forward mode sees x * x; the differences see a function with the same value at X
    and another slope."""

    def f(t):
        if fwAD.unpack_dual(t).tangent is not None:
            return t * t
        return t * t + (t - nbgrad.tensor(X)) * 0.5

    with pytest.raises(AssertionError, match="jvp"):
        check_jvp(f, [X])
