"""autograd.Function's full API and grad_fn objects, against PyTorch where installed and
closed forms otherwise: optional trailing None gradients, the setup_context style, keyword
arguments to apply, non-differentiable and dirty outputs, materialize_grads,
once_differentiable, node class names and AccumulateGrad."""

import numpy as np
import pytest

import nbgrad as nb


def _linear(m, bias):
    class LinearFunction(m.autograd.Function):  # the Extending-PyTorch example
        @staticmethod
        def forward(ctx, input, weight, bias=None):  # noqa: A002
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors  # noqa: A001
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    x = m.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    w = m.tensor(np.arange(12.0).reshape(4, 3) / 7, requires_grad=True)
    args = (x, w) + ((m.tensor(np.ones(4), requires_grad=True),) if bias else ())
    (LinearFunction.apply(*args) ** 2).sum().backward()
    return [a.grad.numpy() for a in args]


@pytest.mark.parametrize("bias", [False, True])
def test_linear_function_with_optional_bias(bias):
    got = _linear(nb, bias)
    x, w = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(4, 3) / 7
    out = x @ w.T + (1.0 if bias else 0.0)
    want = [2 * out @ w, (2 * out).T @ x] + ([(2 * out).sum(0)] if bias else [])
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=1e-12)


def _setup_context(m):
    class MulConst(m.autograd.Function):
        @staticmethod
        def forward(x, c, power=1):
            return x * c**power

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, c, power = inputs
            ctx.k = c**power
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ctx.k, None, None

    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = MulConst.apply(x, 3.0, power=2)
    y.sum().backward()
    return y.detach().numpy(), x.grad.numpy()


def test_setup_context_style_with_defaults_and_keywords():
    y, g = _setup_context(nb)
    np.testing.assert_array_equal(y, [9.0, 18.0])
    np.testing.assert_array_equal(g, [9.0, 9.0])


def test_apply_passes_keyword_arguments_to_forward():
    class Scale(nb.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale=1.0):
            ctx.scale = scale
            return x * scale

        @staticmethod
        def backward(ctx, g):
            return g * ctx.scale, None

    x = nb.tensor([1.0, 2.0], requires_grad=True)
    Scale.apply(x, scale=2.5).sum().backward()
    assert x.grad.tolist() == [2.5, 2.5]


