"""Convolutions and pools (functional and modules) against PyTorch after copying weights:
values, input and parameter gradients (float64), gradchecks, state_dict keys, errors."""

import numpy as np
import pytest
from test_ops_helpers import T, gradcheck, needs_torch, parity, same_error, torch

import nbgrad as nb
from nbgrad import nn
from nbgrad.nn import functional as F

pytestmark = needs_torch
rng = np.random.default_rng(1)


def r(*shape):
    return rng.standard_normal(shape)


def tF():
    return torch.nn.functional


@pytest.mark.parametrize(
    "xs,ws,kw",
    [
        ((2, 3, 6, 5), (4, 3, 3, 3), {}),
        ((2, 3, 6, 5), (4, 3, 3, 2), dict(stride=2, padding=1)),
        ((2, 3, 7, 7), (4, 3, 3, 3), dict(stride=(2, 1), padding=(2, 0), dilation=2)),
        ((2, 4, 6, 5), (6, 2, 3, 3), dict(groups=2, padding=1)),
        ((2, 4, 5, 5), (4, 1, 3, 3), dict(groups=4, padding="same")),
        ((1, 2, 6, 6), (3, 2, 2, 4), dict(padding="same", dilation=(1, 2))),
        ((3, 6, 5), (2, 3, 3, 3), dict(padding="valid")),
    ],
)
def test_conv2d(xs, ws, kw):
    parity(
        lambda x, w, b: F.conv2d(x, w, b, **kw),
        lambda x, w, b: tF().conv2d(x, w, b, **kw),
        r(*xs),
        r(*ws),
        r(ws[0]),
    )
    parity(lambda x, w: F.conv2d(x, w, **kw), lambda x, w: tF().conv2d(x, w, **kw), r(*xs), r(*ws))


@pytest.mark.parametrize(
    "xs,ws,kw",
    [
        ((2, 3, 9), (4, 3, 3), {}),
        ((2, 4, 9), (6, 2, 2), dict(stride=2, padding=1, groups=2, dilation=2)),
        ((3, 9), (2, 3, 4), dict(padding="same")),
    ],
)
def test_conv1d(xs, ws, kw):
    parity(
        lambda x, w, b: F.conv1d(x, w, b, **kw),
        lambda x, w, b: tF().conv1d(x, w, b, **kw),
        r(*xs),
        r(*ws),
        r(ws[0]),
    )


def test_conv_gradcheck():
    gradcheck(
        lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), r(1, 2, 4, 3), r(2, 2, 2, 2), r(2)
    )
    gradcheck(
        lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1),
        r(1, 2, 2, 2),
        r(2, 1, 3, 3),
    )


def test_conv_errors():
    x = r(1, 2, 3, 4)
    for w in (r(3, 3, 3, 3), r(3, 2, 5, 5)):
        same_error(F.conv2d, tF().conv2d, x, w)
    same_error(F.conv2d, tF().conv2d, r(4), r(3, 3, 3, 3))
    same_error(
        lambda x, w: F.conv2d(x, w, padding="same", stride=2),
        lambda x, w: tF().conv2d(x, w, padding="same", stride=2),
        x,
        r(3, 2, 2, 2),
    )
    same_error(
        lambda x, w: F.conv2d(x, w, padding="foo"),
        lambda x, w: tF().conv2d(x, w, padding="foo"),
        x,
        r(3, 2, 2, 2),
    )
    same_error(F.conv1d, tF().conv1d, r(1, 2, 5), r(3, 3, 3))
    for args, kw in (
        ((3, 4, 3), dict(groups=2)),
        ((4, 3, 3), dict(groups=2)),
        ((4, 4, 3), dict(padding_mode="foo")),
        ((4, 4, 3), dict(padding="same", stride=2)),
    ):
        with pytest.raises(ValueError) as et:
            torch.nn.Conv2d(*args, **kw)
        with pytest.raises(ValueError) as en:
            nn.Conv2d(*args, **kw)
        if "padding_mode" in kw:  # a set's printed order varies between processes
            a, b = str(en.value), str(et.value)
            assert a.split("{")[0] == b.split("{")[0] and sorted(a) == sorted(b)
        else:
            assert str(en.value) == str(et.value)


def _copy(m, tm):
    with torch.no_grad():
        for (k, p), (tk, tp) in zip(m.state_dict().items(), tm.state_dict().items()):
            assert k == tk
            tp.copy_(torch.tensor(p.numpy()))


