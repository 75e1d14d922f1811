"""The hook API around the hooks themselves, compared with PyTorch where installed:
`torch.utils.hooks.RemovableHandle` (what every registration returns), the global module
backward hooks (`nn.modules.module.register_module_full_backward_[pre_]hook`) and the
`torch.vmap` alias of `torch.func.vmap`."""

import pickle
from collections import OrderedDict

import numpy as np
import pytest

import nbgrad as nb


def _handles(m):
    """One handle from each kind of registration."""
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    lin = m.nn.Linear(2, 2)
    mm = m.nn.modules.module
    hs = {
        "tensor": x.register_hook(lambda g: None),
        "non-leaf": y.register_hook(lambda g: None),
        "post-accumulate": x.register_post_accumulate_grad_hook(lambda t: None),
        "node": y.grad_fn.register_hook(lambda gi, go: None),
        "node-pre": y.grad_fn.register_prehook(lambda go: None),
        "accumulate-grad": y.grad_fn.next_functions[0][0].register_hook(lambda gi, go: None),
        "forward": lin.register_forward_hook(lambda *a: None),
        "forward-pre": lin.register_forward_pre_hook(lambda *a: None),
        "backward": lin.register_full_backward_hook(lambda *a: None),
        "backward-pre": lin.register_full_backward_pre_hook(lambda *a: None),
        "global-forward": mm.register_module_forward_hook(lambda *a: None),
        "global-forward-pre": mm.register_module_forward_pre_hook(lambda *a: None),
        "global-backward": mm.register_module_full_backward_hook(lambda *a: None),
        "global-backward-pre": mm.register_module_full_backward_pre_hook(lambda *a: None),
        "multi-grad": m.autograd.graph.register_multi_grad_hook((x,), lambda g: None),
    }
    try:
        kinds = {k: isinstance(h, m.utils.hooks.RemovableHandle) for k, h in hs.items()}
        ids = [h.id for k, h in hs.items() if k != "multi-grad"]
    finally:
        for h in hs.values():
            h.remove()
            h.remove()  # a second remove does nothing
    return kinds, ids


def test_every_registration_returns_a_removable_handle():
    kinds, ids = _handles(nb)
    assert all(kinds.values()), [k for k, v in kinds.items() if not v]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)  # one sequence for all
    assert not hasattr(nb.autograd.graph.register_multi_grad_hook(
        (nb.ones(1, requires_grad=True),), lambda g: None), "id")  # fmt: skip


def test_handles_as_torch():
    torch = pytest.importorskip("torch")
    assert _handles(nb)[0] == _handles(torch)[0]


def _removable_handle(m):
    RH = m.utils.hooks.RemovableHandle
    hooks, extra = OrderedDict(), OrderedDict()
    h = RH(hooks, extra_dict=extra)
    hooks[h.id], extra[h.id] = "hook", "extra"
    h2 = RH(hooks)
    hooks[h2.id] = "second"
    out = [h2.id - h.id, list(hooks.values())]
    with h as same:
        out.append((same is h, list(hooks.values()), list(extra.values())))
    out.append((list(hooks.values()), list(extra.values())))
    # pickled with its dictionaries; the copy removes from the copied dictionary
    h3 = RH(hooks)
    hooks[h3.id] = "third"
    d2, h3b = pickle.loads(pickle.dumps((hooks, h3)))
    h3b.remove()
    out.append((h3b.id == h3.id, list(d2.values()), list(hooks.values())))
    # a handle whose dictionary is gone removes nothing
    gone = OrderedDict()
    h4 = RH(gone)
    del gone
    h4.remove()
    out.append(RH(OrderedDict()).id > h4.id)
    with pytest.raises(TypeError):
        RH({})  # a plain dict cannot be referenced weakly (nor in PyTorch)
    out.append(m.utils.hooks.unserializable_hook(lambda g: g).__torch_unserializable__)
    return out


def test_removable_handle_class():
    out = _removable_handle(nb)
    assert out[:3] == [1, ["hook", "second"], (True, ["hook", "second"], ["extra"])]
    assert out[3] == (["second"], [])
    assert out[4] == (True, ["second"], ["second", "third"])
    assert out[5] is True and out[6] is True


def test_removable_handle_class_as_torch():
    torch = pytest.importorskip("torch")
    assert _removable_handle(nb) == _removable_handle(torch)


