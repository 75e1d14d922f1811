"""Adagrad, Adadelta, Adamax, NAdam, RAdam, LBFGS and the lr schedulers against torch.optim:
identical parameters and gradients, several steps; schedulers' lr sequences; errors."""

import copy
import math

import numpy as np
import pytest

import nbgrad as nb
from nbgrad import optim

SHAPES = [(3, 4), (4,), ()]


def _pair(dtype, steps, seed=0):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(steps)]
    return init, grads


CASES = {
    "adagrad": ("Adagrad", {"lr": 0.1}),
    "adagrad-all": (
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.1, "initial_accumulator_value": 0.3},
    ),
    "adagrad-maximize": ("Adagrad", {"lr": 0.1, "maximize": True, "eps": 1e-3}),
    "adadelta": ("Adadelta", {}),
    "adadelta-all": ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
    "adamax": ("Adamax", {"lr": 0.01}),
    "adamax-all": ("Adamax", {"lr": 0.01, "betas": (0.7, 0.9), "weight_decay": 0.2}),
    "adamax-maximize": ("Adamax", {"maximize": True}),
    "nadam": ("NAdam", {"lr": 0.01}),
    "nadam-wd": ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.01}),
    "nadam-decoupled": (
        "NAdam",
        {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True},
    ),
    "radam": ("RAdam", {"lr": 0.01}),
    "radam-wd": ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "betas": (0.8, 0.9)}),
    "radam-decoupled": (
        "RAdam",
        {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True},
    ),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("case", list(CASES))
def test_matches_torch(case, dtype):
    torch = pytest.importorskip("torch")
    name, kw = CASES[case]
    steps = 12  # RAdam's rectified branch starts at step 6 with beta2 = 0.999
    init, grads = _pair(dtype, steps)
    tp = [torch.nn.Parameter(torch.tensor(a)) for a in init]
    npar = [nb.nn.Parameter(nb.tensor(a)) for a in init]
    ot = getattr(torch.optim, name)(tp, **kw)
    on = getattr(optim, name)(npar, **kw)
    for k in range(steps):
        for p, q, g in zip(tp, npar, grads[k]):
            p.grad, q.grad = torch.tensor(g), nb.tensor(g)
        ot.step()
        on.step()
    tol = dict(rtol=1e-11, atol=1e-13) if dtype == np.float64 else dict(rtol=2e-5, atol=2e-6)
    for a, b in zip(tp, npar):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), **tol)
    st_t, st_n = ot.state_dict(), on.state_dict()
    assert st_t["param_groups"] == st_n["param_groups"]
    for i in st_t["state"]:
        assert list(st_t["state"][i]) == list(st_n["state"][i])
        for key, v in st_t["state"][i].items():
            w = st_n["state"][i][key]
            np.testing.assert_allclose(w.numpy(), v.numpy(), **tol)
            assert w.dtype.name == str(v.dtype).replace("torch.", "")


@pytest.mark.parametrize("case", ["adagrad-all", "nadam-wd", "radam", "adadelta", "adamax"])
def test_state_dict_round_trip(case):
    """Resuming from a state_dict continues exactly as the uninterrupted run."""
    name, kw = CASES[case]
    init, grads = _pair(np.float64, 8, seed=3)
    a = [nb.nn.Parameter(nb.tensor(x)) for x in init]
    b = [nb.nn.Parameter(nb.tensor(x)) for x in init]
    oa = getattr(optim, name)(a, **kw)
    for k in range(4):
        for p, g in zip(a, grads[k]):
            p.grad = nb.tensor(g)
        oa.step()
    for p, q in zip(a, b):
        q.detach().numpy()[...] = p.detach().numpy()
    ob = getattr(optim, name)(b, **kw)
    ob.load_state_dict(copy.deepcopy(oa.state_dict()))
    for k in range(4, 8):
        for o, ps in ((oa, a), (ob, b)):
            for p, g in zip(ps, grads[k]):
                p.grad = nb.tensor(g)
            o.step()
    for p, q in zip(a, b):
        np.testing.assert_array_equal(q.detach().numpy(), p.detach().numpy())


