"""Saved-tensor hooks, checkpointing and node hooks with CUDA tensors (a GPU when present,
else Numba's CUDA simulator: tiny sizes). The CPU results are the oracle."""

import numpy as np
import pytest

import nbgrad as nb

pytestmark = pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")


class Cube(nb.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x * x * g


def test_save_on_cpu_moves_a_custom_functions_saved_tensor_to_the_host_and_back():
    x = nb.tensor([1.0, -2.0, 0.5], device="cuda", requires_grad=True)
    seen = []
    hooks = nb.autograd.graph.save_on_cpu()
    pack, unpack = hooks.pack_hook, hooks.unpack_hook
    hooks.pack_hook = lambda t: seen.append(t.is_cuda) or pack(t)
    hooks.unpack_hook = lambda p: seen.append(p[1].is_cuda) or unpack(p)
    with hooks:
        y = Cube.apply(x)
    y.sum().backward()
    assert seen == [True, False]  # packed from the GPU, kept on the host
    assert x.grad.is_cuda
    np.testing.assert_allclose(x.grad.cpu().numpy(), 3 * np.array([1.0, 4.0, 0.25]))


def test_checkpoint_on_cuda_gives_the_plain_gradients():
    nb.manual_seed(0)
    lin = nb.nn.Linear(3, 2).double().cuda()
    x = nb.tensor([[0.3, -0.2, 0.9], [1.0, 0.5, -0.4]], dtype=nb.float64, device="cuda",
                  requires_grad=True)  # fmt: skip

    def f(t):
        return (lin(t).tanh() * t[:, :2]).sin()

    grads = []
    for ck in (True, False):
        x.grad = lin.weight.grad = lin.bias.grad = None
        y = nb.utils.checkpoint.checkpoint(f, x, use_reentrant=False) if ck else f(x)
        y.sum().backward()
        grads.append([t.grad.cpu().numpy() for t in (x, lin.weight, lin.bias)])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_node_hooks_on_cuda_nodes_are_refused():
    x = nb.tensor([1.0, 2.0], device="cuda", requires_grad=True)
    y = x * 2
    with pytest.raises(NotImplementedError, match="CUDA"):
        y.grad_fn.register_hook(lambda gi, go: None)
