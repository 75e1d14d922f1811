"""Correctness regressions where an op once crashed, wrote where it must not, or answered
differently from PyTorch: unbind's 0-d views, the dimension limit, std of a constant,
floor/ceil of huge values, outer's checks, optimizers on read-only memory, index bounds
and loss targets, atomic saves, and in-place writes through views.

PyTorch is the oracle where installed (the tests using it skip without it); closed forms
otherwise. Cases that once crashed the interpreter run in a subprocess, so a crash fails
the test instead of killing the test worker."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import nbgrad as nb
from nbgrad import tape

ROOT = Path(__file__).resolve().parents[1]


def _run(code):
    """Run `code` in a fresh interpreter on this checkout; return its stdout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p.stdout


def _torch():
    return pytest.importorskip("torch")


# -- unbind: its 0-d outputs are views of the input ------------------------------------
def test_unbind_of_1d_leaf_backward_in_subprocess():
    out = _run(
        """
        import nbgrad as torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        a, b = x.unbind(0)
        (a * 2 + b * 3).backward()
        print(x.grad.tolist())
        y = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y[0].unbind(0)[1].backward()
        print(y.grad.tolist())
        """
    )
    lines = out.split("\n")
    assert lines[0] == "[2.0, 3.0]"
    assert lines[1] == "[[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]"