def _module_parity(m, tm, x, atol=1e-10):
    _copy(m, tm)
    xn, xt = T(x, True), torch.tensor(x, requires_grad=True)
    yn, yt = m(xn), tm(xt)
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), atol=atol)
    g = r(*yt.shape)
    yn.backward(T(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), atol=atol)
    for (k, p), (_, tp) in zip(m.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), atol=atol, err_msg=k)


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv_modules(mode):
    kw = dict(padding=1, padding_mode=mode)
    m = nn.Conv2d(3, 4, 3, dtype=nb.float64, **kw)
    tm = torch.nn.Conv2d(3, 4, 3, dtype=torch.float64, **kw)
    assert list(m.state_dict()) == ["weight", "bias"] and repr(m) == repr(tm)
    _module_parity(m, tm, r(2, 3, 5, 6))
    m = nn.Conv1d(4, 2, 3, stride=2, groups=2, bias=False, dtype=nb.float64, **kw)
    tm = torch.nn.Conv1d(4, 2, 3, stride=2, groups=2, bias=False, dtype=torch.float64, **kw)
    _module_parity(m, tm, r(2, 4, 7))


def test_conv_default_init_bounds():
    m = nn.Conv2d(3, 8, 3)
    bound = 1 / np.sqrt(27)
    assert m.weight.shape == (8, 3, 3, 3) and m.weight.dtype == nb.float32
    assert np.abs(m.weight.detach().numpy()).max() <= bound + 1e-7
    assert np.abs(m.bias.detach().numpy()).max() <= bound + 1e-7


@pytest.mark.parametrize(
    "cin,cout,k,kw",
    [
        (3, 4, 3, {}),
        (3, 4, 3, dict(stride=2, padding=1, output_padding=1)),
        (4, 6, (2, 3), dict(stride=(2, 1), groups=2, dilation=2)),
        (2, 2, 3, dict(stride=3, padding=2, output_padding=(2, 1))),
    ],
)
def test_conv_transpose2d(cin, cout, k, kw):
    m = nn.ConvTranspose2d(cin, cout, k, dtype=nb.float64, **kw)
    tm = torch.nn.ConvTranspose2d(cin, cout, k, dtype=torch.float64, **kw)
    assert list(m.state_dict()) == list(tm.state_dict())
    assert m.weight.shape == tuple(tm.weight.shape)
    _module_parity(m, tm, r(2, cin, 3, 4))


def test_conv_transpose_functional_and_output_size():
    x, w = r(1, 2, 3, 3), r(2, 3, 3, 3)
    parity(
        lambda x, w: F.conv_transpose2d(x, w, stride=2),
        lambda x, w: tF().conv_transpose2d(x, w, stride=2),
        x,
        w,
    )
    parity(
        lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1),
        lambda x, w, b: tF().conv_transpose1d(x, w, b, stride=2, padding=1),
        r(2, 2, 5),
        r(2, 3, 3),
        r(3),
    )
    m = nn.ConvTranspose2d(2, 3, 3, stride=2, dtype=nb.float64)
    tm = torch.nn.ConvTranspose2d(2, 3, 3, stride=2, dtype=torch.float64)
    _copy(m, tm)
    y = m(T(x), output_size=[8, 8])
    yt = tm(torch.tensor(x), output_size=[8, 8])
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), atol=1e-10)


