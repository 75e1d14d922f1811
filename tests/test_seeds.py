"""The code examples of the five seed Q&As (/work/shared/seeds/*.txt), run on nbgrad.

The values printed in the seeds are PyTorch's output, so every printed tensor is compared
as an exact `repr` string (with PyTorch's real indentation: the seed texts lost it when
they were scraped) and every error message word for word, `torch.Size` read as
`nbgrad.Size`.
"""

import re

import numpy as np
import pytest

import nbgrad
import nbgrad as torch  # the seeds' spelling: `import nbgrad as torch`

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


def raises_exactly(exc, message):
    """pytest.raises matching the whole message literally."""
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


# ======================================================================================
# seed 000: custom Function, what backward computes, shapes of its result
# ======================================================================================


class MyFunc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):  # f(x) = e^x
        result = input.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):  # df(x) = e^x
        (result,) = ctx.saved_tensors
        return grad_output * result


def test_seed000_myfunc_forward_backward_values():
    x = torch.tensor([0.1, 0.2], requires_grad=True)
    y = MyFunc.apply(x)
    assert repr(y) == "tensor([1.1052, 1.2214], grad_fn=<MyFuncBackward>)"
    assert y.grad_fn.name() == "MyFuncBackward"
    assert re.match(r"^<([\w.]+\.)?MyFuncBackward object at 0x[0-9a-f]+>$", repr(y.grad_fn))
    assert y.requires_grad and not y.is_leaf
    y.backward(torch.ones_like(y))
    assert repr(x.grad) == "tensor([1.1052, 1.2214])"


def test_seed000_myfunc_is_a_vjp_not_a_jacobian():
    # "What does backward actually compute?" grad_output * J: one entry per input
    x = torch.tensor([[0.0, 1.0, 2.0], [-1.0, 0.5, 0.25]], requires_grad=True)
    y = MyFunc.apply(x)
    v = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y.backward(v)
    assert x.grad.shape == x.shape == torch.Size([2, 3])
    np.testing.assert_allclose(x.grad.numpy(), v.numpy() * np.exp(x.detach().numpy()), 1e-6)


def test_seed000_myfunc_batched_input():
    # "And it does not handle batches?" a (b, n) input gives a (b, n) gradient
    b, n = 4, 3
    x = torch.tensor(np.linspace(-1, 1, b * n).reshape(b, n), requires_grad=True)
    (MyFunc.apply(x) * 2).sum().backward()
    assert x.grad.shape == torch.Size([b, n])
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(x.detach().numpy()), 1e-12)


class WrongShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        return input * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.sum(1)  # (2,) for a (2, 3) input