def _global_backward_hooks(m):
    """Order of global and own backward hooks, their replacements, and which hooks a call
    runs (those registered when the forward ran)."""
    mm = m.nn.modules.module
    m.manual_seed(0)
    lin = m.nn.Linear(2, 2)
    with m.no_grad():
        lin.weight.copy_(m.tensor([[1.0, -2.0], [0.5, 3.0]]))
        lin.bias.copy_(m.tensor([0.1, -0.2]))
    seq = m.nn.Sequential(lin, m.nn.Tanh())
    x = m.tensor([[0.3, -0.4]], requires_grad=True)
    seen = []

    def glob(mod, gi, go):
        seen.append(("glob", type(mod).__name__, [None if g is None else g.tolist() for g in gi]))
        if type(mod).__name__ == "Linear":
            return (gi[0] * 2,)

    def glob_pre(mod, go):
        seen.append(("pre", type(mod).__name__, go[0].tolist()))
        if type(mod).__name__ == "Tanh":
            return (go[0] + 1,)

    hs = [
        mm.register_module_full_backward_hook(glob),
        mm.register_module_full_backward_pre_hook(glob_pre),
        lin.register_full_backward_hook(lambda mod, gi, go: seen.append("own")),
        lin.register_full_backward_pre_hook(lambda mod, go: seen.append("own-pre")),
    ]
    seq(x).sum().backward()
    out = [seen[:], x.grad.tolist()]
    seen.clear()
    # hooks registered after the forward do not run; removed ones still do
    y = seq(x)
    for h in hs:
        h.remove()
    late = mm.register_module_full_backward_hook(lambda *a: seen.append("late"))
    y.sum().backward()
    late.remove()
    out.append(seen[:])
    seen.clear()
    seq(x).sum().backward()
    out.append(seen)
    return out


def test_global_backward_hooks():
    (first, grad, captured, after) = _global_backward_hooks(nb)
    names = [e if isinstance(e, str) else e[:2] for e in first]
    assert names == [("pre", "Sequential"), ("pre", "Tanh"), ("glob", "Tanh"),
                     ("pre", "Linear"), "own-pre", ("glob", "Linear"), "own",
                     ("glob", "Sequential")]  # fmt: skip
    # the Tanh pre hook adds 1 to its output gradient, the Linear hook doubles grad_input
    z = np.array([[0.3, -0.4]]) @ np.array([[1.0, -2.0], [0.5, 3.0]]).T + [0.1, -0.2]
    want = 2 * ((1 + 1) * (1 - np.tanh(z) ** 2)) @ np.array([[1.0, -2.0], [0.5, 3.0]])
    np.testing.assert_allclose(grad, want, rtol=1e-6)
    assert [e if isinstance(e, str) else e[:2] for e in captured] == names
    assert after == []


def test_global_backward_hooks_as_torch():
    torch = pytest.importorskip("torch")
    want = _global_backward_hooks(torch)
    got = _global_backward_hooks(nb)
    assert [e if isinstance(e, str) else e[:2] for e in got[0]] == [
        e if isinstance(e, str) else e[:2] for e in want[0]
    ]
    for a, b in zip(got[0], want[0]):
        if not isinstance(a, str):
            np.testing.assert_allclose(np.array(a[2], dtype=float), np.array(b[2], dtype=float),
                                       rtol=1e-6)  # fmt: skip
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    assert got[2:] == want[2:] or [
        [e if isinstance(e, str) else e[:2] for e in s] for s in got[2:]
    ] == [[e if isinstance(e, str) else e[:2] for e in s] for s in want[2:]]


def test_global_backward_hook_errors_as_torch():
    torch = pytest.importorskip("torch")
    msgs = []
    for m in (nb, torch):
        mm = m.nn.modules.module
        h = mm.register_module_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
        x = m.ones(1, 2, requires_grad=True)
        try:
            with pytest.raises(RuntimeError) as e:
                m.nn.Tanh()(x).sum().backward()
        finally:
            h.remove()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_torch_vmap_is_func_vmap():
    assert nb.vmap is nb.func.vmap
    assert "vmap" in dir(nb)
    x = nb.tensor(np.arange(6.0).reshape(3, 2))
    w = nb.tensor([1.0, -1.0])
    np.testing.assert_allclose(nb.vmap(nb.dot, in_dims=(0, None))(x, w).numpy(), [-1.0] * 3)


def _chain(m, hooked):
    """The small-op chain with gradient hooks on some of its intermediate values."""
    x = m.tensor(np.linspace(-1, 1, 16), requires_grad=True)
    y, seen = x, []
    for i in range(40):
        y = (y * 1.01).sin() + x
        if i in hooked:
            y.register_hook(lambda g, i=i: seen.append(i) or g * 2)
    y.sum().backward()
    return x.grad.numpy(), seen


def test_the_compiled_sweep_stops_only_at_hooked_rows(monkeypatch):
    """A backward without hooks is one compiled sweep; each hooked value adds one stop."""
    from nbgrad.backends.cpu import dispatch

    calls = []
    sweep = dispatch.sweep

    def counting(*a):
        calls.append(1)
        return sweep(*a)

    monkeypatch.setattr(dispatch, "sweep", counting)
    plain, _ = _chain(nb, ())
    assert len(calls) == 1
    calls.clear()
    g, seen = _chain(nb, (10, 25))
    assert len(calls) == 3 and seen == [25, 10]
    torch = pytest.importorskip("torch")
    want, want_seen = _chain(torch, (10, 25))
    np.testing.assert_allclose(g, want, rtol=1e-12)
    np.testing.assert_allclose(plain, _chain(torch, ())[0], rtol=1e-12)
    assert seen == want_seen
