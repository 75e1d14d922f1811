"""nbgrad.optim against torch.optim: identical parameters and gradients, several steps."""

import math

import numpy as np
import pytest

import nbgrad as nb
from nbgrad import optim

SHAPES = [(3, 4), (4,), (2,), ()]


def _pair(dtype, steps, seed=0):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(steps)]
    return init, grads


CASES = {
    "sgd": ("SGD", {"lr": 0.1}),
    "sgd-momentum": ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    "sgd-nesterov": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "maximize": True}),
    "adam": ("Adam", {"lr": 0.01}),
    "adam-wd-amsgrad": ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    "adamw": ("AdamW", {"lr": 0.01, "betas": (0.8, 0.9)}),
    "adamw-maximize": ("AdamW", {"lr": 0.01, "maximize": True, "amsgrad": True}),
    "rmsprop": ("RMSprop", {"lr": 0.01}),
    "rmsprop-centered-momentum": (
        "RMSprop",
        {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.1},
    ),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("case", list(CASES))
def test_matches_torch(case, dtype):
    torch = pytest.importorskip("torch")
    name, kw = CASES[case]
    steps = 7
    init, grads = _pair(dtype, steps)
    tp = [torch.nn.Parameter(torch.tensor(a)) for a in init]
    npar = [nb.nn.Parameter(nb.tensor(a)) for a in init]
    ot = getattr(torch.optim, name)(tp, **kw)
    on = getattr(optim, name)(npar, **kw)
    for k in range(steps):
        for p, g in zip(tp, grads[k]):
            p.grad = torch.tensor(g)
        for p, g in zip(npar, grads[k]):
            p.grad = nb.tensor(g)
        ot.step()
        on.step()
    tol = dict(rtol=1e-12, atol=1e-14) if dtype == np.float64 else dict(rtol=2e-5, atol=1e-6)
    for a, b in zip(tp, npar):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), **tol)
    # the state has torch's keys, values and the float32 step count
    st_t, st_n = ot.state_dict(), on.state_dict()
    assert st_t["param_groups"] == st_n["param_groups"]
    for i in st_t["state"]:
        assert list(st_t["state"][i]) == list(st_n["state"][i])
        for key, v in st_t["state"][i].items():
            w = st_n["state"][i][key]
            np.testing.assert_allclose(w.numpy(), v.numpy(), **tol)
            assert w.dtype.name == str(v.dtype).replace("torch.", "")


def test_param_groups_one_step_and_skipped_grads():
    torch = pytest.importorskip("torch")
    init, grads = _pair(np.float64, 3, seed=1)
    tp = [torch.nn.Parameter(torch.tensor(a)) for a in init]
    npar = [nb.nn.Parameter(nb.tensor(a)) for a in init]

    def groups(ps):
        return [{"params": ps[:2], "lr": 0.05, "momentum": 0.5}, {"params": ps[2:]}]

    ot = torch.optim.SGD(groups(tp), lr=0.2)
    on = optim.SGD(groups(npar), lr=0.2)
    for k in range(3):
        for i, (p, q, g) in enumerate(zip(tp, npar, grads[k])):
            if (i + k) % 3 == 0:  # some parameters have no gradient this step: skipped
                p.grad, q.grad = None, None
            else:
                p.grad, q.grad = torch.tensor(g), nb.tensor(g)
        ot.step()
        on.step()
    for a, b in zip(tp, npar):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-12)


def test_training_loop_and_zero_grad():
    nb.manual_seed(0)
    w = nb.nn.Parameter(nb.tensor([3.0, -2.0]))
    opt = optim.SGD([w], lr=0.1)
    for _ in range(100):
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        opt.step()
    assert w.grad is not None
    opt.zero_grad()
    assert w.grad is None
    loss = (w * w).sum()
    loss.backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad is not None and float(w.grad.abs().sum()) == 0.0
    assert np.abs(w.detach().numpy()).max() < 1e-8