class MyFuncWrong(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        result = input.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return (grad_output * result)[0]  # drops the batch dimension


def test_seed000_invalid_gradient_shape_error():
    x = torch.ones(2, 3, requires_grad=True)
    with raises_exactly(
        RuntimeError,
        "Function WrongShapeBackward returned an invalid gradient at index 0 - got [2] but "
        "expected shape compatible with [2, 3]",
    ):
        WrongShape.apply(x).sum().backward()


def test_seed000_invalid_gradient_shape_error_myfunc():
    x = torch.ones(4, 3, requires_grad=True)
    y = MyFuncWrong.apply(x)
    with raises_exactly(
        RuntimeError,
        "Function MyFuncWrongBackward returned an invalid gradient at index 0 - got [3] but "
        "expected shape compatible with [4, 3]",
    ):
        y.backward(torch.ones_like(y))


class Keepdim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        return input * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.sum(1, keepdim=True)  # (2, 1) for a (2, 3) input: invalid


def test_seed000_non_broadcastable_gradient_error():
    x = torch.ones(2, 3, requires_grad=True)
    with raises_exactly(
        RuntimeError,
        "Function KeepdimBackward returned an invalid gradient at index 0 - got [2, 1] but "
        "expected shape compatible with [2, 3]",
    ):
        Keepdim.apply(x).sum().backward()


class Expanding(torch.autograd.Function):
    """backward returns a gradient that broadcasts down to the input's shape."""

    @staticmethod
    def forward(ctx, input):
        return input * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.expand(4, 2, 3) * 2


def test_seed000_broadcastable_gradient_is_summed():
    x = torch.ones(2, 3, requires_grad=True)
    Expanding.apply(x).sum().backward()
    assert repr(x.grad) == "tensor([[8., 8., 8.],\n        [8., 8., 8.]])"


class ExpandingToOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        return input * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.expand(5, 3) * 1  # input is (1, 3): summed over the 5


def test_seed000_broadcastable_gradient_is_summed_over_singleton():
    x = torch.ones(1, 3, requires_grad=True)
    y = ExpandingToOne.apply(x)
    y.sum().backward()
    assert repr(x.grad) == "tensor([[5., 5., 5.]])"


def test_seed000_myfunc_second_backward_error():
    x = torch.tensor([0.1, 0.2], requires_grad=True)
    y = MyFunc.apply(x).sum()
    y.backward()
    with raises_exactly(RuntimeError, SECOND_BACKWARD):
        y.backward()


def test_seed000_myfunc_retain_graph():
    x = torch.tensor([0.1, 0.2], requires_grad=True)
    y = MyFunc.apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert repr(x.grad) == "tensor([2.2103, 2.4428])"


def test_seed000_matches_torch():
    real = pytest.importorskip("torch")

    class TMyFunc(real.autograd.Function):
        forward = MyFunc.forward
        backward = MyFunc.backward

    data = np.array([[0.3, -1.2, 2.0], [0.0, 0.7, -0.4]], np.float32)
    xt = real.tensor(data, requires_grad=True)
    xn = torch.tensor(data, requires_grad=True)
    yt, yn = TMyFunc.apply(xt), MyFunc.apply(xn)
    assert repr(yn) == repr(yt).replace("TMyFunc", "MyFunc")
    yt.backward(real.ones_like(yt))
    yn.backward(torch.ones_like(yn))
    assert repr(xn.grad) == repr(xt.grad)


# ======================================================================================
# seed 001: grad_outputs of torch.autograd.grad
# ======================================================================================

OUTER = """tensor([[ 1.,  2.,  3.,  4.],
        [ 2.,  4.,  6.,  8.],
        [ 3.,  6.,  9., 12.],
        [ 4.,  8., 12., 16.]], grad_fn=<MulBackward0>)"""


def test_seed001_outer_repr():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = torch.outer(x, x)
    assert repr(y) == OUTER


def test_seed001_grad_with_ones_like_y():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = torch.outer(x, x)
    r = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y))
    assert isinstance(r, tuple)
    assert repr(r) == "(tensor([20., 20., 20., 20.]),)"


def test_seed001_grad_outputs_shape_mismatch_error():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = torch.outer(x, x)
    with raises_exactly(
        RuntimeError,
        "Mismatch in shape: grad_output[0] has a shape of nbgrad.Size([4]) and output[0] has "
        "a shape of nbgrad.Size([4, 4]).",
    ):
        torch.autograd.grad(y, x, grad_outputs=torch.ones_like(x))


def test_seed001_closed_form():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    # PyTorch prints this with grad_fn (x requires grad); the seed shows it without
    assert repr(2 * x.sum() * torch.ones_like(x)) == (
        "tensor([20., 20., 20., 20.], grad_fn=<MulBackward0>)"
    )
    with torch.no_grad():
        assert repr(2 * x.sum() * torch.ones_like(x)) == "tensor([20., 20., 20., 20.])"