@pytest.mark.parametrize("shape,dim", [((3,), 0), ((2, 3), 1), ((2, 3, 2), 2), ((4, 1), 0)])
def test_unbind_gradients_match_torch(shape, dim):
    torch = _torch()
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape)
    x, xt = nb.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    w = rng.standard_normal(shape[dim])
    sum(p * float(c) for p, c in zip(x.unbind(dim), w)).sum().backward()
    sum(p * float(c) for p, c in zip(xt.unbind(dim), w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)


# -- at most tape.MAXD dims ----------------------------------------------------------------
_TOO_MANY = f"at most {tape.MAXD} dimensions"


@pytest.mark.parametrize(
    "make",
    [
        lambda x, a: nb.zeros([1] * 11),
        lambda x, a: nb.ones([1] * 11, requires_grad=True),
        lambda x, a: nb.randn([1] * 11),
        lambda x, a: nb.full([1] * 11, 2.0),
        lambda x, a: nb.tensor(a.tolist()),
        lambda x, a: nb.from_numpy(a),
        lambda x, a: nb.as_tensor(a),
        lambda x, a: nb.nn.Parameter(a),
        lambda x, a: x.unsqueeze(0),
        lambda x, a: x.reshape([1] * 11),
        lambda x, a: x.view([1] * 11),
        lambda x, a: x.expand([1] * 11),
        lambda x, a: x[None],
        lambda x, a: x.detach()[None],
        lambda x, a: nb.stack([x, x]),
        lambda x, a: nb.einsum("a,b,c,d,e,f,g,h,i,j,k->abcdefghijk", *[x.reshape(1)] * 11),
    ],
)
def test_more_dims_than_the_tape_holds_are_refused(make):
    x = nb.zeros([1] * 10, requires_grad=True)
    a = np.zeros([1] * 11)
    with pytest.raises(RuntimeError, match=_TOO_MANY):
        make(x, a)


def test_max_dims_still_differentiate_in_subprocess():
    """MAXD dims work end to end (transpose across all of them included), and an
    attempt at MAXD + 1 leaves the tape usable."""
    out = _run(
        """
        import nbgrad as torch
        x = torch.arange(2.0 ** 10).reshape([2] * 10).requires_grad_()
        try:
            x.unsqueeze(0)
        except RuntimeError:
            pass
        w = torch.arange(2.0 ** 10).reshape([2] * 10)
        (x.transpose(0, 9) * w).sum().backward()
        print((x.grad - w.transpose(0, 9)).abs().max().item())
        """
    )
    assert out.strip() == "0.0"


# -- std of a constant -------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["std", "var"])
@pytest.mark.parametrize("dim", [None, 0, 1])
@pytest.mark.parametrize("correction", [0, 1])
def test_std_var_of_constant_have_zero_gradient(fn, dim, correction):
    x = nb.full((2, 3), 2.0, requires_grad=True)
    y = getattr(x, fn)() if dim is None else getattr(x, fn)(dim, correction=correction)
    y.sum().backward()
    assert x.grad.tolist() == [[0.0] * 3] * 2


def test_std_mixed_groups_and_double_backward_match_torch():
    torch = _torch()
    a = np.array([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]])
    w = np.arange(6.0).reshape(2, 3)
    res = []
    for mod, mk in ((nb, nb.tensor), (torch, torch.tensor)):
        x = mk(a, requires_grad=True)
        (g,) = mod.autograd.grad(x.std(1).sum(), x, create_graph=True)
        (h,) = mod.autograd.grad((g * mk(w)).sum(), x)
        res.append((g.detach().numpy(), h.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-12, atol=1e-15)
    assert not np.isnan(res[0][1]).any()


def test_std_of_one_element_is_nan_gradient_as_torch():
    x = nb.tensor([2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="degrees of freedom"):
        y = x.std()
    y.backward()
    assert np.isnan(x.grad.item())


# -- floor / ceil / round of huge values ----------------------------------------------------
_BIG = [2.0**63, -(2.0**63), 1e19, -3e30, 2.0**70, 1.5, -0.5, -0.0, np.inf, -np.inf, 2.5]


@pytest.mark.parametrize("name", ["floor", "ceil", "round"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_floor_ceil_round_of_huge_values(name, dtype):
    a = np.array(_BIG + [np.nan], dtype=dtype)
    got = getattr(nb.tensor(a), name)().numpy()
    want = {"floor": np.floor, "ceil": np.ceil, "round": np.rint}[name](a)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # -0.0 kept
    x = nb.tensor(a, requires_grad=True)
    y = getattr(x, name)()
    y.backward(nb.ones_like(y))
    assert (x.grad.numpy() == 0).all()


# -- outer ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "sa,sb", [((2, 2), (3,)), ((3,), (2, 2)), ((), (3,)), ((3,), ()), ((2, 2), (2, 2))]
)
def test_outer_refuses_non_vectors_as_torch(sa, sb):
    torch = _torch()
    with pytest.raises(RuntimeError) as et:
        torch.outer(torch.ones(sa), torch.ones(sb))
    a, b = nb.ones(sa), nb.ones(sb)
    for call in (lambda: nb.outer(a, b), lambda: a.outer(b)):
        with pytest.raises(RuntimeError) as en:
            call()
        assert str(en.value) == str(et.value)


@pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")
def test_outer_on_cuda():
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])
    w = np.arange(6.0).reshape(2, 3)
    x = nb.tensor(a, device="cuda", requires_grad=True)
    y = nb.tensor(b, device="cuda", requires_grad=True)
    out = nb.outer(x, y)
    assert out.is_cuda
    np.testing.assert_allclose(out.detach().cpu().numpy(), np.outer(a, b))
    (out * nb.tensor(w, device="cuda")).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), w @ b)
    np.testing.assert_allclose(y.grad.cpu().numpy(), a @ w)
    with pytest.raises(RuntimeError, match="Expected 1-D argument self, but got 2-D"):
        nb.outer(nb.ones(2, 2, device="cuda"), y)


# -- optimizers and read-only memory -------------------------------------------------------
def _readonly_param():
    buf = np.arange(4, dtype=np.float32).tobytes()
    p = nb.nn.Parameter(nb.from_numpy(np.frombuffer(buf, np.float32)))
    p.grad = nb.ones(4)
    return buf, p