def _nondiff(m, materialize):
    seen = []

    class TwiceAndOrder(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            idx = m.tensor([1, 0])
            ctx.mark_non_differentiable(idx)
            return x * 2, idx, 7

        @staticmethod
        def backward(ctx, g, g_idx, g_int):
            seen.append((None if g_idx is None else g_idx.tolist(), g_int))
            return g * 2

    x = m.tensor([1.0, 2.0], requires_grad=True)
    y, idx, k = TwiceAndOrder.apply(x)
    y.sum().backward()
    return x.grad.tolist(), idx.requires_grad, k, seen


@pytest.mark.parametrize("materialize", [True, False])
def test_non_differentiable_outputs_get_their_gradient_slot(materialize):
    grad, idx_rg, k, seen = _nondiff(nb, materialize)
    assert grad == [2.0, 2.0] and idx_rg is False and k == 7
    assert seen == [([0, 0] if materialize else None, None)]


def test_non_differentiable_outputs_as_torch():
    torch = pytest.importorskip("torch")
    for materialize in (True, False):
        got, want = _nondiff(nb, materialize), _nondiff(torch, materialize)
        assert got[:3] == want[:3]
        assert [(a, b) for a, b in got[3]] == [(a, b) for a, b in want[3]]


def test_extra_trailing_none_gradients_are_accepted_others_refused():
    def make(extra):
        class F(nb.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return (g * 2,) + extra

        return F

    x = nb.tensor([1.0, 2.0], requires_grad=True)
    make((None, None)).apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 1, got 2"):
        make((x,)).apply(x).sum().backward()


def _dirty(m):
    class AddOne(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    a = m.tensor([1.0, 2.0], requires_grad=True)
    x = a * 1
    y = AddOne.apply(x)
    (y * 3).sum().backward()
    with pytest.raises(RuntimeError) as e:
        AddOne.apply(m.tensor([1.0], requires_grad=True))
    return y is x, x.tolist(), a.grad.tolist(), str(e.value)


def test_mark_dirty_returns_the_input_itself():
    same, vals, grad, err = _dirty(nb)
    assert same and vals == [2.0, 3.0] and grad == [3.0, 3.0]
    assert "leaf Variable that requires grad" in err


def test_mark_dirty_as_torch():
    torch = pytest.importorskip("torch")
    assert _dirty(nb) == _dirty(torch)


def test_once_differentiable_backward_has_no_history():
    class Square(nb.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        @nb.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = nb.tensor([1.0, 2.0], requires_grad=True)
    (g,) = nb.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [2.0, 4.0] and not g.requires_grad and g.grad_fn is None


def _names(m):
    x = m.tensor([1.0, 2.0], requires_grad=True)
    c = m.tensor([3.0, 4.0])
    y = (x * c).exp().sum()
    fn = y.grad_fn
    chain = []
    while fn is not None:
        chain.append(
            (type(fn).__name__, fn.name(), [type(n).__name__ for n, _ in fn.next_functions])
        )
        fn = fn.next_functions[0][0] if fn.next_functions else None
    acc = y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
    return chain, acc.variable is x


def test_grad_fn_classes_are_named_for_their_op():
    chain, is_x = _names(nb)
    assert chain == [
        ("SumBackward0", "SumBackward0", ["ExpBackward0"]),
        ("ExpBackward0", "ExpBackward0", ["MulBackward0"]),
        ("MulBackward0", "MulBackward0", ["AccumulateGrad", "NoneType"]),
        ("AccumulateGrad", "torch::autograd::AccumulateGrad", []),
    ]
    assert is_x
    assert isinstance(chain and nb.tensor([1.0], requires_grad=True).exp().grad_fn,
                      nb.autograd.graph.Node)  # fmt: skip


def test_grad_fn_classes_as_torch():
    torch = pytest.importorskip("torch")
    assert _names(nb) == _names(torch)


def test_backward_returning_none_leaves_no_gradient_downstream():
    """A custom backward that returns None for an input: the rows that made that input get
    no gradient (they once read their never-written gradient buffer: garbage)."""

    class Ident(nb.autograd.Function):
        @staticmethod
        def forward(ctx, *ts):
            return ts

        @staticmethod
        def backward(ctx, g1, g2):
            return g1, None  # nothing for the second

    for _ in range(2):  # the buffer is reused from the pass before
        a = nb.tensor([1.0, 2.0], requires_grad=True)
        o1, o2 = Ident.apply(a * 3, a - 5)
        (o1.sum() + o2.sum()).backward()
        assert a.grad.tolist() == [3.0, 3.0]


# -- Functions under vmap -------------------------------------------------------------------


def _vmapped_functions(m):
    """What vmap makes of a Function with generate_vmap_rule, one with its own vmap
    staticmethod and one with neither (values, gradients, node names, errors)."""

    class Gen(m.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x, k):
            return x.sum() * k, x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g, g2):  # deliberately not forward's derivative (k, not 3k)
            (x,) = ctx.saved_tensors
            return g * ctx.k * m.ones_like(x) + 3 * g2, None

    class Own(m.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 5

        @staticmethod
        def vmap(info, in_dims, x):
            # (in_dims: where x holds the batch; nbgrad's batched values hold it at 0)
            Own.calls.append((info.batch_size, info.randomness, x.shape[in_dims[0]]))
            return Own.apply(x).movedim(in_dims[0], 1), 1

    Own.calls = []

    class Neither(m.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

    out = []
    x = m.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=m.float64, requires_grad=True)
    a, b = m.func.vmap(Gen.apply, in_dims=(0, None))(x, 3.0)
    (a.sum() + b.sum()).backward()
    out += [a.tolist(), b.tolist(), type(a.grad_fn).__name__, x.grad.tolist()]
    w = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
    y = m.func.vmap(lambda v: Gen.apply(v * w, 2.0)[0])(m.ones(3, 2, dtype=m.float64))
    y.sum().backward()  # w is shared by the samples: its gradient summed over them
    out.append(w.grad.tolist())
    per = m.func.vmap(m.func.grad(lambda v: Gen.apply(v, 3.0)[0]))(m.ones(2, 2, dtype=m.float64))
    out.append(per.tolist())
    x = m.ones(2, 3, dtype=m.float64, requires_grad=True)
    y = m.func.vmap(Own.apply, in_dims=1)(x)
    y.sum().backward()
    out += [tuple(y.shape), Own.calls, x.grad.tolist()]
    with pytest.raises(RuntimeError) as e:
        m.func.vmap(Neither.apply)(m.ones(2, 2))
    out.append(str(e.value))
    return out


def test_functions_under_vmap_as_pytorch():
    torch = pytest.importorskip("torch")
    got, ref = _vmapped_functions(nb), _vmapped_functions(torch)
    assert got == ref
    assert got[3] == [[6.0, 6.0], [6.0, 6.0]]  # the Function's backward (autodiff: 5)
    assert got[8] == [[5.0] * 3] * 2


def test_ctx_attributes_read_through_the_node():
    """A custom Function's grad_fn is its ctx in PyTorch: attributes set in forward,
    needs_input_grad and saved_tensors read through it."""

    def observe(m):
        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, y, k):
                ctx.k = k
                ctx.save_for_backward(x)
                return x * y * k

            @staticmethod
            def backward(ctx, g):
                return g, g, None

        x = m.tensor([1.0, 2.0], requires_grad=True)
        z = F.apply(x, m.tensor([2.0, 2.0]), 3)
        fn = z.grad_fn
        return fn.k, tuple(fn.needs_input_grad), fn.saved_tensors[0].tolist(), hasattr(fn, "nope")

    torch = pytest.importorskip("torch")
    assert observe(nb) == observe(torch) == (3, (True, False, False), [1.0, 2.0], False)