def test_seed001_chain_z_equals_y_squared():
    # x -> y = x xT -> z = y**2: dL/dx = dL/dz dz/dy dy/dx, in two steps
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = torch.outer(x, x)
    z = y**2
    (dy,) = torch.autograd.grad(z, y, grad_outputs=torch.ones_like(z), retain_graph=True)
    (dx_two_steps,) = torch.autograd.grad(y, x, grad_outputs=dy)
    x2 = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    z2 = torch.outer(x2, x2) ** 2
    (dx,) = torch.autograd.grad(z2, x2, grad_outputs=torch.ones_like(z2))
    xs = np.array([1.0, 2.0, 3.0, 4.0])
    expected = 4 * xs * (xs**2).sum()  # d/dx_i sum_jk x_j^2 x_k^2
    np.testing.assert_allclose(dx.numpy(), expected, 1e-6)
    np.testing.assert_allclose(dx_two_steps.numpy(), expected, 1e-6)


# ======================================================================================
# seed 002: out.backward(a) gives 2*a*a
# ======================================================================================

TWO_A_A = "tensor([[ 2.,  8., 18.],\n        [32., 50., 72.]])"
TWO_A = "tensor([[ 2.,  4.,  6.],\n        [ 8., 10., 12.]])"


def test_seed002_literal_variable_floattensor(capsys):
    from nbgrad.autograd import Variable

    a = Variable(torch.FloatTensor([[1, 2, 3], [4, 5, 6]]), requires_grad=True)
    out = a * a
    out.backward(a)
    print(a.grad)
    assert capsys.readouterr().out == TWO_A_A + "\n"


def test_seed002_backward_with_a(capsys):
    # the same code without the legacy Variable / FloatTensor spelling
    a = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.float, requires_grad=True)
    out = a * a
    out.backward(a)
    print(a.grad)
    assert capsys.readouterr().out == TWO_A_A + "\n"


def test_seed002_elementwise_scalar_backward_loop(capsys):
    a = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.float, requires_grad=True)
    for i in range(2):
        for j in range(3):
            out = a[i, j] * a[i, j]
            out.backward()
    print(a.grad)
    assert capsys.readouterr().out == TWO_A + "\n"


def test_seed002_backward_with_ones(capsys):
    a = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.float, requires_grad=True)
    out = a * a
    out.backward(torch.ones(2, 3))
    print(a.grad)
    assert capsys.readouterr().out == TWO_A + "\n"


def test_seed002_backward_without_argument_on_non_scalar():
    a = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.float, requires_grad=True)
    out = a * a
    with raises_exactly(RuntimeError, "grad can be implicitly created only for scalar outputs"):
        out.backward()


# ======================================================================================
# seed 003: the tensor argument of backward(): a Jacobian-vector product
# ======================================================================================


def test_seed003_scalar_output(capsys):
    x = torch.randn(3, requires_grad=True)
    y = x.sum()
    y.backward()  # is equivalent to y.backward(torch.tensor(1.))
    print(x.grad)
    assert capsys.readouterr().out == "tensor([1., 1., 1.])\n"


def test_seed003_explicit_unit_gradient():
    x = torch.randn(3, requires_grad=True)
    y = x.sum()
    y.backward(torch.tensor(1.0))
    assert repr(x.grad) == "tensor([1., 1., 1.])"


def test_seed003_weighted_external_gradient():
    # "what if we submitted numbers other than ones": [0.2, 0.8] weights the components
    x = torch.tensor([1.5, -2.0], requires_grad=True)
    y = x * x
    y.backward(torch.tensor([0.2, 0.8]))
    np.testing.assert_allclose(x.grad.numpy(), [0.2 * 3.0, 0.8 * -4.0], 1e-6)


def _seed003_loop(mod, x0):
    x = mod.tensor(x0, requires_grad=True)
    y = x * 2
    k = 1
    while y.data.norm() < 1000:
        y = y * 2
        k += 1
    v = mod.tensor([0.1, 1.0, 0.0001], dtype=mod.float)
    y.backward(v)
    return x.grad, y, k


# a fixed x for `torch.randn(3)`: |x| in [1000 / 2**10, 1000 / 2**9) makes the loop stop at
# 2**10, the factor the seed's printed gradient shows
X003 = [0.6, 0.8, 0.5]