@pytest.mark.parametrize(
    "make",
    [
        lambda p: nb.optim.SGD([p], lr=0.1),
        lambda p: nb.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.1),
        lambda p: nb.optim.Adam([p]),
        lambda p: nb.optim.AdamW([p]),
        lambda p: nb.optim.RMSprop([p]),
    ],
)
def test_optimizer_step_refuses_read_only_parameters(make):
    buf, p = _readonly_param()
    with pytest.raises(ValueError) as e_op, nb.no_grad():
        p.add_(1)  # the refusal every other in-place op gives
    opt = make(p)
    with pytest.raises(ValueError) as e_step:
        opt.step()
    assert str(e_step.value) == str(e_op.value)
    assert np.frombuffer(buf, np.float32).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert opt.state.get(p) in (None, {})  # refused before any state was made


def test_optimizer_refuses_read_only_state_but_reads_read_only_grads():
    p = nb.nn.Parameter(nb.zeros(3))
    p.grad = nb.from_numpy(np.frombuffer(np.ones(3, np.float32).tobytes(), np.float32))
    opt = nb.optim.SGD([p], lr=0.5, momentum=0.9)
    opt.step()  # a read-only gradient is only read
    assert p.detach().tolist() == [-0.5] * 3
    ro = np.zeros(3, np.float32)
    ro.flags.writeable = False
    opt.state[p]["momentum_buffer"] = nb.from_numpy(ro)
    with pytest.raises(ValueError, match="read-only"):
        opt.step()
    assert p.detach().tolist() == [-0.5] * 3


def test_advanced_setitem_on_read_only_memory_reports_read_only():
    x = nb.from_numpy(np.frombuffer(np.zeros(3).tobytes()))
    with pytest.raises(ValueError, match="read-only"):
        x[nb.tensor([0])] = 5.0


# -- index bounds: negative indices are out of bounds where PyTorch says so ------------------
def _same_error(f_nb, f_t):
    with pytest.raises(Exception) as et:
        f_t()
    with pytest.raises(type(et.value)) as en:
        f_nb()
    assert str(en.value) == str(et.value)


_X = np.arange(6.0).reshape(2, 3)

_INDEX_CASES = {
    "gather_neg": lambda m, x: x.gather(1, m.tensor([[-1], [0]])),
    "gather_big": lambda m, x: x.gather(1, m.tensor([[3], [0]])),
    "scatter_add_neg": lambda m, x: x.scatter_add(1, m.tensor([[-1], [0]]), m.ones(2, 1).double()),
    "index_select_neg_d0": lambda m, x: x.index_select(0, m.tensor([-1])),
    "index_select_neg_d1": lambda m, x: x.index_select(1, m.tensor([-1])),
    "index_select_big_d1": lambda m, x: x.index_select(1, m.tensor([3])),
    "index_select_neg_1d": lambda m, x: x.reshape(-1).index_select(0, m.tensor([-2])),
    "index_select_neg_3d": lambda m, x: x.reshape(1, 2, 3).index_select(2, m.tensor([-1])),
    "index_add_neg": lambda m, x: x.index_add(1, m.tensor([-1]), m.ones(2, 1).double()),
    "index_add_big": lambda m, x: x.index_add(1, m.tensor([3]), m.ones(2, 1).double()),
    "embedding_neg": lambda m, x: m.nn.Embedding(3, 2)(m.tensor([-1])),
    "embedding_big": lambda m, x: m.nn.Embedding(3, 2)(m.tensor([3])),
}


@pytest.mark.parametrize("case", list(_INDEX_CASES))
def test_index_bounds_errors_match_torch(case):
    torch = _torch()
    f = _INDEX_CASES[case]
    _same_error(lambda: f(nb, nb.tensor(_X)), lambda: f(torch, torch.tensor(_X)))


def test_take_along_dim_still_wraps_negative_indices_as_torch():
    torch = _torch()
    idx = [[-1], [0]]
    got = nb.take_along_dim(nb.tensor(_X), nb.tensor(idx), 1).numpy()
    want = torch.take_along_dim(torch.tensor(_X), torch.tensor(idx), 1).numpy()
    np.testing.assert_array_equal(got, want)