@pytest.mark.parametrize(
    "shape,kw",
    [
        ((2, 3, 6, 5), dict(kernel_size=2)),
        ((2, 3, 7, 7), dict(kernel_size=3, stride=2, padding=1)),
        ((2, 3, 7, 6), dict(kernel_size=(3, 2), stride=(2, 3), ceil_mode=True)),
        ((2, 3, 8, 8), dict(kernel_size=2, stride=2, dilation=2, padding=1)),
        ((3, 5, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ],
)
def test_max_pool2d(shape, kw):
    x = r(*shape)
    parity(lambda x: F.max_pool2d(x, **kw), lambda x: tF().max_pool2d(x, **kw), x)
    yn, idx = F.max_pool2d(T(x), return_indices=True, **kw)
    yt, tidx = tF().max_pool2d(torch.tensor(x), return_indices=True, **kw)
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
    assert idx.dtype == nb.int64
    parity(lambda x: nn.MaxPool2d(**kw)(x), lambda x: torch.nn.MaxPool2d(**kw)(x), x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_pool2d_ties_and_nans(dtype):
    # windows holding equal maxima and NaNs: PyTorch picks the first maximum, the last NaN
    x = rng.integers(0, 3, (2, 3, 6, 6)).astype(dtype)
    x[0, 0, 0, :2] = np.nan
    x[1, 2, 3, 3] = np.nan
    kw = dict(kernel_size=2, return_indices=True)
    yn, idx = F.max_pool2d(T(x, True), **kw)
    xt = torch.tensor(x, requires_grad=True)
    yt, tidx = tF().max_pool2d(xt, **kw)
    np.testing.assert_array_equal(yn.detach().numpy(), yt.detach().numpy())
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
    g = rng.standard_normal(yt.shape).astype(dtype)
    xn = T(x, True)
    F.max_pool2d(xn, 2).backward(T(g))
    tF().max_pool2d(xt, 2).backward(torch.tensor(g))
    np.testing.assert_array_equal(xn.grad.numpy(), xt.grad.numpy())


def test_max_pool1d_and_errors():
    kw = dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)
    parity(lambda x: F.max_pool1d(x, **kw), lambda x: tF().max_pool1d(x, **kw), r(2, 3, 8))
    parity(lambda x: nn.MaxPool1d(2)(x), lambda x: torch.nn.MaxPool1d(2)(x), r(2, 3, 8))
    gradcheck(lambda x: F.max_pool2d(x, 2, 1), r(1, 1, 3, 3))
    x = r(1, 2, 3, 4)
    same_error(
        lambda x: F.max_pool2d(x, 2, padding=2), lambda x: tF().max_pool2d(x, 2, padding=2), x
    )
    same_error(lambda x: F.max_pool2d(x, 5), lambda x: tF().max_pool2d(x, 5), x)
    same_error(
        lambda x: F.avg_pool2d(x, 2, padding=2), lambda x: tF().avg_pool2d(x, 2, padding=2), x
    )


@pytest.mark.parametrize(
    "shape,kw",
    [
        ((2, 3, 6, 5), dict(kernel_size=2)),
        ((2, 3, 7, 7), dict(kernel_size=3, stride=2, padding=1)),
        ((2, 3, 7, 7), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
        ((2, 3, 7, 6), dict(kernel_size=(3, 2), stride=(2, 3), padding=1, ceil_mode=True)),
        (
            (2, 3, 6, 6),
            dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
        ),
        ((2, 3, 6, 6), dict(kernel_size=2, divisor_override=3)),
    ],
)
def test_avg_pool2d(shape, kw):
    parity(lambda x: F.avg_pool2d(x, **kw), lambda x: tF().avg_pool2d(x, **kw), r(*shape))
    parity(lambda x: nn.AvgPool2d(**kw)(x), lambda x: torch.nn.AvgPool2d(**kw)(x), r(*shape))


def test_avg_pool1d():
    for kw in (
        dict(kernel_size=3),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    ):
        parity(
            lambda x: F.avg_pool1d(x, **kw),  # noqa: B023
            lambda x: tF().avg_pool1d(x, **kw),  # noqa: B023
            r(2, 3, 8),
        )
    gradcheck(lambda x: F.avg_pool2d(x, 2, 1, 1, count_include_pad=False), r(1, 1, 3, 3))


def test_small_cnn_training_step_matches():
    def build(mod):
        return mod.Sequential(
            mod.Conv2d(1, 4, 3, padding=1),
            mod.ReLU(),
            mod.MaxPool2d(2),
            mod.Conv2d(4, 8, 3),
            mod.ReLU(),
            mod.Flatten(),
            mod.Linear(8 * 2 * 2, 5),
        )

    m, tm = build(nn).double(), build(torch.nn).double()
    assert list(m.state_dict()) == list(tm.state_dict())
    _module_parity(m, tm, r(3, 1, 8, 8))


@pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")
def test_layers_on_cuda_match_cpu():
    import copy

    x, w = r(1, 2, 4, 4), r(3, 2, 3, 3)

    def run(dev):
        xt = nb.tensor(x, device=dev, requires_grad=True)
        wt = nb.tensor(w, device=dev, requires_grad=True)
        y = F.conv2d(F.pad(xt, (1, 1, 1, 1), mode="reflect"), wt, padding=1)
        y, idx = F.max_pool2d(y, 2, return_indices=True)
        y = F.layer_norm(y, (3,))
        y = F.interpolate(F.avg_pool2d(y, 2, padding=1), scale_factor=2, mode="bilinear")
        y = F.conv_transpose2d(y, wt, stride=2)
        y.sum().backward()
        return y.detach().cpu().numpy(), xt.grad.cpu().numpy(), wt.grad.cpu().numpy(), idx.cpu()

    for a, b in zip(run("cpu"), run("cuda")):
        np.testing.assert_allclose(
            np.asarray(a.numpy() if hasattr(a, "numpy") else a),
            np.asarray(b.numpy() if hasattr(b, "numpy") else b),
            atol=1e-12,
        )
    m = nn.BatchNorm1d(3, dtype=nb.float64)
    mc = copy.deepcopy(m).cuda()
    xb = r(4, 3)
    np.testing.assert_allclose(
        m(T(xb)).detach().numpy(),
        mc(nb.tensor(xb, device="cuda")).detach().cpu().numpy(),
        atol=1e-12,
    )
    np.testing.assert_allclose(m.running_var.numpy(), mc.running_var.cpu().numpy(), atol=1e-12)
    assert mc.num_batches_tracked.cpu().item() == 1


def test_compiled_conv_step_matches_eager():
    import copy
    import warnings

    nb.manual_seed(0)
    m = nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1),
        nn.ReLU(),
        nn.AvgPool2d(2),
        nn.Conv2d(4, 4, 3, padding=1, padding_mode="reflect"),
        nn.Flatten(),
        nn.Linear(16, 3),
    )
    m0 = copy.deepcopy(m)
    opt = nb.optim.SGD(m.parameters(), lr=0.1)
    x, y = T(r(5, 2, 4, 4).astype(np.float32)), nb.tensor([0, 1, 2, 0, 1])

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        return loss

    eager = [step(x, y).item() for _ in range(3)]
    m.load_state_dict(m0.state_dict())
    cs = nb.compile(step)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to eager execution
        compiled = [cs(x, y).item() for _ in range(3)]
    assert compiled == eager


def test_double_backward_through_conv_pool_norm():
    """A gradient penalty: grad of grad through pad, conv, max pool and layer norm."""
    x, w = r(2, 3, 5, 5), r(4, 3, 3, 3)

    def run(lib, Fm, leaf):
        xt, wt = leaf(x), leaf(w)
        y = Fm.conv2d(Fm.pad(xt, (1, 1, 1, 1), mode="reflect"), wt, stride=1)
        y = Fm.layer_norm(Fm.max_pool2d(y.tanh(), 2), (2,))
        (g,) = lib.autograd.grad((y * y).sum(), xt, create_graph=True)
        (g * g).sum().backward()
        return g.detach().numpy(), wt.grad.numpy(), xt.grad.numpy()

    a = run(nb, F, lambda v: nb.tensor(v, requires_grad=True))
    b = run(torch, tF(), lambda v: torch.tensor(v, requires_grad=True))
    for u, v in zip(a, b):
        np.testing.assert_allclose(u, v, atol=1e-9)


def test_float32_conv_and_pool_match():
    x, w, b = (a.astype(np.float32) for a in (r(4, 3, 9, 9), r(5, 3, 3, 3), r(5)))
    kw = dict(stride=2, padding=1)
    parity(
        lambda x, w, b: F.max_pool2d(F.conv2d(x, w, b, **kw), 2, ceil_mode=True),
        lambda x, w, b: tF().max_pool2d(tF().conv2d(x, w, b, **kw), 2, ceil_mode=True),
        x,
        w,
        b,
        rtol=1e-4,
        atol=1e-4,
    )
    parity(
        lambda x, w: F.conv_transpose2d(x, w, stride=2),
        lambda x, w: tF().conv_transpose2d(x, w, stride=2),
        x,
        w[:, :3].transpose(1, 0, 2, 3).copy(),
        rtol=1e-4,
        atol=1e-4,
    )


@pytest.mark.parametrize("out", [(2, 3), 3, (None, 2), (5, 4)])
def test_adaptive_max_pool(out):
    x = r(2, 3, 5, 4)
    parity(lambda x: F.adaptive_max_pool2d(x, out), lambda x: tF().adaptive_max_pool2d(x, out), x)
    yn, idx = F.adaptive_max_pool2d(T(x), out, return_indices=True)
    yt, tidx = tF().adaptive_max_pool2d(torch.tensor(x), out, return_indices=True)
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
    parity(
        lambda x: nn.AdaptiveMaxPool2d(out)(x),
        lambda x: torch.nn.AdaptiveMaxPool2d(out)(x),
        r(3, 5, 4),
    )
    parity(
        lambda x: F.adaptive_max_pool1d(x, 3), lambda x: tF().adaptive_max_pool1d(x, 3), r(2, 3, 7)
    )
    same_error(
        lambda x: F.adaptive_max_pool2d(x, 2), lambda x: tF().adaptive_max_pool2d(x, 2), r(3)
    )
