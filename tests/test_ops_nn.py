"""softmax family, activations, linear and losses (nbgrad.nn.functional): parity with
PyTorch at kinks, edges and kernel paths, node names and errors. Their gradients against
finite differences: the op table (tests/opinfo/)."""

import numpy as np
import pytest
from test_ops_helpers import T, gradcheck, needs_torch, parity, same_error, torch

import nbgrad
import nbgrad.nn.functional as F

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 5))
X3 = rng.standard_normal((2, 3, 4))
TGT = np.array([0, 4, 2])
W5 = rng.random(5) + 0.1


def tf():
    return torch.nn.functional


def test_softmax_ties_and_extremes():
    x = np.array([[1.0, 1.0, 1.0], [1000.0, 0.0, -1000.0]])
    y = F.softmax(T(x), 1).numpy()
    np.testing.assert_allclose(y[0], 1 / 3)
    np.testing.assert_allclose(y[1], [1, 0, 0])
    ly = F.log_softmax(T(x), 1).numpy()
    np.testing.assert_allclose(ly[1], [0, -1000, -2000])
    gradcheck(lambda x: F.log_softmax(x, 1), x[:1])
    nan = F.softmax(T(np.array([[0.0, np.nan], [-np.inf, -np.inf]])), 1).numpy()
    assert np.isnan(nan).all()


ACTS = [
    ("relu", lambda x: F.relu(x)),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.2)),
    ("elu", lambda x: F.elu(x, 0.7)),
    ("selu", F.selu),
    ("celu", lambda x: F.celu(x, 0.5)),
    ("hardtanh", lambda x: F.hardtanh(x, -0.5, 0.7)),
    ("relu6", F.relu6),
    ("softplus", lambda x: F.softplus(x, 2.0, 1.0)),
    ("gelu", F.gelu),
    ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh")),
    ("silu", F.silu),
    ("sigmoid", F.sigmoid),
    ("tanh", F.tanh),
    ("logsigmoid", F.logsigmoid),
    ("softmin", lambda x: F.softmin(x, 1)),
]


@needs_torch
@pytest.mark.parametrize("name,f", ACTS, ids=[a[0] for a in ACTS])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activation_parity(name, f, dtype):
    kw = {
        "leaky_relu": lambda x: tf().leaky_relu(x, 0.2),
        "elu": lambda x: tf().elu(x, 0.7),
        "celu": lambda x: tf().celu(x, 0.5),
        "hardtanh": lambda x: tf().hardtanh(x, -0.5, 0.7),
        "softplus": lambda x: tf().softplus(x, 2.0, 1.0),
        "gelu_tanh": lambda x: tf().gelu(x, approximate="tanh"),
        "softmin": lambda x: tf().softmin(x, 1),
    }
    ft = kw.get(name) or getattr(tf(), name)
    x = (rng.standard_normal((4, 6)) * 3).astype(dtype)
    x[0, :3] = [0.0, -0.5, 0.7]  # kinks: the subgradient torch picks
    tol = 1e-5 if dtype == np.float32 else 1e-12
    parity(f, ft, x, rtol=tol, atol=tol)