def test_embedding_takes_int32_indices():
    torch = _torch()
    w = np.arange(6.0).reshape(3, 2)
    e = nb.nn.Embedding.from_pretrained(nb.tensor(w), freeze=False)
    et = torch.nn.Embedding.from_pretrained(torch.tensor(w), freeze=False)
    i = np.array([2, 0, 2], np.int32)
    e(nb.tensor(i)).sum().backward()
    et(torch.tensor(i)).sum().backward()
    np.testing.assert_array_equal(e.weight.grad.numpy(), et.weight.grad.numpy())


@pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")
def test_cuda_index_bounds_refuse_negative_indices():
    x = nb.tensor(_X, device="cuda")
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 1"):
        x.gather(1, nb.tensor([[-1], [0]], device="cuda"))
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_select(0, nb.tensor([-1], device="cuda"))


# -- loss targets ---------------------------------------------------------------------------
_LOGITS = np.array([[0.2, -1.0, 0.5], [1.5, 0.3, -0.2]])

_TARGET_CASES = {
    "ce_int32": lambda m, F, x: F.cross_entropy(x, m.tensor([0, 1], dtype=m.int32)),
    "nll_int32": lambda m, F, x: F.nll_loss(x, m.tensor([0, 1], dtype=m.int32)),
    "ce_int32_3d": lambda m, F, x: F.cross_entropy(
        x.reshape(1, 2, 3), m.tensor([[0, 1, 1]], dtype=m.int32)
    ),
    "ce_bool": lambda m, F, x: F.cross_entropy(x, m.tensor([True, False])),
    "nll_float": lambda m, F, x: F.nll_loss(x, m.tensor([0.0, 1.0], dtype=m.float64)),
    "ce_neg": lambda m, F, x: F.cross_entropy(x, m.tensor([-1, 1])),
    "bce_target_above": lambda m, F, x: F.binary_cross_entropy(
        m.tensor([0.5, 0.2]), m.tensor([1.5, 0.0])
    ),
    "bce_target_below": lambda m, F, x: F.binary_cross_entropy(
        m.tensor([0.5, 0.2]), m.tensor([1.0, -0.5])
    ),
    "bce_target_nan": lambda m, F, x: F.binary_cross_entropy(
        m.tensor([0.5, 0.2]), m.tensor([float("nan"), 0.0])
    ),
    "bce_input_and_target": lambda m, F, x: F.binary_cross_entropy(
        m.tensor([1.5, 0.2]), m.tensor([1.5, 0.0])
    ),
}


@pytest.mark.parametrize("case", list(_TARGET_CASES))
def test_loss_target_errors_match_torch(case):
    torch = _torch()
    f = _TARGET_CASES[case]
    _same_error(
        lambda: f(nb, nb.nn.functional, nb.tensor(_LOGITS)),
        lambda: f(torch, torch.nn.functional, torch.tensor(_LOGITS)),
    )


def test_bce_targets_at_the_bounds_and_logits_targets_are_accepted_as_torch():
    torch = _torch()
    p, t = [0.3, 0.9, 0.5], [0.0, 1.0, 0.25]
    got = nb.nn.functional.binary_cross_entropy(nb.tensor(p), nb.tensor(t)).item()
    want = torch.nn.functional.binary_cross_entropy(torch.tensor(p), torch.tensor(t)).item()
    assert got == pytest.approx(want, rel=1e-6)
    t2 = [1.5, -0.5, 0.25]  # with logits: any target, as PyTorch
    got = nb.nn.functional.binary_cross_entropy_with_logits(nb.tensor(p), nb.tensor(t2))
    want = torch.nn.functional.binary_cross_entropy_with_logits(torch.tensor(p), torch.tensor(t2))
    assert got.item() == pytest.approx(want.item(), rel=1e-6)


@pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")
def test_cuda_bce_target_range_and_int32_targets():
    F = nb.nn.functional
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(nb.tensor([0.5], device="cuda"), nb.tensor([1.5], device="cuda"))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Int"):
        F.cross_entropy(
            nb.tensor(_LOGITS, device="cuda"), nb.tensor([0, 1], dtype=nb.int32, device="cuda")
        )


# -- nbgrad.save replaces the file atomically -------------------------------------------------
def test_save_interrupted_midway_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    from nbgrad import serialization

    path = tmp_path / "ck.pt"
    nb.save({"w": nb.ones(3)}, path)
    before = path.read_bytes()

    def dies_midway(fh, arrays):
        fh.write(b"PK\x03\x04 half a zip")
        raise KeyboardInterrupt

    monkeypatch.setattr(serialization, "_write_npz", dies_midway)
    with pytest.raises(KeyboardInterrupt):
        nb.save({"w": nb.zeros(3)}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ck.pt"]  # no temporary file left behind
    monkeypatch.undo()
    assert nb.load(path)["w"].tolist() == [1.0, 1.0, 1.0]


def test_save_replaces_keeps_mode_and_writes_through_symlinks(tmp_path):
    path = tmp_path / "ck.pt"
    nb.save(nb.ones(2), path)
    os.chmod(path, 0o640)
    nb.save(nb.zeros(2), path)
    assert nb.load(path).tolist() == [0.0, 0.0]
    assert os.stat(path).st_mode & 0o777 == 0o640
    link = tmp_path / "latest.pt"
    link.symlink_to(path)
    nb.save(nb.full((2,), 7.0), link)
    assert link.is_symlink() and nb.load(path).tolist() == [7.0, 7.0]
    assert sorted(os.listdir(tmp_path)) == ["ck.pt", "latest.pt"]


# -- in-place writes through views reach the base (PyTorch's view semantics) ------------------
_VIEW_WRITES = {
    "row_zero": lambda m, x: x[0].zero_(),
    "col_zero": lambda m, x: x[:, 0].zero_(),
    "col_setitem": lambda m, x: x[:, 1].__setitem__(0, 7.0),
    "col_add": lambda m, x: x[:, 0].add_(1),
    "t_mul": lambda m, x: x.t().mul_(2),
    "T_row_fill": lambda m, x: x.T[2].fill_(-1),
    "permute_div": lambda m, x: x.permute(1, 0).div_(4),
    "row_iadd": lambda m, x: x[1].__iadd__(1),
    "narrow_fill": lambda m, x: x.narrow(1, 0, 1).fill_(9),
    "unbind_fill": lambda m, x: x.unbind(1)[0].fill_(9),
    "split_mul": lambda m, x: x.split(2, 1)[1].mul_(3),
    "chunk_sub": lambda m, x: x.chunk(3, 1)[2].sub_(1),
    "movedim_add": lambda m, x: x.movedim(0, 1)[0].add_(5),
    "detach_col": lambda m, x: x[:, 0].detach().zero_(),
    "data_col": lambda m, x: x[:, 2].data.fill_(3),
    "view_slice": lambda m, x: x.view(6)[1:3].zero_(),
    "col_view": lambda m, x: x[:, 0].view(2, 1).add_(1),
    "t_then_row": lambda m, x: x.t()[0].zero_(),
    "stepped": lambda m, x: x[:, ::2].mul_(-1),
    "col_copy": lambda m, x: x[:, 0].copy_(m.ones(2, dtype=m.float64)),
    "col_clamp": lambda m, x: x[:, 0].clamp_(max=0.5),
    "expand_row": lambda m, x: x[0:1].expand(2, 3)[0].add_(1),
    "expand_fill": lambda m, x: x[0:1].expand(2, 3).fill_(3),
    "expand_zero_col": lambda m, x: x[0:1].expand(2, 3)[:, 0].zero_(),
    "expand_setitem_one": lambda m, x: x[0:1].expand(2, 3).__setitem__((0, 1), 7.0),
    "contiguous_copy": lambda m, x: x[:, 0].contiguous().zero_(),
    "clone_copy": lambda m, x: x[:, 0].clone().zero_(),
    "unsqueeze_col": lambda m, x: x[:, 1].unsqueeze(0).mul_(10),
}


def _view_write(mod, case, device=None, graph=False):
    x = mod.arange(6.0, dtype=mod.float64).reshape(2, 3)
    if device is not None:
        x = x.to(device)
    if graph:
        x = x.clone().requires_grad_() * 1
    _VIEW_WRITES[case](mod, x)
    return x.detach().cpu().numpy()


@pytest.mark.parametrize("graph", [False, True])
@pytest.mark.parametrize("case", list(_VIEW_WRITES))
def test_inplace_write_through_view_reaches_base_as_torch(case, graph):
    torch = _torch()
    if graph and case in ("unbind_fill", "split_mul", "chunk_sub"):
        pytest.skip("PyTorch refuses these in a graph (tested below)")
    got = _view_write(nb, case, graph=graph)
    np.testing.assert_array_equal(got, _view_write(torch, case, graph=graph))


def test_view_write_reaches_base_without_torch():
    x = nb.arange(6.0).reshape(2, 3)
    x[:, 0].zero_()
    x[:, 1][0] = 7
    x.t()[2].mul_(2)
    assert x.tolist() == [[0.0, 7.0, 4.0], [0.0, 4.0, 10.0]]


def test_no_grad_init_through_views_of_a_parameter():
    p = nb.nn.Parameter(nb.ones(2, 3))
    with nb.no_grad():
        p[:, 0].zero_()
        p.t()[2].fill_(5)
        p[1].mul_(2)
    assert p.is_leaf and p.requires_grad
    assert p.detach().tolist() == [[0.0, 1.0, 5.0], [0.0, 2.0, 10.0]]


def test_nn_init_through_views_of_a_parameter():
    p = nb.nn.Parameter(nb.ones(2, 3, dtype=nb.float64))
    nb.nn.init.zeros_(p[:, 0])
    nb.nn.init.constant_(p.t()[2], 4.0)
    nb.nn.init.eye_(p[:, 1:])
    assert p.is_leaf and p.detach().tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]