def test_param_groups_and_skipped_grads():
    torch = pytest.importorskip("torch")
    init, grads = _pair(np.float64, 4, seed=1)
    tp = [torch.nn.Parameter(torch.tensor(a)) for a in init]
    npar = [nb.nn.Parameter(nb.tensor(a)) for a in init]

    def groups(ps):
        return [{"params": ps[:2], "lr": 0.05}, {"params": ps[2:], "weight_decay": 0.3}]

    ot = torch.optim.NAdam(groups(tp), lr=0.2)
    on = optim.NAdam(groups(npar), lr=0.2)
    for k in range(4):
        for i, (p, q, g) in enumerate(zip(tp, npar, grads[k])):
            if (i + k) % 3 == 0:
                p.grad, q.grad = None, None
            else:
                p.grad, q.grad = torch.tensor(g), nb.tensor(g)
        ot.step()
        on.step()
    for a, b in zip(tp, npar):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-12)


def test_training_loop_with_closure():
    w = nb.nn.Parameter(nb.tensor([3.0, -2.0]))
    opt = optim.Adagrad([w], lr=0.5)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    first = float(opt.step(closure))
    for _ in range(200):
        opt.step(closure)
    assert first == 13.0
    assert np.abs(w.detach().numpy()).max() < 1e-2
    assert w._version > 0  # written in place


def test_read_only_parameter_is_refused():
    a = np.frombuffer(np.ones(3).tobytes(), np.float64)
    p = nb.from_numpy(a).requires_grad_()
    p.grad = nb.ones(3, dtype=nb.float64)
    with pytest.raises(ValueError, match="read-only"):
        optim.RAdam([p]).step()


