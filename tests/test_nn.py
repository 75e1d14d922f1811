"""nbgrad.nn: Module bookkeeping, Parameter, layers, losses and init, against torch.nn."""

import math

import numpy as np
import pytest

import nbgrad as nb
from nbgrad import nn


def _torch():
    return pytest.importorskip("torch")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.Tanh()
        self.blocks = nn.ModuleList([nn.Linear(8, 8), nn.Linear(8, 8, bias=False)])
        self.head = nn.Sequential(nn.LayerNorm(8), nn.Linear(8, 3))
        self.register_buffer("scale", nb.ones(3))

    def forward(self, x):
        x = self.act(self.fc1(x))
        for b in self.blocks:
            x = b(x).relu()
        return self.head(x) * self.scale


def _copy_to_torch(model, tmodel):
    torch = _torch()
    with torch.no_grad():
        for (n1, p1), (n2, p2) in zip(model.state_dict().items(), tmodel.state_dict().items()):
            assert n1 == n2
            p2.copy_(torch.tensor(p1.numpy()))


class TNet:
    """The same network in torch (built lazily so the module imports without torch)."""

    @staticmethod
    def make():
        torch = _torch()
        tnn = torch.nn

        class _TNet(tnn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = tnn.Linear(4, 8)
                self.act = tnn.Tanh()
                self.blocks = tnn.ModuleList([tnn.Linear(8, 8), tnn.Linear(8, 8, bias=False)])
                self.head = tnn.Sequential(tnn.LayerNorm(8), tnn.Linear(8, 3))
                self.register_buffer("scale", torch.ones(3))

            def forward(self, x):
                x = self.act(self.fc1(x))
                for b in self.blocks:
                    x = b(x).relu()
                return self.head(x) * self.scale

        return _TNet()


def test_registration_and_traversal():
    m = Net()
    names = [n for n, _ in m.named_parameters()]
    assert names == [
        "fc1.weight",
        "fc1.bias",
        "blocks.0.weight",
        "blocks.0.bias",
        "blocks.1.weight",
        "head.0.weight",
        "head.0.bias",
        "head.1.weight",
        "head.1.bias",
    ]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in m.parameters())
    assert [type(c).__name__ for c in m.children()] == [
        "Linear",
        "Tanh",
        "ModuleList",
        "Sequential",
    ]
    assert len(list(m.modules())) == 9
    assert list(m.state_dict()) == ["scale"] + names  # own members first, as torch
    assert [n for n, _ in m.named_buffers()] == ["scale"]
    assert m.get_parameter("head.1.bias") is m.head[1].bias


def test_matches_torch_forward_backward_state_dict_and_repr():
    torch = _torch()
    m, tm = Net(), TNet.make()
    assert list(m.state_dict()) == list(tm.state_dict())
    _copy_to_torch(m, tm)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    y = m(nb.tensor(x))
    ty = tm(torch.tensor(x))
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    for (n, p), (_, tp) in zip(m.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=n)
    assert repr(m) == repr(tm).replace("_TNet", "Net")


def test_module_repr_matches_torch():
    torch = _torch()
    tnn = torch.nn

    def build(n):
        return n.Sequential(
            n.Linear(64, 128),
            n.ReLU(),
            n.Dropout(0.1),
            n.GELU(approximate="tanh"),
            n.LeakyReLU(0.2),
            n.Embedding(10, 3, padding_idx=0),
            n.LayerNorm(5, eps=1e-6),
            n.Softmax(dim=1),
            n.LogSoftmax(dim=-1),
            n.ELU(),
            n.Softplus(),
            n.SiLU(),
            n.Sigmoid(),
            n.Tanh(),
            n.Identity(),
            n.Flatten(),
            n.Linear(3, 1, bias=False),
            n.MSELoss(),
            n.CrossEntropyLoss(),
            n.BCEWithLogitsLoss(),
        )

    assert repr(build(nn)) == repr(build(tnn))