_A = np.arange(1.0, 7.0).reshape(2, 3)
_Z = np.array([0.5, -1.5])
_W = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]])

_VIEW_GRADS = {
    "col_add": lambda m, a, z, w: _l(m, _do(a * 1, lambda y: y[:, 0].add_(z)), w),
    "t_mul": lambda m, a, z, w: _l(m, _do(a * 1, lambda y: y.t().mul_(2)), w) + z.sum(),
    "col_zero": lambda m, a, z, w: _l(m, _do(a * 1, lambda y: y[:, 0].zero_()), w) + z.sum(),
    "chain": lambda m, a, z, w: _l(m, _do(a * 1, lambda y: y.t()[2].mul_(z[0])), w),
    "copy": lambda m, a, z, w: _l(m, _do(a * 2, lambda y: y[:, 2].copy_(z)), w),
    "view_used": lambda m, a, z, w: _used(m, a, z, w),
    "setitem_view": lambda m, a, z, w: _setitem_view(m, a, z, w),
    "narrow": lambda m, a, z, w: _l(m, _do(a * 1, lambda y: y.narrow(1, 1, 2).mul_(z[:, None])), w),
    "clamp_permute": lambda m, a, z, w: (
        _l(m, _do(a.sin(), lambda y: y.permute(1, 0)[1:, :].clamp_(max=0.5)), w) + z.sum()
    ),
    "into_constant": lambda m, a, z, w: (
        _l(m, _do(m.zeros(2, 3, dtype=m.float64), lambda y: y[:, 1].add_(z)), w) + a.sum()
    ),
    "twice": lambda m, a, z, w: _l(
        m, _do(_do(a * 1, lambda y: y[1].add_(z[0])), lambda y: y[:, 1].mul_(z[1])), w
    ),
    "combined": lambda m, a, z, w: _combined(m, a, z, w),
}


