"""The op table's attribute schemas: named positions, a variable-length tail, and rows
recorded by the ops decoded by name to the values the op was called with."""

import numpy as np
import pytest

import nbgrad as nb
from nbgrad._optable import BY_NAME, OPS, attrs, declare
from nbgrad.autograd.derivatives import Row
from nbgrad.tape import R_CODE, TAPE


def test_every_op_is_declared_with_named_attributes():
    """One way to add an op (`declare`): every op, the generated elementwise ones and the
    device moves included, has an attribute schema (empty where its rows hold none)."""
    assert [op.name for op in OPS if op.a is None or op.f is None] == []
    assert BY_NAME["mul_ts"].unpack_f([2.5]).c == 2.5  # a scalar operand, by name
    # the device moves are declared whether or not the CUDA backend was loaded
    assert all(BY_NAME[n].cuda_vjp is not None for n in ("to", "to_cuda", "to_cpu"))
    with pytest.raises(ValueError, match="declared twice"):
        declare("to", "ToCopyBackward0")


def test_every_op_has_a_differentiable_vjp():
    """create_graph, forward mode and batched gradients reach every op: by its declared
    `dvjp`, or, for the elementwise ops, by their scalar rules; a custom Function's row
    runs its own backward."""
    from nbgrad.autograd.derivatives import DVJP, _load

    _load()
    assert {op.name for op in OPS} - set(DVJP) == {"custom"}
    declared = {op.name for op in OPS if op.dvjp is not None}
    assert declared == {op.name for op in OPS if op.rule is None} - {"custom"}


def test_positions_and_a_tail():
    a = attrs("offset", "nd", "*dims")
    assert (a.offset, a.nd, a.dims) == (0, 1, 2)
    op = declare("_test_tail_op", "TestBackward0", a=a)
    try:
        packed = op.pack(offset=5, nd=2, dims=(3, 4, 8, 1))
        assert packed == (5, 2, 3, 4, 8, 1)
        got = op.unpack(np.array(packed, np.int64))
        assert (got.offset, got.nd, got.dims) == (5, 2, (3, 4, 8, 1))
        assert op.unpack(np.array((1, 0), np.int64)).dims == ()  # an empty tail
        with pytest.raises(TypeError):
            op.pack(offset=5, nd=2)  # a missing name
        with pytest.raises(TypeError):
            op.pack(offset=5, nd=2, dims=(), extra=1)  # an unknown one
    finally:
        from nbgrad import _optable

        _optable.OPS.pop()
        del _optable.BY_NAME["_test_tail_op"]


def test_only_a_tail():
    op = declare("_test_only_tail", "TestBackward0", a=attrs("*strides"))
    try:
        assert op.pack(strides=[2, 1]) == (2, 1)
        assert op.unpack([2, 1]).strides == (2, 1)
    finally:
        from nbgrad import _optable

        _optable.OPS.pop()
        del _optable.BY_NAME["_test_only_tail"]


def _rows(fn):
    """(op name, attrs by name) of every row `fn` records."""
    start = TAPE.n
    fn()
    out = []
    for k in range(start, TAPE.n):
        name = OPS[int(TAPE.R[k, R_CODE])].name
        out.append((name, Row(k, name, 0, ()).attrs()))
    return out


def test_recorded_rows_decode_by_name():
    x = nb.arange(24.0).reshape(2, 3, 4).requires_grad_()
    y = nb.ones(2, 2, 4, requires_grad=True)
    keep = []  # (the rows stay on the tape while their outputs live)
    rows = _rows(lambda: keep.append(x[1, :, 1:3]))
    assert rows[-1][0] == "slice"  # (named by its last step); element (1, i, 1 + j)
    assert rows[-1][1].offset == 12 + 1 and rows[-1][1].strides == (4, 1)
    ((name, a),) = _rows(lambda: keep.append(nb.cat([x, y], 1)))
    assert name == "cat" and (a.outer, a.total, a.nin, a.lengths) == (2, 20, 2, (12, 8))
    ((name, a),) = _rows(lambda: keep.append(x.flip(2)))
    assert name == "view_FlipBackward0" and (a.offset, a.nd) == (3, 3)
    assert a.dims == (2, 3, 4, 12, 4, -1)  # the view's shape, then its strides
    w = nb.ones(5, 4, requires_grad=True)
    ((name, a),) = _rows(lambda: keep.append(nb.nn.functional.linear(x, w)))
    assert name == "linear_nobias" and tuple(a) == (6, 4, 5, 0)
    wt = w.detach().t()
    ((name, a),) = _rows(lambda: keep.append(x @ wt))
    assert name == "matmul_batched" and (a.B, a.m, a.k, a.n) == (1, 6, 4, 5)
    ((name, a),) = _rows(lambda: keep.append(nb.nn.functional.leaky_relu(x, 0.25)))
    assert name == "leaky_relu" and Row(TAPE.n - 1, name, 0, ()).float_attrs().p0 == 0.25


def test_einsum_rows_record_their_equation_and_layout():
    from nbgrad.ops.einsum import equation

    a = nb.arange(24.0).reshape(2, 3, 4).requires_grad_()
    b = nb.ones(2, 4, 5, requires_grad=True)
    keep = []
    # a batched product whose output is permuted: (batch, m, n) letters laid out as "bki"
    ((name, r),) = _rows(lambda: keep.append(nb.einsum("bij,bjk->bki", a, b)))
    assert name == "einsum_bmm" and (r.nb, r.nm, r.nk, r.nn) == (2, 3, 4, 5)
    assert equation(name, r) == "bij,bjk->bki"
    # the output walked in (b, i, k) order: shape (2, 3, 5), strides in "bki" (2, 5, 3)
    assert r.layout[:7] == (3, 2, 3, 5, 15, 1, 3)
    # a trace times a vector: no BLAS layout (a repeated letter)
    v = nb.ones(3, requires_grad=True)
    sq = nb.ones(3, 3, requires_grad=True)
    ((name, r),) = _rows(lambda: keep.append(nb.einsum("ii,j->j", sq, v)))
    assert name == "einsum" and (r.nops, r.L) == (2, 2)
    assert equation(name, r) == "ii,j->j"
    L = r.L  # sizes (i, j), strides of the output, of sq (i on the diagonal: 3 + 1), of v
    assert r.walk[: 4 * L] == (3, 3, 0, 1, 4, 0, 0, 1)
