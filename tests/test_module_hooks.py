"""Module forward hooks with PyTorch's semantics: pre-hooks that replace the arguments,
hooks that read or replace the output, with_kwargs, always_call, prepend, removal, and
global hooks for every module. Compared with PyTorch where installed."""

import numpy as np
import pytest

import nbgrad as nb


def _program(m):
    """Feature extraction, argument and output rewriting, order and removal."""
    mm = m.nn.modules.module
    m.manual_seed(0)
    net = m.nn.Sequential(m.nn.Linear(3, 4), m.nn.Tanh(), m.nn.Linear(4, 2))
    with m.no_grad():
        for i, p in enumerate(net.parameters()):
            p.copy_(m.tensor(np.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1)))
    x = m.tensor(np.arange(6.0).reshape(2, 3) / 5, dtype=m.float32)
    log, feats = [], {}
    net[1].register_forward_hook(lambda mod, a, out: feats.__setitem__("h", out.detach()))
    h1 = net[0].register_forward_pre_hook(lambda mod, a: (a[0] * 2,))
    net[0].register_forward_pre_hook(lambda mod, a: log.append("first"), prepend=True)
    net[2].register_forward_hook(lambda mod, a, out: out + 1)
    net[2].register_forward_hook(lambda mod, a, kw, out: log.append(("kw", sorted(kw))),
                                 with_kwargs=True)  # fmt: skip
    y1 = net(x)
    h1.remove()
    y2 = net(x)
    g = mm.register_module_forward_hook(lambda mod, a, out: log.append(type(mod).__name__))
    try:
        net(x)
    finally:
        g.remove()
    net(x)
    y1.sum().backward()
    return (
        y1.detach().numpy(),
        y2.detach().numpy(),
        feats["h"].numpy(),
        net[0].weight.grad.numpy(),
        log,
    )


def test_forward_hooks_read_and_rewrite():
    y1, y2, h, gw, log = _program(nb)
    assert not np.allclose(y1, y2)  # the pre-hook doubled the input only before removal
    assert log[:2] == ["first", ("kw", [])]
    assert log[2:4] == ["first", ("kw", [])]
    # a global hook runs before the module's own; a module's hooks run when it returns
    assert log[4:] == ["first", "Linear", "Tanh", "Linear", ("kw", []), "Sequential",
                       "first", ("kw", [])]  # fmt: skip


def test_forward_hooks_as_torch():
    torch = pytest.importorskip("torch")
    got, want = _program(nb), _program(torch)
    for g, w in zip(got[:4], want[:4]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    assert got[4] == want[4]


def _kwargs_and_always(m):
    class Scale(m.nn.Module):
        def forward(self, x, scale=1.0):
            if scale < 0:
                raise ValueError("negative scale")
            return x * scale

    mod, seen = Scale(), []
    mod.register_forward_pre_hook(lambda mod, a, kw: (a, {"scale": kw.get("scale", 1.0) * 3}),
                                  with_kwargs=True)  # fmt: skip
    mod.register_forward_hook(lambda mod, a, out: seen.append(out), always_call=True)
    y = mod(m.tensor([1.0, 2.0]), scale=2.0)
    with pytest.raises(ValueError):
        mod(m.tensor([1.0]), scale=-1.0)
    bad = mod.register_forward_pre_hook(lambda mod, a, kw: 5, with_kwargs=True)
    with pytest.raises(RuntimeError) as e:
        mod(m.tensor([1.0]))
    bad.remove()
    return y.tolist(), [None if s is None else s.tolist() for s in seen], str(e.value)


def test_kwargs_and_always_call():
    y, seen, err = _kwargs_and_always(nb)
    assert y == [6.0, 12.0] and seen == [[6.0, 12.0], None, None]  # raised: output None
    assert "must return None or a tuple of (new_args, new_kwargs)" in err


def test_kwargs_and_always_call_as_torch():
    torch = pytest.importorskip("torch")
    assert _kwargs_and_always(nb) == _kwargs_and_always(torch)


def _backward_hooks(m):
    out = []

    def show(gs):
        return [None if g is None else g.tolist() for g in gs]

    class M(m.nn.Module):
        def forward(self, a, k, b):
            return a * k + b, a - b

    mod = M()
    mod.register_full_backward_hook(lambda mod, gi, go: out.append(("h", show(gi), show(go))))
    a, b = m.ones(2, requires_grad=True), m.ones(2)
    o1, o2 = mod(a, 3.0, b)
    o1.sum().backward()
    mod.register_full_backward_pre_hook(lambda mod, go: out.append(("pre", show(go))))
    o1, o2 = mod(a, 3.0, b)
    (o1.sum() + o2.sum()).backward()
    m2 = M()
    m2.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 100, gi[1], gi[2]))
    a.grad, b = None, m.ones(2, requires_grad=True)
    o1, o2 = m2(a, 3.0, b)
    o1.sum().backward()
    out.append((a.grad.tolist(), b.grad.tolist()))
    m3 = M()
    m3.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10, go[1]))
    a.grad = None
    o1, o2 = m3(a, 3.0, b)
    o1.sum().backward()
    out.append(a.grad.tolist())
    lin = m.nn.Linear(3, 2)
    lin.register_full_backward_hook(lambda mod, gi, go: out.append(("lin", show(gi))))
    lin(m.ones(4, 3)).sum().backward()  # no input takes a gradient: fires at the output
    bad = M()
    bad.register_full_backward_hook(lambda mod, gi, go: (gi[0],))
    o1, _ = bad(a, 3.0, b)
    with pytest.raises(RuntimeError) as e:
        o1.sum().backward()
    out.append(str(e.value))
    return out


def test_full_backward_hooks():
    out = _backward_hooks(nb)
    assert out[0] == ("h", [[3.0, 3.0], None, [0.0, 0.0]], [[1.0, 1.0], None])
    assert out[1] == ("pre", [[1.0, 1.0], [1.0, 1.0]])
    assert out[3] == ([300.0, 300.0], [1.0, 1.0])
    assert out[4] == [30.0, 30.0]
    assert out[5] == ("lin", [None])
    assert out[6] == "Backward hook returned an invalid number of grad_input, got 1, but expected 3"


def test_full_backward_hooks_as_torch():
    torch = pytest.importorskip("torch")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch warns when no input takes a gradient
        want = _backward_hooks(torch)
    assert _backward_hooks(nb) == want