def _do(y, f):
    f(y)
    return y


def _l(m, y, w):
    return (y * y * m.tensor(w, device=y.device)).sum()


def _used(m, a, z, w):
    y = a * 1
    v = y[:, 0]
    v.mul_(z)
    return (v * 10).sum() + _l(m, y, w)


def _setitem_view(m, a, z, w):
    y = a * 1
    v = y[:, 1]
    v[0] = z[1] * 3
    return _l(m, y, w) + (v * v).sum()


def _combined(m, a, z, w):
    y = a * 1
    y[:, 0].add_(z)
    y.t()[2].mul_(z[0])
    y[:, 1].zero_()
    v = y[1]
    v[2] = z[1] * 3
    return _l(m, y, w)


def _grads(mod, case, device=None):
    kw = {} if device is None else {"device": device}
    a = mod.tensor(_A, requires_grad=True, **kw)
    z = mod.tensor(_Z, requires_grad=True, **kw)
    loss = _VIEW_GRADS[case](mod, a, z, _W)
    loss.backward()
    return loss.item(), a.grad.cpu().numpy(), z.grad.cpu().numpy()


@pytest.mark.parametrize("case", list(_VIEW_GRADS))
def test_inplace_write_through_view_gradients_match_torch(case):
    torch = _torch()
    got, want = _grads(nb, case), _grads(torch, case)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


_VIEW_REFUSALS = {
    "expand": lambda m, x, leaf: x[0:1].expand(2, 3).add_(1),
    "expand_col": lambda m, x, leaf: x[0:1].expand(2, 3)[:, 0].mul_(2),
    "expand_copy": lambda m, x, leaf: x[0:1].expand(2, 3).copy_(m.ones(2, 3, dtype=m.float64)),
    "expand_setitem": lambda m, x, leaf: x[0:1].expand(2, 3).__setitem__((slice(None), 1), 7.0),
    "leaf_view": lambda m, x, leaf: leaf[:, 0].add_(1),
    "leaf_view_zero": lambda m, x, leaf: leaf.t()[0].zero_(),
    "leaf_view_setitem": lambda m, x, leaf: leaf[:, 0].__setitem__(0, 1.0),
    "unbind": lambda m, x, leaf: x.unbind(1)[1].add_(1),
    "split": lambda m, x, leaf: x.split(1, 1)[2].mul_(2),
    "split_sizes": lambda m, x, leaf: x.split([1, 2], 1)[0].fill_(2),
    "chunk": lambda m, x, leaf: x.chunk(3, 1)[0].zero_(),
}


@pytest.mark.parametrize("case", list(_VIEW_REFUSALS))
def test_inplace_write_through_view_refusals_match_torch(case):
    torch = _torch()

    def run(m):
        leaf = m.arange(6.0, dtype=m.float64).reshape(2, 3).requires_grad_()
        return _VIEW_REFUSALS[case](m, leaf * 1, leaf)

    _same_error(lambda: run(nb), lambda: run(torch))


def test_refused_view_write_changes_nothing():
    leaf = nb.arange(6.0).reshape(2, 3).requires_grad_()
    y = leaf * 1
    col = y[:, 0]
    with pytest.raises(RuntimeError):
        leaf[:, 0].add_(1)
    with pytest.raises(RuntimeError):
        y.unbind(1)[0].add_(1)
    assert leaf.detach().tolist() == y.detach().tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert col.tolist() == [0.0, 3.0]