def test_parameter():
    p = nn.Parameter(nb.tensor([1.0, 2.0]))
    assert isinstance(p, nb.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    q = nn.Parameter(nb.tensor([1.0]), requires_grad=False)
    assert not q.requires_grad
    t = nb.tensor([3.0, 4.0])
    shared = nn.Parameter(t)
    t[0] = 7.0
    assert float(shared[0]) == 7.0  # shares memory with the tensor it wraps
    # ops on a Parameter (general path) give the same values and gradients as on a Tensor
    x = nb.tensor([0.5, -1.5], requires_grad=True)
    for f in (
        lambda a, b: a * b + a,
        lambda a, b: (a - b).exp() / (b * b + 1.0),
        lambda a, b: (a.sin() * 2.0 + b).tanh().sum(),
        lambda a, b: a @ b,
    ):
        pa = nn.Parameter(nb.tensor([0.5, -1.5]))
        out_p = f(pa, shared)
        out_t = f(x, shared)
        assert type(out_p) is nb.Tensor
        np.testing.assert_allclose(out_p.detach().numpy(), out_t.detach().numpy())
        out_p.sum().backward()
        out_t.sum().backward()
        np.testing.assert_allclose(pa.grad.numpy(), x.grad.numpy())
        x.grad = None
        shared.grad = None


def test_linear_default_init():
    nb.manual_seed(0)
    lin = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w = lin.weight.detach().numpy()
    b = lin.bias.detach().numpy()
    assert w.shape == (300, 400) and b.shape == (300,)
    assert w.dtype == np.float32
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    # uniform on [-bound, bound]: std = bound / sqrt(3)
    assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound
    assert nn.Linear(2, 2, dtype=nb.float64).weight.dtype is nb.float64
    assert nn.Linear(2, 2, bias=False).bias is None


def test_init_functions():
    torch = _torch()
    for nl, param in [
        ("linear", None),
        ("relu", None),
        ("tanh", None),
        ("leaky_relu", 0.2),
        ("leaky_relu", None),
        ("selu", None),
        ("sigmoid", None),
    ]:
        assert nn.init.calculate_gain(nl, param) == torch.nn.init.calculate_gain(nl, param)
    t = nb.empty(200, 100)
    nn.init.zeros_(t)
    assert float(t.abs().sum()) == 0
    nn.init.ones_(t)
    assert float(t.sum()) == 20000
    nn.init.constant_(t, 0.5)
    assert float(t.mean()) == 0.5
    nn.init.xavier_uniform_(t)
    a = math.sqrt(6 / 300)
    assert np.abs(t.numpy()).max() <= a and abs(t.numpy().std() - a / math.sqrt(3)) < 0.02 * a
    nn.init.xavier_normal_(t)
    assert abs(t.numpy().std() - math.sqrt(2 / 300)) < 0.03 * math.sqrt(2 / 300)
    nn.init.kaiming_uniform_(t, nonlinearity="relu")
    bound = math.sqrt(6 / 100)
    assert np.abs(t.numpy()).max() <= bound
    nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu")
    assert abs(t.numpy().std() - math.sqrt(2 / 200)) < 0.03 * math.sqrt(2 / 200)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(nb.empty(3))
    # init does not record on the tape, even on parameters
    p = nn.Parameter(nb.empty(3, 3))
    nn.init.normal_(p)
    assert p.is_leaf and p.grad_fn is None


def test_state_dict_load_and_errors():
    a, b = Net(), Net()
    sd = a.state_dict()
    assert all(not t.requires_grad for t in sd.values())
    res = b.load_state_dict(sd)
    assert repr(res) == "<All keys matched successfully>"
    for (n, p), q in zip(a.state_dict().items(), b.state_dict().values()):
        np.testing.assert_array_equal(p.numpy(), q.numpy(), err_msg=n)
    w = b.fc1.weight
    b.load_state_dict(Net().state_dict())
    assert b.fc1.weight is w  # copied in place: the optimizer's references stay valid
    bad = dict(sd)
    del bad["fc1.bias"]
    bad["extra"] = nb.zeros(1)
    with pytest.raises(RuntimeError) as e:
        b.load_state_dict(bad)
    assert str(e.value) == (
        "Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "
        '"fc1.bias". \n\tUnexpected key(s) in state_dict: "extra". '
    )
    res = b.load_state_dict(bad, strict=False)
    assert res.missing_keys == ["fc1.bias"] and res.unexpected_keys == ["extra"]
    bad = dict(sd)
    bad["fc1.weight"] = nb.zeros(2, 2)
    with pytest.raises(
        RuntimeError, match="size mismatch for fc1.weight: copying a param with shape"
    ):
        b.load_state_dict(bad)


def test_setattr_rules():
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign"):
        m.weight = nb.zeros(2, 2)
    m.weight = nn.Parameter(nb.zeros(2, 2))
    assert float(m(nb.ones(1, 2)).sum()) == float(m.bias.sum())
    m.extra = nn.Parameter(nb.zeros(1))
    assert "extra" in dict(m.named_parameters())
    del m.extra
    assert "extra" not in dict(m.named_parameters())

    class Bad(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(nb.zeros(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Bad()
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(1)


def test_train_eval_dropout():
    nb.manual_seed(1)
    m = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
    assert m.training and m[1].training
    m.eval()
    assert not m.training and not m[1].training
    x = nb.ones(1000, 3)
    d = nn.Dropout(0.25)
    y = d(x).numpy()
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.2 < (y == 0).mean() < 0.3
    d.eval()
    np.testing.assert_array_equal(d(x).numpy(), x.numpy())
    with pytest.raises(ValueError):
        nn.Dropout(1.5)


def test_zero_grad_and_requires_grad():
    m = nn.Linear(3, 2)
    m(nb.ones(4, 3)).sum().backward()
    assert m.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert float(m.weight.grad.abs().sum()) == 0
    m.zero_grad()
    assert m.weight.grad is None
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_to_dtype():
    m = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    m.double()
    assert m[0].weight.dtype is nb.float64
    y = m(nb.ones(1, 3, dtype=nb.float64))
    y.sum().backward()
    assert m[0].weight.grad.dtype is nb.float64
    m.to(nb.float32)
    assert m[0].bias.dtype is nb.float32


def _layers_pair(torch):
    return [
        (nn.LayerNorm(6), torch.nn.LayerNorm(6)),
        (nn.GELU(), torch.nn.GELU()),
        (nn.GELU("tanh"), torch.nn.GELU("tanh")),
        (nn.SiLU(), torch.nn.SiLU()),
        (nn.LeakyReLU(0.1), torch.nn.LeakyReLU(0.1)),
        (nn.ELU(0.7), torch.nn.ELU(0.7)),
        (nn.Softplus(2.0), torch.nn.Softplus(2.0)),
        (nn.Softmax(1), torch.nn.Softmax(1)),
        (nn.LogSoftmax(-1), torch.nn.LogSoftmax(-1)),
        (nn.Sigmoid(), torch.nn.Sigmoid()),
        (nn.Tanh(), torch.nn.Tanh()),
        (nn.ReLU(), torch.nn.ReLU()),
        (nn.Flatten(0), torch.nn.Flatten(0)),
    ]


@pytest.mark.parametrize("i", range(13))
def test_layers_match_torch(i):
    torch = _torch()
    m, tm = _layers_pair(torch)[i]
    x = np.random.default_rng(i).standard_normal((4, 6))
    xn = nb.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    if list(m.parameters()):
        m.double()
        tm.double()
        _copy_to_torch(m, tm)
    y, ty = m(xn), tm(xt)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = np.random.default_rng(10 + i).standard_normal(y.shape)
    y.backward(nb.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)
    for p, tp in zip(m.parameters(), tm.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_embedding_matches_torch():
    torch = _torch()
    e = nn.Embedding(7, 3, padding_idx=1)
    te = torch.nn.Embedding(7, 3, padding_idx=1)
    assert float(e.weight[1].abs().sum()) == 0
    _copy_to_torch(e, te)
    idx = [[0, 1, 2, 2], [6, 2, 0, 1]]
    y = e(nb.tensor(idx))
    ty = te(torch.tensor(idx))
    assert tuple(y.shape) == (2, 4, 3)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy())
    g = np.random.default_rng(0).standard_normal((2, 4, 3)).astype(np.float32)
    y.backward(nb.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(e.weight.grad.numpy(), te.weight.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_match_torch(reduction):
    torch = _torch()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 5))
    y_cls = rng.integers(0, 5, 6)
    y_bin = rng.integers(0, 2, (6, 5)).astype(np.float64)
    y_reg = rng.standard_normal((6, 5))
    cases = [
        (nn.MSELoss, torch.nn.MSELoss, y_reg),
        (nn.L1Loss, torch.nn.L1Loss, y_reg),
        (nn.CrossEntropyLoss, torch.nn.CrossEntropyLoss, y_cls),
        (nn.BCEWithLogitsLoss, torch.nn.BCEWithLogitsLoss, y_bin),
    ]
    for mk, tmk, tgt in cases:
        xn = nb.tensor(x, requires_grad=True)
        xt = torch.tensor(x, requires_grad=True)
        ln = mk(reduction=reduction)(xn, nb.tensor(tgt))
        lt = tmk(reduction=reduction)(xt, torch.tensor(tgt))
        np.testing.assert_allclose(ln.detach().numpy(), lt.detach().numpy(), rtol=1e-10)
        ln.sum().backward()
        lt.sum().backward()
        np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_mlp_trains():
    nb.manual_seed(0)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((128, 2)).astype(np.float32)
    y = (X[:, 0] * X[:, 1] > 0).astype(np.int64)
    model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))
    opt = nb.optim.Adam(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    xt, yt = nb.tensor(X), nb.tensor(y)
    for _ in range(200):
        opt.zero_grad()
        loss = loss_fn(model(xt), yt)
        loss.backward()
        opt.step()
    acc = (model(xt).detach().numpy().argmax(1) == y).mean()
    assert acc > 0.95


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_norm_matches_torch(norm_type):
    torch = _torch()
    rng = np.random.default_rng(5)
    grads = [rng.standard_normal(s) for s in [(3, 4), (4,), (2, 2)]]
    ps = [nn.Parameter(nb.zeros(*g.shape, dtype=nb.float64)) for g in grads]
    tps = [torch.nn.Parameter(torch.zeros(g.shape, dtype=torch.float64)) for g in grads]
    for p, tp, g in zip(ps, tps, grads):
        p.grad = nb.tensor(g)
        tp.grad = torch.tensor(g)
    n = nn.utils.clip_grad_norm_(ps, 1.5, norm_type=norm_type)
    tn = torch.nn.utils.clip_grad_norm_(tps, 1.5, norm_type=norm_type)
    assert abs(float(n) - float(tn)) < 1e-12
    for p, tp in zip(ps, tps):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-12)
    nn.utils.clip_grad_value_(ps, 0.1)
    torch.nn.utils.clip_grad_value_(tps, 0.1)
    for p, tp in zip(ps, tps):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy())
    v = nn.utils.parameters_to_vector(ps)
    assert tuple(v.shape) == (20,)
    nn.utils.vector_to_parameters(v * 0 + 1, ps)
    assert all(float(p.detach().sum()) == p.numel() for p in ps)


def test_training_keeps_tape_bounded():
    """A long training loop does not grow the tape: each step's graph is freed."""
    from nbgrad.tape import TAPE

    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.LayerNorm(16), nn.Linear(16, 3))
    opt = nb.optim.AdamW(model.parameters(), lr=1e-2)
    x, y = nb.randn(32, 8), nb.tensor(np.random.default_rng(0).integers(0, 3, 32))
    loss_fn = nn.CrossEntropyLoss()
    sizes = []
    for i in range(1500):
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
        if i % 500 == 499:
            sizes.append((TAPE.R.shape[0], TAPE.S.shape[0]))
    assert sizes[-1] == sizes[0], sizes