def test_seed003_loop_literal_output(capsys):
    grad, y, k = _seed003_loop(torch, X003)
    print(grad)
    assert capsys.readouterr().out == "tensor([1.0240e+02, 1.0240e+03, 1.0240e-01])\n"
    assert k == 10
    assert repr(y) == "tensor([614.4000, 819.2000, 512.0000], grad_fn=<MulBackward0>)"


@pytest.mark.parametrize(
    "x0",
    [[0.6, 0.8, 0.5], [1e-3, -2e-3, 5e-4], [30.0, -40.0, 0.0], [1500.0, 0.0, 0.0]],
    ids=["k10", "tiny", "medium", "above"],
)
def test_seed003_loop_closed_form(x0):
    grad, _, k = _seed003_loop(torch, x0)
    v = np.array([0.1, 1.0, 0.0001], np.float32)
    np.testing.assert_array_equal(grad.numpy(), np.float32(2.0**k) * v)
    # the loop stops at the first power of two that takes |x| to 1000
    norm = np.linalg.norm(np.array(x0, np.float32))
    assert norm * 2.0**k >= 1000 * (1 - 1e-6)
    assert k == 1 or norm * 2.0 ** (k - 1) < 1000 * (1 + 1e-6)


@pytest.mark.parametrize("x0", [[0.6, 0.8, 0.5], [1e-3, -2e-3, 5e-4], [30.0, -40.0, 0.0]])
def test_seed003_loop_matches_torch(x0):
    real = pytest.importorskip("torch")
    gn, yn, kn = _seed003_loop(torch, x0)
    gt, yt, kt = _seed003_loop(real, x0)
    assert kn == kt
    assert repr(gn) == repr(gt)
    assert repr(yn) == repr(yt)


# ======================================================================================
# seed 004: (x + 1)**2 on eye(5), accumulation, retain_graph, zero_()
# ======================================================================================

EYE5 = """tensor([[1., 0., 0., 0., 0.],
        [0., 1., 0., 0., 0.],
        [0., 0., 1., 0., 0.],
        [0., 0., 0., 1., 0.],
        [0., 0., 0., 0., 1.]])"""
OUT5 = """tensor([[4., 1., 1., 1., 1.],
        [1., 4., 1., 1., 1.],
        [1., 1., 4., 1., 1.],
        [1., 1., 1., 4., 1.],
        [1., 1., 1., 1., 4.]], grad_fn=<PowBackward0>)"""
ONES5 = """tensor([[1., 1., 1., 1., 1.],
        [1., 1., 1., 1., 1.],
        [1., 1., 1., 1., 1.],
        [1., 1., 1., 1., 1.],
        [1., 1., 1., 1., 1.]])"""
FIRST5 = """tensor([[4., 2., 2., 2., 2.],
        [2., 4., 2., 2., 2.],
        [2., 2., 4., 2., 2.],
        [2., 2., 2., 4., 2.],
        [2., 2., 2., 2., 4.]])"""
SECOND5 = """tensor([[8., 4., 4., 4., 4.],
        [4., 8., 4., 4., 4.],
        [4., 4., 8., 4., 4.],
        [4., 4., 4., 8., 4.],
        [4., 4., 4., 4., 8.]])"""


def test_seed004_tutorial_printed_output(capsys):
    inp = torch.eye(5, requires_grad=True)
    out = (inp + 1).pow(2)
    out.backward(torch.ones_like(inp), retain_graph=True)
    print("First call\n", inp.grad)
    out.backward(torch.ones_like(inp), retain_graph=True)
    print("\nSecond call\n", inp.grad)
    inp.grad.zero_()
    out.backward(torch.ones_like(inp), retain_graph=True)
    print("\nCall after zeroing gradients\n", inp.grad)
    assert capsys.readouterr().out == (
        f"First call\n {FIRST5}\n\nSecond call\n {SECOND5}\n\n"
        f"Call after zeroing gradients\n {FIRST5}\n"
    )


