"""Version counters: a backward never computes from a saved value written in place since it
was saved (PyTorch raises "modified by an inplace operation"), and replacing a tensor's
`.data` never lets a recorded row read or write a buffer of another shape or dtype."""

import re

import numpy as np
import pytest

import nbgrad as torch
from nbgrad import nn

HINT = (
    " Hint: enable anomaly detection to find the operation that failed to compute its "
    "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


def modified(what, now=1, expected=0):
    msg = (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {what} is at version {now}; expected version {expected} instead." + HINT
    )
    return pytest.raises(RuntimeError, match="^" + re.escape(msg) + "$")


def leaf(values=(1.0, 2.0, 3.0), dtype=None):
    return torch.tensor(list(values), dtype=dtype, requires_grad=True)


# -- writes on saved values are caught before any kernel runs ------------------------------


@pytest.mark.parametrize(
    "write",
    [
        lambda y: y.fill_(5),
        lambda y: y.zero_(),
        lambda y: y.copy_(torch.ones(3)),
        lambda y: y.detach().mul_(10),
        lambda y: y.detach().add_(1),
        lambda y: y.view(3).detach().fill_(1),  # through a view: the counter is shared
        lambda y: y.detach()[0:2].fill_(0),
        lambda y: y.detach().__setitem__(0, 7.0),  # index assignment
        lambda y: torch.autograd.graph.increment_version(y),
    ],
)
def test_write_on_saved_output_raises(write):
    x = leaf()
    y = x.exp()  # saves its output
    write(y)
    with modified("[nbgrad.FloatTensor [3]], which is output 0 of Exp,"):
        y.sum().backward()
    assert x.grad is None  # nothing was computed


def test_write_on_saved_leaf_raises():
    x = leaf()
    y = x.sin()  # saves x
    x.detach().mul_(10)
    with modified("[nbgrad.FloatTensor [3]]"):
        y.sum().backward()
    assert x.grad is None


def test_message_names_dtype_shape_and_producer():
    x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    y = x * 2
    z = y.sin()  # saves y, the output of a mul
    y.detach().zero_()
    y.detach().zero_()
    with modified("[nbgrad.DoubleTensor [2, 3]], which is output 0 of Mul,", now=2):
        z.sum().backward()
    s = torch.ones((), requires_grad=True)
    t = s.sin()
    s.detach().zero_()
    with modified("[nbgrad.FloatTensor []]"):
        t.backward()


def test_expected_version_is_the_one_saved():
    x = leaf()
    x.detach().add_(1)
    x.detach().add_(1)
    y = x.sin()  # saved at version 2
    x.detach().add_(1)
    with modified("[nbgrad.FloatTensor [3]]", now=3, expected=2):
        y.sum().backward()


def test_same_results_as_torch():
    real = pytest.importorskip("torch")
    for lib in (torch, real):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.exp()
        z = y.sin()
        y.detach().zero_()
        with pytest.raises(RuntimeError) as e:
            z.sum().backward()
        msg = str(e.value).replace("torch.FloatTensor", "nbgrad.FloatTensor")
        if lib is torch:
            ours = msg
        else:
            assert ours == msg


@pytest.mark.parametrize("path", ["backward", "grad", "create_graph", "grads_batched"])
def test_every_backward_path_checks(path):
    x = leaf()
    y = x.exp()
    loss = y.sum()
    y.detach().fill_(0)
    with modified("[nbgrad.FloatTensor [3]], which is output 0 of Exp,"):
        if path == "backward":
            loss.backward()
        elif path == "grad":
            torch.autograd.grad(loss, x)
        elif path == "create_graph":
            torch.autograd.grad(loss, x, create_graph=True)
        else:
            torch.autograd.grad(loss, x, torch.ones(2), is_grads_batched=True)


def test_failed_check_leaves_the_graph_usable():
    x = leaf()
    y = x.exp()
    y.detach().fill_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    w = leaf()
    (w * 3).sum().backward()  # the engine's scratch state was reset
    assert w.grad.tolist() == [3.0, 3.0, 3.0]


def test_custom_function_saved_tensors_are_checked():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    x = leaf()
    y = Square.apply(x)
    x.detach().mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_rows_that_save_nothing_ignore_writes():
    x = leaf()
    y = x + 1  # saves nothing: its VJP reads no value
    x.detach().fill_(9)
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_writes_before_recording_are_fine():
    x = leaf()
    x.detach().mul_(2)
    y = x.sin()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([2.0, 4.0, 6.0]), rtol=1e-6)