# -- views taken before a write see it (PyTorch's views are windows on one storage) ----------
def _earlier_views(m, case, graph):
    """Take views of a tensor, write the tensor (or another view of it), then read the views
    taken before: their values, and with `graph` a loss through them and its gradients."""
    a = m.tensor(_A, requires_grad=graph)
    z = m.tensor(_Z, requires_grad=graph)
    y = a * 1
    views = [y.t(), y[:, 1], y[0:], y.t()[2], y[:, 1:].t()]
    if case == "root_add":
        y.add_(z[0])
    elif case == "root_mul_tensor":
        y.mul_(m.tensor(_W))
    elif case == "through_transpose":
        y.t().mul_(z[1])
    elif case == "through_column":
        y[:, 2].copy_(z)
    elif case == "setitem":
        y[1, 1] = z[0] * 5
    elif case == "fill":
        y.fill_(2.0)
    elif case == "twice":
        y[:, 0].add_(z)
        y.t()[1].mul_(3)
    vals = [v.detach().cpu().numpy().copy() for v in views]
    if not graph:
        return vals
    loss = sum((v * v).sum() * (i + 1) for i, v in enumerate(views)) + (y * m.tensor(_W)).sum()
    loss.backward()
    grads = [t.grad.numpy() if t.grad is not None else np.zeros(t.shape) for t in (a, z)]
    return vals + [loss.item()] + grads


_WRITES = ["root_add", "root_mul_tensor", "through_transpose", "through_column", "setitem",
           "fill", "twice"]  # fmt: skip


@pytest.mark.parametrize("graph", [False, True])
@pytest.mark.parametrize("case", _WRITES)
def test_views_taken_before_a_write_see_it_as_torch(case, graph):
    torch = _torch()
    got, want = _earlier_views(nb, case, graph), _earlier_views(torch, case, graph)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_views_taken_before_a_write_see_it_without_torch():
    x = nb.arange(6.0).reshape(2, 3)
    col, tr = x[:, 1], x.t()
    x.add_(10)
    x[0, 1] = -1
    assert col.tolist() == [-1.0, 14.0]
    assert tr.tolist() == [[10.0, 13.0], [-1.0, 14.0], [12.0, 15.0]]


def test_saved_view_of_a_tensor_written_later_raises_as_torch():
    torch = _torch()

    def run(m):
        a = m.tensor(_A, requires_grad=True)
        y = a * 1
        col = y[:, 1]
        out = (col * col).sum()  # saves the column's values
        y.add_(1)  # PyTorch's column shares y's version counter
        out.backward()

    for m in (torch, nb):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            run(m)


def test_view_of_a_parameter_sees_the_optimizer_step():
    w = nb.nn.Parameter(nb.tensor(_A))
    col = w[:, 0]
    (w * w).sum().backward()
    nb.optim.SGD([w], lr=0.1).step()
    np.testing.assert_allclose(col.detach().numpy(), _A[:, 0] * 0.8, rtol=1e-12)


def test_views_keep_the_old_storage_after_data_assignment():
    torch = _torch()

    def run(m):
        x = m.arange(6.0, dtype=m.float64).reshape(2, 3)
        col = x[:, 1]
        x.data = m.zeros(2, 3, dtype=m.float64)
        x.add_(1)
        return col.numpy().copy(), x.numpy().copy()

    for g, w in zip(run(nb), run(torch)):
        np.testing.assert_array_equal(g, w)


@pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")
@pytest.mark.parametrize(
    "case",
    [
        "col_zero",
        "col_setitem",
        "t_mul",
        "row_iadd",
        "detach_col",
        "narrow_fill",
        "unbind_fill",
        "T_row_fill",
        "col_view",
    ],
)
def test_cuda_inplace_write_through_view_reaches_base(case):
    np.testing.assert_array_equal(
        _view_write(nb, case, device="cuda"), _view_write(nb, case, device="cpu")
    )


@pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")
@pytest.mark.parametrize("case", ["col_add", "col_zero", "chain", "combined", "setitem_view"])
def test_cuda_inplace_write_through_view_gradients(case):
    for g, w in zip(_grads(nb, case, "cuda"), _grads(nb, case)):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