@needs_torch
@pytest.mark.parametrize("shape", [(5,), (3, 5), (2, 3, 5), (0, 5)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_parity(shape, bias):
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((4, 5)).astype(np.float32)
    args = (x, w) + ((rng.standard_normal(4).astype(np.float32),) if bias else ())
    parity(F.linear, tf().linear, *args, rtol=1e-5, atol=1e-5)


def test_linear_node_names():
    x, w, b = T(X, True), T(rng.standard_normal((4, 5)), True), T(np.zeros(4), True)
    assert F.linear(x, w, b).grad_fn.name() == "AddmmBackward0"
    assert F.linear(x, w).grad_fn.name() == "MmBackward0"


# -- losses ------------------------------------------------------------------------------
CE_CASES = [
    dict(),
    dict(label_smoothing=0.2),
    dict(weight=W5),
    dict(weight=W5, label_smoothing=0.1),
    dict(reduction="sum", label_smoothing=0.1),
    dict(reduction="none"),
    dict(reduction="none", weight=W5, label_smoothing=0.3),
    dict(ignore_index=4),
    dict(ignore_index=4, weight=W5, label_smoothing=0.2),
]


def _kw(kw, lib):
    out = dict(kw)
    if "weight" in out:
        out["weight"] = T(out["weight"]) if lib == "nb" else torch.tensor(out["weight"])
    return out


@needs_torch
@pytest.mark.parametrize("kw", CE_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_parity(kw, dtype):
    tol = 1e-5 if dtype == np.float32 else 1e-12
    x = rng.standard_normal((6, 5)).astype(dtype)
    t = rng.integers(0, 5, 6)
    t[1] = 4
    cast = {k: (v.astype(dtype) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    xn, xt = T(x, True), torch.tensor(x, requires_grad=True)
    yn = F.cross_entropy(xn, T(t), **_kw(cast, "nb"))
    yt = tf().cross_entropy(xt, torch.tensor(t), **_kw(cast, "t"))
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), rtol=tol, atol=tol)
    assert yn.grad_fn.name() == yt.grad_fn.name()
    yn.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=tol, atol=tol)
    # probabilities, and the spatial (N, C, d) layout
    p = rng.random((6, 5)).astype(dtype)
    if "ignore_index" in kw:
        same_error(
            lambda x, p: F.cross_entropy(x, p, **_kw(cast, "nb")),
            lambda x, p: tf().cross_entropy(x, p, **_kw(cast, "t")),
            x,
            p,
        )
        return
    parity(
        lambda x, p: F.cross_entropy(x, p, **_kw(cast, "nb")),
        lambda x, p: tf().cross_entropy(x, p, **_kw(cast, "t")),
        x,
        p,
        rtol=tol,
        atol=tol,
    )
    x3 = rng.standard_normal((2, 5, 3)).astype(dtype)
    t3 = rng.integers(0, 5, (2, 3))
    yn = F.cross_entropy(T(x3, True), T(t3), **_kw(cast, "nb"))
    yt = tf().cross_entropy(torch.tensor(x3), torch.tensor(t3), **_kw(cast, "t"))
    np.testing.assert_allclose(yn.detach().numpy(), yt.numpy(), rtol=tol, atol=tol)


@needs_torch
def test_cross_entropy_large_parallel_path():
    x = rng.standard_normal((512, 100)).astype(np.float32)
    t = rng.integers(0, 100, 512)
    xn, xt = T(x, True), torch.tensor(x, requires_grad=True)
    F.cross_entropy(xn, T(t), label_smoothing=0.1).backward()
    tf().cross_entropy(xt, torch.tensor(t), label_smoothing=0.1).backward()
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-7)
    yn, yt = F.softmax(T(x, True), 0), tf().softmax(torch.tensor(x), 0)
    np.testing.assert_allclose(yn.detach().numpy(), yt.numpy(), rtol=1e-5, atol=1e-7)


@needs_torch
@pytest.mark.parametrize("C", [7, 80])  # short rows (one exp loop per block) and long rows
def test_cross_entropy_kernel_paths(C):
    """Ignored rows, label smoothing, an existing .grad, and the (N, C, d) layout, on
    sizes that take each kernel path (short/long rows, serial/parallel)."""
    for n, inner in ((50, 1), (700, 1), (6, 3)):
        x = rng.standard_normal((n, C, inner)[: 3 if inner > 1 else 2]).astype(np.float32)
        t = rng.integers(0, C, (n, inner)[: 2 if inner > 1 else 1])
        t.reshape(-1)[::5] = -100
        for kw in (dict(), dict(label_smoothing=0.1), dict(reduction="none")):
            xn, xt = T(x, True), torch.tensor(x, requires_grad=True)
            for _ in range(2):  # the second pass accumulates into .grad
                yn = F.cross_entropy(xn, T(t), **kw)
                yt = tf().cross_entropy(xt, torch.tensor(t), **kw)
                np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), rtol=2e-5)
                yn.sum().backward()
                yt.sum().backward()
                np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), atol=2e-6)


@pytest.mark.parametrize("kw", [dict(), dict(reduction="sum", label_smoothing=0.2)])
def test_cross_entropy_prob_weight_gradcheck(kw):
    """Class-probability targets: the loss is differentiable in weight (PyTorch too)."""
    probs = rng.random((3, 5))
    gradcheck(lambda x, p, w: F.cross_entropy(x, p, weight=w, **kw), X, probs, W5)
    p3 = rng.random((2, 3, 4))
    gradcheck(lambda x, p, w: F.cross_entropy(x, p, weight=w, **kw), X3, p3, W5[:3])