def test_seed004_reprs():
    inp = torch.eye(5, requires_grad=True)
    out = (inp + 1).pow(2)
    assert repr(out) == OUT5
    assert repr(torch.eye(5)) == EYE5
    assert repr(torch.ones_like(inp)) == ONES5
    assert repr(inp) == EYE5[:-1] + ", requires_grad=True)"


def test_seed004_zero_keeps_the_grad_object():
    inp = torch.eye(5, requires_grad=True)
    out = (inp + 1).pow(2)
    out.backward(torch.ones_like(inp), retain_graph=True)
    g = inp.grad
    out.backward(torch.ones_like(inp), retain_graph=True)
    assert inp.grad is g  # accumulated in place, as PyTorch does
    assert repr(g) == SECOND5
    assert inp.grad.zero_() is g
    out.backward(torch.ones_like(inp))
    assert inp.grad is g
    assert repr(g) == FIRST5


def test_seed004_second_backward_without_retain_graph():
    inp = torch.eye(5, requires_grad=True)
    out = (inp + 1).pow(2)
    out.backward(torch.ones_like(inp))
    with raises_exactly(RuntimeError, SECOND_BACKWARD):
        out.backward(torch.ones_like(inp))


def f004(x):
    return (x + 1) ** 2


def test_seed004_eye2_backward_once_and_twice():
    inp = torch.eye(2, requires_grad=True)
    out = f004(inp)
    out.backward(torch.ones_like(inp))
    assert repr(inp.grad) == "tensor([[4., 2.],\n        [2., 4.]])"

    inp = torch.eye(2, requires_grad=True)
    out = f004(inp)
    out.backward(torch.ones_like(inp), retain_graph=True)
    out.backward(torch.ones_like(inp))
    assert repr(inp.grad) == "tensor([[8., 4.],\n        [4., 8.]])"


J2 = """tensor([[[[4., 0.],
          [0., 0.]],

         [[0., 2.],
          [0., 0.]]],


        [[[0., 0.],
          [2., 0.]],

         [[0., 0.],
          [0., 4.]]]])"""


def test_seed004_literal_jacobian_and_einsum():
    import nbgrad.autograd.functional as A

    inp = torch.eye(2, requires_grad=True)
    J = A.jacobian(f004, inp)
    assert repr(J) == J2
    r = torch.einsum("ij,ijmn->mn", torch.ones_like(inp), J)
    assert repr(r) == "tensor([[4., 2.],\n        [2., 4.]])"


def test_seed004_jacobian_by_vjps_and_contraction():
    # J[i, j, m, n] = d out[i, j] / d inp[m, n], one VJP per output element
    inp = torch.eye(2, requires_grad=True)
    out = f004(inp)
    J = np.zeros((2, 2, 2, 2), np.float32)
    for i in range(2):
        for j in range(2):
            e = torch.zeros(2, 2)
            e[i, j] = 1.0
            (row,) = torch.autograd.grad(out, inp, grad_outputs=e, retain_graph=True)
            J[i, j] = row.numpy()
    assert repr(torch.tensor(J)) == J2
    r = torch.tensor(np.einsum("ij,ijmn->mn", np.ones((2, 2), np.float32), J))
    assert repr(r) == "tensor([[4., 2.],\n        [2., 4.]])"


def test_seed004_matches_torch():
    real = pytest.importorskip("torch")
    outs = []
    for mod in (real, nbgrad):
        inp = mod.eye(5, requires_grad=True)
        out = (inp + 1).pow(2)
        seen = [repr(out)]
        out.backward(mod.ones_like(inp), retain_graph=True)
        seen.append(repr(inp.grad))
        out.backward(mod.ones_like(inp), retain_graph=True)
        seen.append(repr(inp.grad))
        inp.grad.zero_()
        out.backward(mod.ones_like(inp), retain_graph=True)
        seen.append(repr(inp.grad))
        outs.append(seen)
    assert outs[0] == outs[1]