# -- what bumps a counter, and what shares one ---------------------------------------------


def test_version_counter_is_shared_by_views_and_detach():
    x = leaf()
    assert x._version == 0
    d = x.detach()
    d.add_(1)
    assert x._version == d._version == 1
    v = d[0:2]
    v.fill_(0)
    assert x._version == 2 and d.view(3)._version == 2
    torch.autograd.graph.increment_version(x)
    assert x._version == 3


def test_data_has_its_own_counter_as_in_torch():
    """PyTorch: writes through `.data` are invisible to autograd (the documented escape
    hatch), so they neither bump the tensor's version nor fail a backward."""
    x = leaf()
    y = x.sin()
    x.data.mul_(10)
    assert x._version == 0
    y.sum().backward()  # computes from the written values, as PyTorch does
    np.testing.assert_allclose(x.grad.numpy(), np.cos([10.0, 20.0, 30.0]), rtol=1e-5)


def test_optimizer_step_bumps_parameters():
    w = torch.ones(2, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    loss = (w * w).sum()  # saves w
    loss.backward(retain_graph=True)
    opt.step()
    assert w._version == 1
    with modified("[nbgrad.FloatTensor [2]]"):
        loss.backward()


def test_optimizer_step_between_backwards_when_w_is_not_saved():
    """`x @ w` with x not requiring grad reads w for no gradient: PyTorch does not save it,
    so a step on w between two backward passes is no error."""
    w = torch.ones(2, 2, requires_grad=True)
    x = torch.ones(2, 2)
    opt = torch.optim.SGD([w], lr=0.1)
    loss = (x @ w).pow(2).sum()
    loss.backward(retain_graph=True)
    opt.step()
    loss.backward()
    assert w.grad.tolist() == [[16.0, 16.0], [16.0, 16.0]]


def test_training_loop_runs_without_checks():
    m = nn.Linear(3, 2)
    opt = torch.optim.SGD(m.parameters(), lr=0.01)
    x = torch.ones(4, 3)
    assert m.weight._version == 1  # initialised in place, as in PyTorch
    for _ in range(3):
        opt.zero_grad()
        m(x).pow(2).sum().backward()
        opt.step()
    assert m.weight._version == 4


# -- `.data` replaced by a value of another shape or dtype ---------------------------------

SIZE = "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension 0"


@pytest.mark.parametrize("expr", ["x * x", "x + 1", "x.exp()"])
def test_smaller_data_after_recording_raises(expr):
    x = leaf()
    y = eval(expr).sum()
    x.data = torch.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^" + re.escape(SIZE.format(2, 3)) + "$"):
        y.backward()
    assert x.grad is None


def test_grown_data_does_not_overflow_old_grad():
    x = leaf()
    (x * x).sum().backward()
    x.data = torch.ones(5)
    y = (x * x).sum()
    with pytest.raises(RuntimeError, match="^" + re.escape(SIZE.format(3, 5)) + "$"):
        y.backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_data_swap_same_shape_of_a_saved_value_is_refused():
    """PyTorch's backward reads the new value of a saved leaf (a gradient of 10 here, not
    the recorded 2x): nbgrad refuses with a clear error rather than give either silently."""
    x = leaf()
    y = (x * x).sum()
    x.data = torch.tensor([5.0, 5.0, 5.0])
    with pytest.raises(RuntimeError, match="replaced through `.data =` after it was recorded"):
        y.backward()
    real = pytest.importorskip("torch")
    xt = real.tensor([1.0, 2.0, 3.0], requires_grad=True)
    yt = (xt * xt).sum()
    xt.data = real.tensor([5.0, 5.0, 5.0])
    yt.backward()
    assert xt.grad.tolist() == [10.0, 10.0, 10.0]
    # an equal value, a swap before the forward, or one no row saved: no error
    z = leaf()
    w = (z * 2).sum()
    z.data = torch.tensor([7.0, 8.0, 9.0])
    w.backward()
    assert z.grad.tolist() == [2.0, 2.0, 2.0]


def test_data_swap_other_dtype():
    x = leaf()
    y = (x * x).sum()
    x.data = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    y.backward()
    # the gradient has the recorded dtype, as PyTorch's does
    assert x.grad.dtype == torch.float32 and x.grad.tolist() == [2.0, 4.0, 6.0]
    (x * 2).sum().backward()  # accumulates a float64 gradient into it
    assert x.grad.tolist() == [4.0, 6.0, 8.0]


def test_module_dtype_changes_between_forward_and_backward():
    inp = torch.ones(4, 3)
    m = nn.Linear(3, 2)
    w = m.weight
    m.double()
    loss = m(inp.double()).sum()
    m.float()
    loss.backward()
    assert m.weight is w and m.weight.dtype == torch.float32
    assert m.weight.grad.dtype == torch.float64  # as PyTorch: the recorded dtype
    assert m.weight.grad.tolist() == [[4.0] * 3] * 2
    m2 = nn.Linear(3, 2)
    loss = m2(inp).sum()
    loss.backward(retain_graph=True)
    m2.double()
    assert m2.weight.grad.dtype == torch.float64
    loss.backward()
    assert m2.weight.grad.tolist() == [[8.0] * 3] * 2


def test_module_dtype_matches_torch():
    real = pytest.importorskip("torch")
    res = []
    for lib in (torch, real):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        with lib.no_grad():
            m.weight.copy_(lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
            m.bias.copy_(lib.tensor([0.5, -1.0]))
        m.double()
        loss = m(lib.ones(4, 3, dtype=lib.float64)).pow(2).sum()
        m.float()
        loss.backward()
        res.append((str(m.weight.grad.dtype).split(".")[1], m.weight.grad.tolist()))
    assert res[0] == res[1]


def test_grad_assignment_messages_match_torch():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape("attempting to assign a gradient of size")):
        x.grad = torch.ones(2)
    with pytest.raises(RuntimeError, match=re.escape("with dtype 'double' to a tensor with")):
        x.grad = torch.ones(2, dtype=torch.float64)
    real = pytest.importorskip("torch")
    for make in (lambda lib: lib.ones(2), lambda lib: lib.ones(3, dtype=lib.float64)):
        msgs = []
        for lib in (torch, real):
            t = lib.ones(3, requires_grad=True)
            with pytest.raises(RuntimeError) as e:
                t.grad = make(lib)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU and no simulator")
def test_cuda_write_on_saved_value_raises():
    x = torch.tensor([1.0, 2.0, 3.0], device="cuda", requires_grad=True)
    y = x.exp()
    y.detach().fill_(0)
    with modified("[nbgrad.cuda.FloatTensor [3]], which is output 0 of Exp,"):
        y.sum().backward()
    w = torch.tensor([1.0, 2.0, 3.0], device="cuda", requires_grad=True)
    v = w.sin()
    v.sum().backward()  # no write: fine
    np.testing.assert_allclose(w.grad.cpu().numpy(), np.cos([1.0, 2.0, 3.0]), rtol=1e-6)


def test_compiled_replay_checks_grad_shape():
    def f(w):
        loss = (w.sin() * 2).sum()
        loss.backward()
        return loss

    cf = torch.compile(f, fallback="raise")
    w = torch.ones(3, requires_grad=True)
    cf(w)
    cf(w)  # replayed: w.grad accumulated in place
    w.data = torch.ones(5)
    w5 = torch.ones(5, requires_grad=True)
    cf(w5)
    cf(w5)  # a program for shape (5,)
    with pytest.raises(RuntimeError, match="^" + re.escape(SIZE.format(3, 5)) + "$"):
        cf(w)  # w's .grad still has 3 elements: never written through as 5
    np.testing.assert_allclose(w.grad.numpy(), 4 * np.cos(np.ones(3)), rtol=1e-6)


@pytest.mark.parametrize(
    "write", ["y.fill_(3.0)", "y.zero_()", "y.copy_(lib.tensor([7.0, 8.0, 9.0]))"]
)
def test_overwriting_a_graph_tensor_cuts_its_history(write):
    """PyTorch records the write: no gradient reaches what produced the old value, and
    later ops see the new one."""
    real = pytest.importorskip("torch")
    res = []
    for lib in (torch, real):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        exec(write, {"y": y, "lib": lib})
        z = (y * x).sum()  # reads the written y
        z.backward()
        res.append((y.requires_grad, y.is_leaf, y.tolist(), x.grad.tolist()))
    assert res[0] == res[1]