@needs_torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_prob_weight_parity(reduction):
    probs = rng.random((4, 5))
    parity(
        lambda x, p, w: F.cross_entropy(x, p, weight=w, reduction=reduction, label_smoothing=0.1),
        lambda x, p, w: tf().cross_entropy(
            x, p, weight=w, reduction=reduction, label_smoothing=0.1
        ),
        rng.standard_normal((4, 5)),
        probs,
        W5,
        rtol=1e-12,
        atol=1e-12,
    )


@needs_torch
def test_loss_weight_requiring_grad_is_refused_as_torch():
    """PyTorch does not differentiate nll_loss / BCE in their weights: same error, and
    none under no_grad."""
    w = rng.random(5)

    def rg(mod, a):
        return (T(a) if mod == "nb" else torch.tensor(a)).requires_grad_(True)

    calls = {
        "ce": lambda F_, m, x: F_.cross_entropy(x, _t(m, TGT), weight=rg(m, w)),
        "nll": lambda F_, m, x: F_.nll_loss(x, _t(m, TGT), weight=rg(m, w)),
        # a target in [0, 1]: PyTorch checks it (under no_grad too)
        "bce": lambda F_, m, x: F_.binary_cross_entropy(x.sigmoid(), x.sigmoid(), weight=rg(m, w)),
        "bce_w": lambda F_, m, x: F_.binary_cross_entropy_with_logits(x, x, weight=rg(m, w)),
        "bce_pw": lambda F_, m, x: F_.binary_cross_entropy_with_logits(x, x, pos_weight=rg(m, w)),
    }
    for call in calls.values():
        same_error(lambda x, c=call: c(F, "nb", x), lambda x, c=call: c(tf(), "t", x), X)
        with nbgrad.no_grad():
            call(F, "nb", T(X))


def _t(mod, a):
    return T(a) if mod == "nb" else torch.tensor(a)


def test_cross_entropy_all_ignored_is_nan():
    y = F.cross_entropy(T(X, True), T(np.array([-100, -100, -100])))
    assert np.isnan(y.item())
    y = F.cross_entropy(T(X, True), T(np.array([-100, -100, -100])), reduction="sum")
    assert y.item() == 0.0
    y.backward()


def test_cross_entropy_1d_input():
    gradcheck(lambda x, t: F.cross_entropy(x, t), X[0], T(np.array(3)))


@needs_torch
def test_cross_entropy_errors():
    x = X
    same_error(F.cross_entropy, tf().cross_entropy, x, np.array([0, 5, 1]))
    same_error(F.cross_entropy, tf().cross_entropy, x, np.array([0, -1, 1]))
    same_error(F.cross_entropy, tf().cross_entropy, x, np.array([0, 1]))
    same_error(F.cross_entropy, tf().cross_entropy, x, np.array([[0, 1, 1]]))
    same_error(F.cross_entropy, tf().cross_entropy, x, rng.random((3, 4)))
    same_error(
        lambda x, t: F.cross_entropy(x, t, label_smoothing=1.5),
        lambda x, t: tf().cross_entropy(x, t, label_smoothing=1.5),
        x,
        TGT,
    )
    same_error(
        lambda x, t: F.cross_entropy(x, t, reduction="bad"),
        lambda x, t: tf().cross_entropy(x, t, reduction="bad"),
        x,
        TGT,
    )
    same_error(
        lambda x, t: F.cross_entropy(x, t, weight=T(np.ones(4))),
        lambda x, t: tf().cross_entropy(x, t, weight=torch.ones(4, dtype=torch.float64)),
        x,
        TGT,
    )
    same_error(F.nll_loss, tf().nll_loss, x, np.array([0, 5, 1]))


@needs_torch
@pytest.mark.parametrize(
    "kw", [dict(), dict(weight=W5), dict(ignore_index=2), dict(reduction="none", weight=W5)]
)
def test_nll_loss_parity(kw):
    t = np.array([0, 2, 2])
    parity(
        lambda x: F.nll_loss(x, T(t), **_kw(kw, "nb")),
        lambda x: tf().nll_loss(x, torch.tensor(t), **_kw(kw, "t")),
        X,
        rtol=1e-12,
    )