@pytest.mark.parametrize(
    "ctor, msg",
    [
        (lambda m, p: m.Adagrad(p, lr=-1), "Invalid learning rate: -1"),
        (lambda m, p: m.Adagrad(p, lr_decay=-0.5), "Invalid lr_decay value: -0.5"),
        (
            lambda m, p: m.Adagrad(p, initial_accumulator_value=-1),
            "Invalid initial_accumulator_value value: -1",
        ),
        (lambda m, p: m.Adagrad(p, eps=-1), "Invalid epsilon value: -1"),
        (lambda m, p: m.Adadelta(p, rho=1.5), "Invalid rho value: 1.5"),
        (lambda m, p: m.Adadelta(p, weight_decay=-1), "Invalid weight_decay value: -1"),
        (lambda m, p: m.Adamax(p, betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
        (lambda m, p: m.NAdam(p, betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
        (lambda m, p: m.NAdam(p, momentum_decay=-1), "Invalid momentum_decay value: -1"),
        (lambda m, p: m.RAdam(p, lr=-0.1), "Invalid learning rate: -0.1"),
        (lambda m, p: m.LBFGS(p, lr=-1), "Invalid learning rate: -1"),
    ],
)
def test_errors_match_torch(ctor, msg):
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError) as et:
        ctor(torch.optim, [torch.zeros(1, requires_grad=True)])
    with pytest.raises(ValueError) as en:
        ctor(optim, [nb.zeros(1, requires_grad=True)])
    assert str(et.value) == msg
    assert str(en.value) == msg


def test_lbfgs_refuses_param_groups():
    p, q = nb.zeros(1, requires_grad=True), nb.zeros(1, requires_grad=True)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        optim.LBFGS([{"params": [p]}, {"params": [q]}])


def _rosenbrock(mod, x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


@pytest.mark.parametrize(
    "kw",
    [
        {"line_search_fn": None, "lr": 0.1},
        {"line_search_fn": "strong_wolfe"},
        {"line_search_fn": "strong_wolfe", "history_size": 3, "max_iter": 7},
        {"line_search_fn": None, "lr": 0.05, "history_size": 2, "max_iter": 5, "max_eval": 4},
    ],
)
def test_lbfgs_rosenbrock_matches_torch(kw):
    torch = pytest.importorskip("torch")
    xt = torch.nn.Parameter(torch.tensor([-1.5, 2.0], dtype=torch.float64))
    xn = nb.nn.Parameter(nb.tensor([-1.5, 2.0], dtype=nb.float64))
    ot, on = torch.optim.LBFGS([xt], **kw), optim.LBFGS([xn], **kw)

    def closure(opt, x, mod):
        def f():
            opt.zero_grad()
            loss = _rosenbrock(mod, x)
            loss.backward()
            return loss

        return f

    # Rosenbrock is ill-conditioned: torch's fused multiply-adds and NumPy's differ by an
    # ulp here and there, and the differences grow over the ~60 iterations compared
    for _ in range(3):
        lt = ot.step(closure(ot, xt, torch))
        ln = on.step(closure(on, xn, nb))
        assert math.isclose(float(ln), float(lt.detach()), rel_tol=1e-7, abs_tol=1e-12)
        np.testing.assert_allclose(xn.detach().numpy(), xt.detach().numpy(), rtol=1e-7, atol=1e-9)
    st, sn = ot.state[xt], on.state[xn]
    assert st["func_evals"] == sn["func_evals"] and st["n_iter"] == sn["n_iter"]
    if kw["line_search_fn"] == "strong_wolfe" and kw.get("max_iter", 20) == 20:
        np.testing.assert_allclose(xn.detach().numpy(), [1.0, 1.0], atol=1e-4)  # the minimum


def test_lbfgs_several_params_and_state_round_trip():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    a0, b0 = rng.standard_normal((3, 2)), rng.standard_normal(3)
    target = rng.standard_normal(2)

    def run(mod, opt_mod, ps, steps, opt=None):
        opt = opt or opt_mod.LBFGS(ps, history_size=4, max_iter=3, line_search_fn="strong_wolfe")

        def f():
            opt.zero_grad()
            y = ((ps[1] @ ps[0] - mod.tensor(target)) ** 2).sum() + (ps[0] ** 4).sum()
            y.backward()
            return y

        for _ in range(steps):
            opt.step(f)
        return opt

    tp = [torch.nn.Parameter(torch.tensor(a0)), torch.nn.Parameter(torch.tensor(b0))]
    n1 = [nb.nn.Parameter(nb.tensor(a0)), nb.nn.Parameter(nb.tensor(b0))]
    run(torch, torch.optim, tp, 4)
    o1 = run(nb, optim, n1, 2)
    n2 = [nb.nn.Parameter(nb.tensor(p.detach().numpy().copy())) for p in n1]
    o2 = optim.LBFGS(n2, history_size=4, max_iter=3, line_search_fn="strong_wolfe")
    o2.load_state_dict(copy.deepcopy(o1.state_dict()))
    run(nb, optim, n1, 2, o1)
    run(nb, optim, n2, 2, o2)
    for a, b, c in zip(tp, n1, n2):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(c.detach().numpy(), b.detach().numpy())


# -- schedulers ---------------------------------------------------------------------------


def _schedulers(mod, opt):
    def seq():
        a = mod.ConstantLR(opt, factor=0.5, total_iters=3)
        b = mod.ExponentialLR(opt, gamma=0.9)
        return mod.SequentialLR(opt, [a, b], milestones=[5])

    def chained():
        a = mod.ConstantLR(opt, factor=0.5, total_iters=4)
        b = mod.ExponentialLR(opt, gamma=0.95)
        return mod.ChainedScheduler([a, b])

    return {
        "lambda": lambda: mod.LambdaLR(opt, lambda e: 0.95**e + 0.01 * (e % 3)),
        "multiplicative": lambda: mod.MultiplicativeLR(opt, lambda e: 0.9 if e % 2 else 1.05),
        "exponential": lambda: mod.ExponentialLR(opt, gamma=0.9),
        "multistep": lambda: mod.MultiStepLR(opt, milestones=[3, 8, 8, 20], gamma=0.5),
        "linear": lambda: mod.LinearLR(opt, start_factor=0.25, end_factor=0.9, total_iters=10),
        "constant": lambda: mod.ConstantLR(opt, factor=0.3, total_iters=7),
        "polynomial": lambda: mod.PolynomialLR(opt, total_iters=12, power=2.0),
        "onecycle": lambda: mod.OneCycleLR(opt, max_lr=1.0, total_steps=31),
        "onecycle-3-linear": lambda: mod.OneCycleLR(
            opt,
            max_lr=0.5,
            epochs=4,
            steps_per_epoch=8,
            three_phase=True,
            anneal_strategy="linear",
            pct_start=0.25,
        ),  # fmt: skip
        "cyclic": lambda: mod.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4),
        "cyclic-tri2": lambda: mod.CyclicLR(
            opt, 0.01, 0.1, step_size_up=3, step_size_down=5, mode="triangular2"
        ),
        "cyclic-exp": lambda: mod.CyclicLR(
            opt, 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.97
        ),
        "warm-restarts": lambda: mod.CosineAnnealingWarmRestarts(
            opt, T_0=4, T_mult=2, eta_min=0.01
        ),
        "warm-restarts-1": lambda: mod.CosineAnnealingWarmRestarts(opt, T_0=5),
        "sequential": seq,
        "chained": chained,
    }


def _sgd(mod, torch_like):
    return mod.SGD([torch_like.nn.Parameter(torch_like.zeros(2))], lr=0.1, momentum=0.9)


@pytest.mark.parametrize("kind", list(_schedulers(None, None)))
def test_schedulers_match_torch(kind):
    torch = pytest.importorskip("torch")
    ot, on = _sgd(torch.optim, torch), _sgd(optim, nb)
    st = _schedulers(torch.optim.lr_scheduler, ot)[kind]()
    sn = _schedulers(optim.lr_scheduler, on)[kind]()
    assert st.get_last_lr() == pytest.approx(sn.get_last_lr(), rel=1e-12)
    for _ in range(30):
        ot.step()
        on.step()
        st.step()
        sn.step()
        assert sn.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12, abs=1e-15)
        assert on.param_groups[0]["lr"] == pytest.approx(ot.param_groups[0]["lr"], rel=1e-12)
        assert on.param_groups[0]["momentum"] == pytest.approx(
            ot.param_groups[0]["momentum"], rel=1e-12
        )
    # a fresh scheduler loaded from the state dict continues the same sequence
    sd = sn.state_dict()
    assert "optimizer" not in sd
    on2 = _sgd(optim, nb)
    on2.load_state_dict(on.state_dict())
    sn2 = _schedulers(optim.lr_scheduler, on2)[kind]()
    sn2.load_state_dict(copy.deepcopy(sd))
    on2.load_state_dict(on.state_dict())
    assert sn2.get_last_lr() == sn.get_last_lr()
    if kind.startswith("onecycle"):
        return  # its total steps are spent
    for _ in range(5):
        st.step()
        sn2.step()
        assert sn2.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12, abs=1e-15)


def test_adam_betas_cycle():
    """With an Adam-like optimizer, CyclicLR/OneCycleLR cycle beta1 instead of momentum."""
    torch = pytest.importorskip("torch")
    ot = torch.optim.NAdam([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    on = optim.NAdam([nb.nn.Parameter(nb.zeros(1))], lr=0.1)
    st = torch.optim.lr_scheduler.OneCycleLR(ot, max_lr=0.3, total_steps=10)
    sn = optim.lr_scheduler.OneCycleLR(on, max_lr=0.3, total_steps=10)
    for _ in range(9):
        st.step()
        sn.step()
        assert on.param_groups[0]["betas"] == pytest.approx(ot.param_groups[0]["betas"])
        assert sn.get_last_lr() == pytest.approx(st.get_last_lr())


@pytest.mark.parametrize("mode, threshold_mode", [("min", "rel"), ("max", "abs")])
def test_reduce_lr_on_plateau_matches_torch(mode, threshold_mode):
    torch = pytest.importorskip("torch")
    ot, on = _sgd(torch.optim, torch), _sgd(optim, nb)
    kw = dict(mode=mode, factor=0.5, patience=2, threshold=0.01, cooldown=1, min_lr=0.02)
    kw["threshold_mode"] = threshold_mode
    st = torch.optim.lr_scheduler.ReduceLROnPlateau(ot, **kw)
    sn = optim.lr_scheduler.ReduceLROnPlateau(on, **kw)
    metrics = [5, 4, 4.5, 4.2, 4.1, 4.0, 3.0, 3.5, 3.6, 3.7, 3.8, 3.9, 2, 2, 2, 2, 2, 2, 2, 2]
    for k, m in enumerate(metrics + metrics[::-1]):
        st.step(m)
        sn.step(nb.tensor(float(m)) if k % 2 else m)
        assert sn.get_last_lr() == st.get_last_lr()
        assert sn.num_bad_epochs == st.num_bad_epochs
    sd = sn.state_dict()
    s2 = optim.lr_scheduler.ReduceLROnPlateau(_sgd(optim, nb))
    s2.load_state_dict(sd)
    assert (s2.mode, s2.best, s2.patience) == (mode, sn.best, 2)


def test_scheduler_errors_match_torch():
    torch = pytest.importorskip("torch")
    ot, on = _sgd(torch.optim, torch), _sgd(optim, nb)
    calls = [
        lambda m, o: m.ConstantLR(o, factor=2),
        lambda m, o: m.LinearLR(o, start_factor=0),
        lambda m, o: m.LinearLR(o, end_factor=2),
        lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=0),
        lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
        lambda m, o: m.OneCycleLR(o, max_lr=1.0),
        lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=10, pct_start=2.0),
        lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=10, anneal_strategy="x"),
        lambda m, o: m.CyclicLR(o, 0.1, 1.0, mode="nope"),
        lambda m, o: m.LambdaLR(o, [lambda e: 1.0, lambda e: 1.0]),
        lambda m, o: m.ReduceLROnPlateau(o, factor=1.0),
        lambda m, o: m.ReduceLROnPlateau(o, mode="mid"),
        lambda m, o: m.SequentialLR(o, [m.ExponentialLR(o, 0.9)], milestones=[3]),
        lambda m, o: m.ChainedScheduler([]),
    ]
    for call in calls:
        with pytest.raises(ValueError) as et:
            call(torch.optim.lr_scheduler, ot)
        with pytest.raises(ValueError) as en:
            call(optim.lr_scheduler, on)
        assert str(en.value) == str(et.value)
    sched = optim.lr_scheduler.OneCycleLR(on, max_lr=1.0, total_steps=2)
    sched.step()
    sched.step()
    with pytest.raises(ValueError, match="Tried to step 3 times"):
        sched.step()


@pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")
@pytest.mark.parametrize("case", ["adagrad-all", "adadelta", "nadam-wd", "radam", "adamax-all"])
def test_cuda_parameters_match_cpu(case):
    """On CUDA parameters the update runs on host copies written back: same result as on
    the CPU, state buffers on the device."""
    name, kw = CASES[case]
    init, grads = _pair(np.float64, 3, seed=5)
    runs = []
    for dev in ("cpu", "cuda"):
        ps = [nb.tensor(a, device=dev, requires_grad=True) for a in init]
        o = getattr(optim, name)(ps, **kw)
        for k in range(3):
            for p, g in zip(ps, grads[k]):
                p.grad = nb.tensor(g, device=dev)
            o.step()
        runs.append((ps, o))
    for a, b in zip(runs[0][0], runs[1][0]):
        assert b.is_cuda
        np.testing.assert_allclose(b.detach().cpu().numpy(), a.detach().numpy(), rtol=1e-13)
    st = runs[1][1].state[runs[1][0][0]]
    assert all(v.is_cuda for k, v in st.items() if k not in ("step", "mu_product"))


@pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")
def test_lbfgs_on_cuda_matches_cpu():
    out = []
    for dev in ("cpu", "cuda"):
        x = nb.tensor([-1.5, 2.0], dtype=nb.float64, device=dev, requires_grad=True)
        o = optim.LBFGS([x], line_search_fn="strong_wolfe", max_iter=5)

        def f(o=o, x=x):
            o.zero_grad()
            y = _rosenbrock(nb, x)
            y.backward()
            return y

        o.step(f)
        out.append(x.detach().cpu().numpy())
    np.testing.assert_allclose(out[1], out[0], rtol=1e-12)


def test_user_optimizer_state_starts_empty():
    """`self.state[p]` in a user-written Optimizer subclass reads an empty dict the first
    time (torch.optim's state is a defaultdict), also after load_state_dict; built-in
    optimizers still step after their state was looked at."""

    class CountingSGD(optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, {"lr": lr})

        @nb.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    state = self.state[p]
                    state["n"] = state.get("n", 0) + 1
                    p.sub_(group["lr"] * state["n"] * p.grad)

    w = nb.ones(2, requires_grad=True)
    w.grad = nb.ones(2)
    opt = CountingSGD([w])
    opt.step()
    opt.step()
    np.testing.assert_allclose(w.detach().numpy(), [0.7, 0.7], rtol=1e-6)
    again = CountingSGD([w])
    again.load_state_dict(opt.state_dict())
    again.step()
    assert again.state[w]["n"] == 3
    sgd = optim.SGD([w], lr=0.1, momentum=0.9)
    assert sgd.state[w] == {}
    sgd.step()
    assert sorted(sgd.state[w]) == ["momentum_buffer"]