def test_closure():
    w = nb.nn.Parameter(nb.tensor([1.0]))
    opt = optim.SGD([w], lr=0.5)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert float(loss) == 1.0
    assert float(w.detach()) == 0.0


def test_state_dict_round_trip():
    init, grads = _pair(np.float32, 4, seed=2)
    a = [nb.nn.Parameter(nb.tensor(x)) for x in init]
    b = [nb.nn.Parameter(nb.tensor(x)) for x in init]
    oa = optim.Adam(a, lr=0.01)
    for k in range(2):
        for p, g in zip(a, grads[k]):
            p.grad = nb.tensor(g)
        oa.step()
    for p, q in zip(a, b):
        q.data = p.detach().clone()
    ob = optim.Adam(b, lr=0.5)
    ob.load_state_dict(oa.state_dict())
    assert ob.param_groups[0]["lr"] == 0.01
    for k in range(2, 4):
        for p, q, g in zip(a, b, grads[k]):
            p.grad = nb.tensor(g)
            q.grad = nb.tensor(g)
        oa.step()
        ob.step()
    for p, q in zip(a, b):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_errors():
    w = nb.nn.Parameter(nb.tensor([1.0]))
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.Adam([w], lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires"):
        optim.SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)
    y = w * 2
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([y], lr=0.1)
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        optim.SGD([1.0], lr=0.1)


def test_repr():
    w = nb.nn.Parameter(nb.tensor([1.0]))
    r = repr(optim.SGD([w], lr=0.1))
    assert r.startswith("SGD (\nParameter Group 0\n    dampening: 0\n")
    assert "    lr: 0.1\n" in r and r.endswith(")")


def _schedulers(mod, opt):
    return {
        "step": lambda: mod.StepLR(opt, step_size=3, gamma=0.5),
        "cosine": lambda: mod.CosineAnnealingLR(opt, T_max=5, eta_min=0.001),
    }


@pytest.mark.parametrize("kind", ["step", "cosine"])
def test_schedulers_match_torch(kind):
    torch = pytest.importorskip("torch")
    ot = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    on = optim.SGD([nb.nn.Parameter(nb.zeros(1))], lr=0.1)
    st = _schedulers(torch.optim.lr_scheduler, ot)[kind]()
    sn = _schedulers(optim.lr_scheduler, on)[kind]()
    for _ in range(17):
        ot.step()
        on.step()
        st.step()
        sn.step()
        assert math.isclose(st.get_last_lr()[0], sn.get_last_lr()[0], rel_tol=1e-12)
        assert math.isclose(ot.param_groups[0]["lr"], on.param_groups[0]["lr"], rel_tol=1e-12)
    sd = sn.state_dict()
    assert sd["last_epoch"] == 17 and "optimizer" not in sd


def test_one_kernel_call_per_step(monkeypatch):
    """The whole update is one compiled call, whatever the number of parameters."""
    from nbgrad.optim import adam

    calls = []
    kernel = optim.Adam._kernel

    def spy(*args):
        calls.append(args[0].shape)
        return kernel(*args)

    monkeypatch.setattr(adam.Adam, "_kernel", spy)
    ps = [nb.nn.Parameter(nb.randn(5)) for _ in range(20)]
    opt = optim.Adam(ps, lr=0.1)
    for p in ps:
        p.grad = nb.ones(5)
    opt.step()
    assert calls == [(20, 6)]


def test_buffer_mismatch_is_refused():
    model = nb.nn.Linear(3, 2)
    opt = optim.Adam(model.parameters(), lr=0.1)
    model(nb.ones(1, 3)).sum().backward()
    opt.step()
    model.double()  # the state buffers are still float32
    model.zero_grad()
    model(nb.ones(1, 3, dtype=nb.float64)).sum().backward()
    with pytest.raises(RuntimeError, match="does not match its parameter"):
        opt.step()