PW = [
    ("mse_loss", {}),
    ("l1_loss", {}),
    ("smooth_l1_loss", {"beta": 0.5}),
    ("huber_loss", {"delta": 0.5}),
    ("binary_cross_entropy", {}),
    ("binary_cross_entropy_with_logits", {}),
]


@needs_torch
@pytest.mark.parametrize("name,kw", PW, ids=[p[0] for p in PW])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pointwise_loss_parity(name, kw, reduction, dtype):
    a = rng.random((5, 4)) if name == "binary_cross_entropy" else rng.standard_normal((5, 4))
    a = a.astype(dtype)
    b = rng.random((5, 4)).astype(dtype)
    if name == "binary_cross_entropy":
        a[0, :2] = [0.0, 1.0]  # log clamped at -100, as torch
    tol = 1e-5 if dtype == np.float32 else 1e-8
    parity(
        lambda a, b: getattr(F, name)(a, b, reduction=reduction, **kw),
        lambda a, b: getattr(tf(), name)(a, b, reduction=reduction, **kw),
        a,
        b,
        rtol=tol,
        atol=tol,
    )


@needs_torch
def test_bce_weights_parity():
    x, y = rng.standard_normal((3, 4)), rng.random((3, 4))
    w, pw = rng.random(4), rng.random(4) + 0.5
    parity(
        lambda x, y: F.binary_cross_entropy_with_logits(x, y, weight=T(w), pos_weight=T(pw)),
        lambda x, y: tf().binary_cross_entropy_with_logits(
            x, y, weight=torch.tensor(w), pos_weight=torch.tensor(pw)
        ),
        x,
        y,
        rtol=1e-12,
    )
    p = rng.random((3, 4))
    parity(
        lambda p, y: F.binary_cross_entropy(p, y, weight=T(w)),
        lambda p, y: tf().binary_cross_entropy(p, y, weight=torch.tensor(w)),
        p,
        y,
        rtol=1e-12,
    )


@needs_torch
def test_loss_errors():
    same_error(F.binary_cross_entropy, tf().binary_cross_entropy, X, rng.random((3, 5)))
    same_error(
        F.binary_cross_entropy, tf().binary_cross_entropy, rng.random((3, 5)), rng.random((3, 4))
    )
    same_error(
        F.binary_cross_entropy_with_logits,
        tf().binary_cross_entropy_with_logits,
        X,
        rng.random((3, 4)),
    )
    same_error(
        lambda a, b: F.mse_loss(a, b, reduction="avg"),
        lambda a, b: tf().mse_loss(a, b, reduction="avg"),
        X,
        X,
    )
    with pytest.warns(UserWarning, match="target size"):
        F.mse_loss(T(X), T(X[:1]))


def test_mse_broadcast_gradcheck():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gradcheck(F.mse_loss, X, X[:1] * 0.5)


@needs_torch
def test_one_hot():
    t = np.array([[0, 3], [2, 1]])
    for nc in (-1, 5):
        np.testing.assert_array_equal(
            F.one_hot(T(t), nc).numpy(), tf().one_hot(torch.tensor(t), nc).numpy()
        )
    same_error(F.one_hot, tf().one_hot, np.array([0, -1]))
    same_error(lambda t: F.one_hot(t, 2), lambda t: tf().one_hot(t, 2), np.array([0, 3]))
    same_error(F.one_hot, tf().one_hot, np.array([0.0, 1.0]))


@needs_torch
def test_softmax_errors_and_dtype():
    same_error(lambda x: F.softmax(x, 2), lambda x: tf().softmax(x, 2), X)
    y = F.softmax(T(X.astype(np.float32)), 1, dtype=nbgrad.float64)
    assert y.dtype is nbgrad.float64
    with pytest.warns(UserWarning, match="Implicit dimension"):
        F.softmax(T(X))


def test_parametrized_activations_float32_large():
    x = rng.standard_normal(1 << 17).astype(np.float32)
    y = F.leaky_relu(T(x, True), 0.1)
    np.testing.assert_allclose(y.detach().numpy(), np.where(x > 0, x, 0.1 * x), rtol=1e-6)
    y.sum().backward()
