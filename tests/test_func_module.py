"""func.functional_call and func.stack_module_state, against PyTorch where installed and
closed forms otherwise: other parameters in, the module unchanged after, gradients to the
given tensors, tied weights, strict, and the ensembling recipe."""

import numpy as np
import pytest

import nbgrad as nb


def _net(m):
    m.manual_seed(0)
    net = m.nn.Sequential(m.nn.Linear(3, 4), m.nn.Tanh(), m.nn.Linear(4, 2))
    with m.no_grad():
        for i, p in enumerate(net.parameters()):
            p.copy_(m.tensor(np.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1)))
    return net


def _call(m):
    net = _net(m)
    x = m.tensor(np.arange(6.0).reshape(2, 3) / 5, dtype=m.float32)
    new = {k: (v.detach() * 0.5).requires_grad_() for k, v in net.named_parameters()}
    y = m.func.functional_call(net, new, (x,))
    y.sum().backward()
    own = net(x)  # the module's own parameters are back
    return (y.detach().numpy(), own.detach().numpy(), new["0.weight"].grad.numpy(),
            net[0].weight.grad)  # fmt: skip


def test_functional_call_uses_the_given_tensors_and_restores():
    y, own, g, own_grad = _call(nb)
    assert own_grad is None  # gradients went to the given tensors
    assert not np.allclose(y, own)
    half = _net(nb)
    with nb.no_grad():
        for p in half.parameters():
            p.mul_(0.5)
    x = nb.tensor(np.arange(6.0).reshape(2, 3) / 5, dtype=nb.float32)
    np.testing.assert_allclose(y, half(x).detach().numpy(), rtol=1e-6)
    assert g.shape == (4, 3) and np.abs(g).sum() > 0


def test_functional_call_as_torch():
    torch = pytest.importorskip("torch")
    got, want = _call(nb), _call(torch)
    for g, w in zip(got[:3], want[:3]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    assert got[3] is None and want[3] is None


def test_tied_weights_strict_and_errors():
    lin = nb.nn.Linear(2, 2, bias=False)
    seq = nb.nn.Sequential(lin, lin)  # one weight under two names
    w = nb.eye(2) * 3
    x = nb.ones(1, 2)
    assert nb.func.functional_call(seq, {"0.weight": w}, x).tolist() == [[9.0, 9.0]]
    with pytest.raises(ValueError, match="which are tied"):
        nb.func.functional_call(seq, {"0.weight": w, "1.weight": w * 2}, x)
    # strict: a name given covers the names tied to it (PyTorch's answer), unless untied
    assert nb.func.functional_call(seq, {"0.weight": w}, x, strict=True).tolist() == [[9.0, 9.0]]
    with pytest.raises(RuntimeError, match="Missing key\\(s\\): '1.weight'"):
        nb.func.functional_call(seq, {"0.weight": w}, x, strict=True, tie_weights=False)
    with pytest.raises(ValueError, match="multiple dictionaries"):
        nb.func.functional_call(seq, ({"0.weight": w}, {"0.weight": w}), x)


def _ensemble(m):
    models = []
    for k in range(3):
        m.manual_seed(k)
        lin = m.nn.Linear(3, 2)
        with m.no_grad():
            lin.weight.copy_(m.tensor(np.full((2, 3), k + 1.0)))
            lin.bias.copy_(m.tensor([k * 1.0, -k * 1.0]))
        models.append(lin)
    params, buffers = m.func.stack_module_state(models)
    x = m.tensor(np.arange(3.0), dtype=m.float32)
    outs = [m.func.functional_call(models[0], ({k: v[i] for k, v in params.items()}, {}), (x,))
            for i in range(3)]  # fmt: skip
    return (params["weight"].shape, params["weight"].requires_grad, params["weight"].is_leaf,
            [o.tolist() for o in outs])  # fmt: skip


def test_stack_module_state_ensembling():
    shape, rg, leaf, outs = _ensemble(nb)
    assert tuple(shape) == (3, 2, 3) and rg and leaf
    assert outs == [[3.0, 3.0], [7.0, 5.0], [11.0, 7.0]]  # (k+1) * (0+1+2) + (k, -k)
    with pytest.raises(RuntimeError, match="at least one model"):
        nb.func.stack_module_state([])


def test_stack_module_state_as_torch():
    torch = pytest.importorskip("torch")
    got, want = _ensemble(nb), _ensemble(torch)
    assert tuple(got[0]) == tuple(want[0]) and got[1:] == want[1:]