def test_embedding_without_padding_matches_torch():
    torch = _torch()
    e = nn.Embedding(5, 2)
    te = torch.nn.Embedding(5, 2)
    _copy_to_torch(e, te)
    idx = [[4, 4, 0], [1, 2, 4]]
    y, ty = e(nb.tensor(idx)), te(torch.tensor(idx))
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy())
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(e.weight.grad.numpy(), te.weight.grad.numpy(), rtol=1e-6)
    with pytest.raises(IndexError):
        e(nb.tensor([5]))


def test_deepcopy():
    import copy

    m = Net()
    out = m(nb.randn(2, 4))
    out.sum().backward()  # parameters and the buffer now have tape slots
    m2 = copy.deepcopy(m)
    assert m2.fc1.weight is not m.fc1.weight and isinstance(m2.fc1.weight, nn.Parameter)
    assert m2.scale is m2._buffers["scale"] and m2.scale is not m.scale
    assert m2.head[1].bias is m2.head[1]._parameters["bias"]
    np.testing.assert_array_equal(m2.fc1.weight.grad.numpy(), m.fc1.weight.grad.numpy())
    with nb.no_grad():
        m2.fc1.weight.zero_()
    assert float(m.fc1.weight.abs().sum()) > 0
    x = nb.randn(3, 4)
    m2(x).sum().backward()
    m(x).sum().backward()
    assert list(m2.state_dict()) == list(m.state_dict())
