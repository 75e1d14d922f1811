"""nn.functional pads, norms, distances, dropout variants, resampling and extra losses:
values and gradients against PyTorch (float64), finite-difference gradchecks, errors."""

import numpy as np
import pytest
from test_ops_helpers import T, gradcheck, needs_torch, parity, same_error, torch

import nbgrad as nb
from nbgrad import nn
from nbgrad.nn import functional as F

pytestmark = needs_torch
rng = np.random.default_rng(0)


def r(*shape):
    return rng.standard_normal(shape)


def tF():
    return torch.nn.functional


# -- pad ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "shape,pad,mode",
    [
        ((2, 3, 4), (1, 2), "constant"),
        ((2, 3, 4, 5), (1, 0, 2, 1), "constant"),
        ((2, 3, 4), (-1, 2, 0, 1, 1, 1), "constant"),
        ((2, 3, 5), (2, 1), "reflect"),
        ((2, 3, 4, 5), (1, 2, 3, 1), "reflect"),
        ((2, 3, 4, 5), (1, 2, 3, 1), "replicate"),
        ((3, 4, 5), (4, 2, 3, 1), "replicate"),
        ((2, 3, 4, 5), (1, 2, 3, 1), "circular"),
        ((1, 2, 3, 3, 4), (1, 1, 2, 0, 1, 1), "reflect"),
    ],
)
def test_pad_modes(shape, pad, mode):
    parity(lambda x: F.pad(x, pad, mode), lambda x: tF().pad(x, pad, mode), r(*shape))


def test_pad_value_and_gradcheck():
    parity(
        lambda x: F.pad(x, (1, 1, 2, 0), value=2.5),
        lambda x: tF().pad(x, (1, 1, 2, 0), value=2.5),
        r(2, 3, 4),
    )
    gradcheck(lambda x: F.pad(x, (2, 1), "reflect"), r(1, 2, 4))
    gradcheck(lambda x: F.pad(x, (1, 1, 1, 0)), r(1, 2, 3))


@pytest.mark.parametrize(
    "shape,pad,mode",
    [
        ((1, 2, 3, 4), (1,), "constant"),
        ((1, 2, 3, 4), (1, 1) * 5, "constant"),
        ((1, 2, 3, 4), (4, 4), "reflect"),
        ((1, 2, 3, 4), (4, 4, 1, 1), "reflect"),
        ((1, 2, 3, 4), (5, 5, 1, 1), "circular"),
        ((1, 2, 3, 4), (1, 1), "foo"),
        ((2,), (1, 1), "reflect"),
        ((1, 2, 3, 4), (-3, -3), "constant"),
    ],
)
def test_pad_errors(shape, pad, mode):
    same_error(lambda x: F.pad(x, pad, mode), lambda x: tF().pad(x, pad, mode), r(*shape))


def test_pad_records_one_gather():
    x = T(r(2, 3, 4), True)
    y = F.pad(x, (1, 1), "reflect")
    assert y.grad_fn.name() == "IndexSelectBackward0"


# -- normalization --------------------------------------------------------------------------
def test_layer_norm_functional_and_module():
    x, w, b = r(3, 4, 5), r(4, 5), r(4, 5)
    parity(
        lambda x, w, b: F.layer_norm(x, (4, 5), w, b, 1e-3),
        lambda x, w, b: tF().layer_norm(x, (4, 5), w, b, 1e-3),
        x,
        w,
        b,
    )
    parity(lambda x: F.layer_norm(x, [5]), lambda x: tF().layer_norm(x, [5]), x)
    gradcheck(lambda x, w: F.layer_norm(x, (3,), w), r(2, 3), r(3))
    m, tm = nn.LayerNorm(5, bias=False), torch.nn.LayerNorm(5, bias=False)
    assert list(m.state_dict()) == list(tm.state_dict()) == ["weight"]
    m2 = nn.LayerNorm(5, elementwise_affine=False)
    assert list(m2.state_dict()) == []
    same_error(lambda x: F.layer_norm(x, (3,)), lambda x: tF().layer_norm(x, (3,)), r(1, 2, 3, 4))


def test_group_norm():
    x, w, b = r(2, 6, 3, 2), r(6), r(6)
    parity(
        lambda x, w, b: F.group_norm(x, 3, w, b),
        lambda x, w, b: tF().group_norm(x, 3, w, b),
        x,
        w,
        b,
    )
    parity(lambda x: F.group_norm(x, 2), lambda x: tF().group_norm(x, 2), r(3, 4, 5))
    gradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), r(2, 4, 2), r(4), r(4))
    same_error(lambda x: F.group_norm(x, 3), lambda x: tF().group_norm(x, 3), r(1, 2, 3, 4))
    m, tm = nn.GroupNorm(2, 6), torch.nn.GroupNorm(2, 6)
    assert list(m.state_dict()) == list(tm.state_dict())
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(4, 6)


def test_rms_norm():
    x, w = r(3, 4, 5), r(5)
    parity(lambda x, w: F.rms_norm(x, (5,), w), lambda x, w: tF().rms_norm(x, (5,), w), x, w)
    parity(lambda x: F.rms_norm(x, (4, 5), eps=0.1), lambda x: tF().rms_norm(x, (4, 5), eps=0.1), x)
    gradcheck(lambda x, w: F.rms_norm(x, (3,), w), r(2, 3), r(3))
    m, tm = nn.RMSNorm(5), torch.nn.RMSNorm(5)
    assert list(m.state_dict()) == list(tm.state_dict()) == ["weight"]
    xf = r(2, 5)
    np.testing.assert_allclose(
        m(T(xf)).detach().numpy(), tm(torch.tensor(xf)).detach().numpy(), atol=1e-12
    )


def _bn_pair(cls, c, **kw):
    m = getattr(nn, cls)(c, dtype=nb.float64, **kw)
    tm = getattr(torch.nn, cls)(c, dtype=torch.float64, **kw)
    with torch.no_grad():
        for p, tp in zip(m.parameters(), tm.parameters()):
            v = r(*p.shape)
            p.data = T(v)
            tp.copy_(torch.tensor(v))
    return m, tm


@pytest.mark.parametrize("momentum", [0.1, 0.3, None])
@pytest.mark.parametrize(
    "cls,shape",
    [("BatchNorm1d", (6, 3)), ("BatchNorm1d", (4, 3, 5)), ("BatchNorm2d", (4, 3, 2, 5))],
)
def test_batch_norm_modules(cls, shape, momentum):
    m, tm = _bn_pair(cls, 3, momentum=momentum)
    assert list(m.state_dict()) == list(tm.state_dict())
    for step in range(3):
        x = r(*shape) + step
        xn, xt = T(x, True), torch.tensor(x, requires_grad=True)
        yn, yt = m(xn), tm(xt)
        np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), atol=1e-10)
        g = r(*shape)
        yn.backward(T(g))
        yt.backward(torch.tensor(g))
        np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), atol=1e-10)
        np.testing.assert_allclose(m.weight.grad.numpy(), tm.weight.grad.numpy(), atol=1e-10)
        np.testing.assert_allclose(m.bias.grad.numpy(), tm.bias.grad.numpy(), atol=1e-10)
    for k, v in tm.state_dict().items():
        np.testing.assert_allclose(m.state_dict()[k].numpy(), v.numpy(), atol=1e-12)
    m.eval()
    tm.eval()
    x = r(*shape)
    np.testing.assert_allclose(
        m(T(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(), atol=1e-10
    )


def test_batch_norm_options():
    for kw in ({"affine": False}, {"track_running_stats": False}):
        m, tm = _bn_pair("BatchNorm2d", 3, **kw)
        assert list(m.state_dict()) == list(tm.state_dict())
        for train in (True, False):
            m.train(train)
            tm.train(train)
            x = r(2, 3, 2, 2)
            np.testing.assert_allclose(
                m(T(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(), atol=1e-10
            )
    m = nn.BatchNorm1d(3, dtype=nb.float64)
    sd = {
        k: T(v.numpy())
        for k, v in torch.nn.BatchNorm1d(3, dtype=torch.float64).state_dict().items()
    }
    m.load_state_dict(sd)
    assert m.num_batches_tracked.dtype == nb.int64
    gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, True), r(4, 2), r(2), r(2))
    same_error(
        lambda x: F.batch_norm(x, None, None, training=True),
        lambda x: tF().batch_norm(x, None, None, training=True),
        r(1, 3),
    )
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(3)(T(r(2, 3)))


# -- distances, normalize, dropout -----------------------------------------------------------
def test_normalize_and_distances():
    a, b = r(4, 5), r(4, 5)
    for p in (1, 2, 3):
        parity(lambda x: F.normalize(x, p, 1), lambda x: tF().normalize(x, p, 1), a)  # noqa: B023 (called at once)
        parity(
            lambda x, y: F.pairwise_distance(x, y, p),  # noqa: B023 (called at once)
            lambda x, y: tF().pairwise_distance(x, y, p),  # noqa: B023 (called at once)
            a,
            b,
        )
    parity(lambda x: F.normalize(x, dim=0), lambda x: tF().normalize(x, dim=0), a)
    parity(
        lambda x, y: F.cosine_similarity(x, y, 1),
        lambda x, y: tF().cosine_similarity(x, y, 1),
        a,
        b,
    )
    parity(
        lambda x, y: F.cosine_similarity(x, y, 0),
        lambda x, y: tF().cosine_similarity(x, y, 0),
        a,
        r(1, 5),
    )
    parity(
        lambda x, y: F.pairwise_distance(x, y, keepdim=True),
        lambda x, y: tF().pairwise_distance(x, y, keepdim=True),
        a,
        b,
    )
    gradcheck(lambda x, y: F.cosine_similarity(x, y), r(2, 3), r(2, 3))
    same_error(
        lambda x, y: F.cosine_similarity(x, y),
        lambda x, y: tF().cosine_similarity(x, y),
        r(3, 4),
        r(3, 5),
    )


def test_dropout2d():
    x = T(np.ones((64, 8, 3, 3)), True)
    y = F.dropout2d(x, 0.25)
    v = y.detach().numpy()
    per = v.reshape(64, 8, 9)
    assert np.all(per.min(-1) == per.max(-1))  # whole channels dropped or kept
    assert set(np.unique(v)) <= {0.0, 1 / 0.75}
    assert 0.15 < (per[:, :, 0] == 0).mean() < 0.35
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), v)
    assert F.dropout2d(x, 0.5, training=False) is x
    m = nn.Dropout2d(0.5).eval()
    assert m(x) is x
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        F.dropout2d(x, 1.5)
    z = F.dropout1d(T(np.ones((5, 4, 7))), 0.5).numpy()
    assert np.all(z.min(-1) == z.max(-1))


# -- unfold / fold / resampling / adaptive pools ---------------------------------------------
@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=2),
        dict(kernel_size=(2, 3), stride=2, padding=1),
        dict(kernel_size=2, dilation=2, padding=(0, 1)),
    ],
)
def test_unfold_fold(kw):
    x = r(2, 3, 5, 6)
    parity(lambda x: F.unfold(x, **kw), lambda x: tF().unfold(x, **kw), x)
    cols = tF().unfold(torch.tensor(x), **kw).numpy()
    parity(lambda c: F.fold(c, (5, 6), **kw), lambda c: tF().fold(c, (5, 6), **kw), cols)
    parity(lambda c: F.fold(c, (5, 6), **kw), lambda c: tF().fold(c, (5, 6), **kw), cols[0])


def test_unfold_gradcheck_and_errors():
    gradcheck(lambda x: F.unfold(x, 2, padding=1, stride=2), r(1, 1, 3, 3))
    gradcheck(lambda c: F.fold(c, (3, 3), 2), r(1, 4, 4))
    same_error(lambda c: F.fold(c, (3, 3), 2), lambda c: tF().fold(c, (3, 3), 2), r(1, 4, 3))


@pytest.mark.parametrize(
    "shape,kw",
    [
        ((1, 2, 3, 4), dict(scale_factor=2)),
        ((1, 2, 3, 4), dict(size=(5, 7))),
        ((1, 2, 6, 4), dict(size=(4, 3))),
        ((1, 2, 3, 4), dict(scale_factor=1.7, mode="bilinear")),
        ((1, 2, 3, 4), dict(size=(5, 7), mode="bilinear", align_corners=True)),
        ((1, 2, 5, 6), dict(size=(3, 2), mode="bilinear")),
        ((2, 3, 5), dict(size=8, mode="linear")),
        ((2, 3, 5), dict(scale_factor=3, mode="nearest")),
        ((1, 2, 3, 4), dict(size=(6, 9), mode="nearest-exact")),
        ((1, 2, 7, 5), dict(size=(3, 2), mode="area")),
        ((2, 3, 7), dict(scale_factor=0.5, mode="area")),
    ],
)
def test_interpolate(shape, kw):
    parity(lambda x: F.interpolate(x, **kw), lambda x: tF().interpolate(x, **kw), r(*shape))


def test_interpolate_errors_and_upsample():
    x = r(1, 2, 3, 4)
    for kw in (
        dict(scale_factor=2, mode="foo"),
        dict(size=(4, 4), scale_factor=2),
        dict(),
        dict(size=(4, 4), mode="nearest", align_corners=True),
    ):
        same_error(lambda x: F.interpolate(x, **kw), lambda x: tF().interpolate(x, **kw), x)  # noqa: B023 (called at once)
    parity(
        lambda x: nn.Upsample(scale_factor=2, mode="bilinear")(x),
        lambda x: torch.nn.Upsample(scale_factor=2, mode="bilinear")(x),
        x,
    )


@pytest.mark.parametrize("out", [(2, 3), 3, (None, 2), (5, 4)])
def test_adaptive_avg_pool(out):
    parity(
        lambda x: F.adaptive_avg_pool2d(x, out),
        lambda x: tF().adaptive_avg_pool2d(x, out),
        r(2, 3, 5, 4),
    )
    parity(
        lambda x: nn.AdaptiveAvgPool2d(out)(x),
        lambda x: torch.nn.AdaptiveAvgPool2d(out)(x),
        r(3, 5, 4),
    )
    parity(
        lambda x: F.adaptive_avg_pool1d(x, 3), lambda x: tF().adaptive_avg_pool1d(x, 3), r(2, 3, 7)
    )
    same_error(
        lambda x: F.adaptive_avg_pool2d(x, 2), lambda x: tF().adaptive_avg_pool2d(x, 2), r(3)
    )


# -- small modules ----------------------------------------------------------------------------
def test_identity_unflatten_parameter_containers():
    x = T(r(2, 12))
    assert nn.Identity(3, k=1)(x) is x
    assert nn.Unflatten(1, (3, 4))(x).shape == (2, 3, 4)
    assert nn.Unflatten(-1, (2, 2, 3))(x).shape == (2, 2, 2, 3)
    pl = nn.ParameterList([nn.Parameter(nb.zeros(2)), nb.ones(3)])
    pl.append(nb.ones(1))
    tpl = torch.nn.ParameterList([torch.zeros(2), torch.ones(3), torch.ones(1)])
    assert list(pl.state_dict()) == list(tpl.state_dict())
    assert len(pl) == 3 and isinstance(pl[1], nn.Parameter) and pl[-1].shape == (1,)
    assert len(list(pl.parameters())) == 3
    pd = nn.ParameterDict({"b": nb.ones(2), "a": nn.Parameter(nb.zeros(1))})
    tpd = torch.nn.ParameterDict({"b": torch.ones(2), "a": torch.zeros(1)})
    assert list(pd.state_dict()) == list(tpd.state_dict())
    assert "a" in pd and isinstance(pd["b"], nn.Parameter) and len(pd) == 2

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = nn.ParameterList([nb.ones(2)])
            self.pd = nn.ParameterDict({"w": nb.ones(3)})

    assert list(M().state_dict()) == ["ps.0", "pd.w"]


# -- losses -------------------------------------------------------------------------------
def test_kl_div():
    inp = np.log(rng.dirichlet(np.ones(5), 4))
    tgt = rng.dirichlet(np.ones(5), 4)
    for red in ("mean", "sum", "none", "batchmean"):
        parity(
            lambda a, b: F.kl_div(a, b, reduction=red),  # noqa: B023 (called at once)
            lambda a, b: tF().kl_div(a, b, reduction=red),  # noqa: B023 (called at once)
            inp,
            tgt,
        )
    tgt[0, 1] = 0.0  # a zero target contributes 0 (PyTorch's d/dtarget there is nan)
    parity(
        lambda a: F.kl_div(a, T(tgt), reduction="sum"),
        lambda a: tF().kl_div(a, torch.tensor(tgt), reduction="sum"),
        inp,
    )
    parity(
        lambda a, b: F.kl_div(a, b, reduction="sum", log_target=True),
        lambda a, b: tF().kl_div(a, b, reduction="sum", log_target=True),
        inp,
        np.log(tgt + 0.1),
    )
    same_error(
        lambda a, b: F.kl_div(a, b, reduction="foo"),
        lambda a, b: tF().kl_div(a, b, reduction="foo"),
        inp,
        tgt,
    )


def test_other_losses():
    a, b, c = r(4, 3), r(4, 3), r(4, 3)
    var = np.abs(r(4, 3)) + 0.1
    var[0, 0] = 1e-8  # clamped to eps
    for full in (False, True):
        parity(
            lambda x, y, v: F.gaussian_nll_loss(x, y, v, full=full),  # noqa: B023 (called at once)
            lambda x, y, v: tF().gaussian_nll_loss(x, y, v, full=full),  # noqa: B023 (called at once)
            a,
            b,
            var,
        )
    parity(
        lambda x, y, v: F.gaussian_nll_loss(x, y, v, reduction="none"),
        lambda x, y, v: tF().gaussian_nll_loss(x, y, v, reduction="none"),
        a,
        b,
        var[:, :1],
    )
    cnt = np.floor(np.abs(r(4, 3)) * 3)
    for log_input, full in ((True, False), (True, True), (False, False)):
        x = a if log_input else np.abs(a)
        parity(
            lambda x: F.poisson_nll_loss(x, T(cnt), log_input, full),  # noqa: B023 (called at once)
            lambda x: tF().poisson_nll_loss(x, torch.tensor(cnt), log_input, full),  # noqa: B023 (called at once)
            x,
        )
    y = np.sign(r(4))
    parity(
        lambda x1, x2, t: F.margin_ranking_loss(x1, x2, t, 0.3),
        lambda x1, x2, t: tF().margin_ranking_loss(x1, x2, t, 0.3),
        a[:, 0],
        b[:, 0],
        y,
    )
    for swap in (False, True):
        parity(
            lambda x, p, n: F.triplet_margin_loss(x, p, n, swap=swap),  # noqa: B023 (called at once)
            lambda x, p, n: tF().triplet_margin_loss(x, p, n, swap=swap),  # noqa: B023 (called at once)
            a,
            b,
            c,
        )
    parity(
        lambda x1, x2, t: F.cosine_embedding_loss(x1, x2, t, 0.1),
        lambda x1, x2, t: tF().cosine_embedding_loss(x1, x2, t, 0.1),
        a,
        b,
        y,
    )
    mods = [("KLDivLoss", {}), ("MarginRankingLoss", {}), ("TripletMarginLoss", {})]
    for name, kw in mods:
        assert getattr(nn, name)(**kw).reduction == getattr(torch.nn, name)(**kw).reduction
    gradcheck(lambda x, y, v: F.gaussian_nll_loss(x, y, v), r(2, 2), r(2, 2), np.abs(r(2, 2)) + 1)


def test_embedding_max_norm_and_padding_idx():
    w = np.abs(r(6, 3)) * 2
    idx = np.array([[0, 2], [2, 5]])
    for p in (2.0, 1.0):
        wn, wt = T(w.copy(), True), torch.tensor(w.copy(), requires_grad=True)
        yn = F.embedding(T(idx), wn, max_norm=1.0, norm_type=p)
        yt = tF().embedding(torch.tensor(idx), wt, max_norm=1.0, norm_type=p)
        np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), atol=1e-12)
        np.testing.assert_allclose(wn.detach().numpy(), wt.detach().numpy(), atol=1e-12)
    m = nn.Embedding(6, 3, padding_idx=2, max_norm=0.5, dtype=nb.float64)
    tm = torch.nn.Embedding(6, 3, padding_idx=2, max_norm=0.5, dtype=torch.float64)
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(m.weight.detach().numpy()))
    g = r(2, 2, 3)
    m(T(idx)).backward(T(g))
    tm(torch.tensor(idx)).backward(torch.tensor(g))
    np.testing.assert_allclose(m.weight.grad.numpy(), tm.weight.grad.numpy(), atol=1e-12)
    assert not np.any(m.weight.grad.numpy()[2])
    np.testing.assert_allclose(m.weight.detach().numpy(), tm.weight.detach().numpy(), atol=1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(mode):
    w = r(7, 3)
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 6])
    cases = [
        dict(offsets=np.array([0, 2, 2, 5])),  # an empty bag
        dict(offsets=np.array([0, 3, 8]), include_last_offset=True),
        dict(offsets=np.array([0, 4]), padding_idx=4),
    ]
    for kw in cases:
        off = kw.pop("offsets")

        def f_nb(w, kw=kw, off=off):
            return F.embedding_bag(T(idx), w, T(off), mode=mode, **kw)

        def f_t(w, kw=kw, off=off):
            return tF().embedding_bag(torch.tensor(idx), w, torch.tensor(off), mode=mode, **kw)

        parity(f_nb, f_t, w)
    parity(
        lambda w: F.embedding_bag(T(idx.reshape(2, 4)), w, mode=mode),
        lambda w: tF().embedding_bag(torch.tensor(idx.reshape(2, 4)), w, mode=mode),
        w,
    )
    m = nn.EmbeddingBag(7, 3, mode=mode, dtype=nb.float64)
    tm = torch.nn.EmbeddingBag(7, 3, mode=mode, dtype=torch.float64)
    assert list(m.state_dict()) == list(tm.state_dict()) and repr(m) == repr(tm)


@needs_torch
@pytest.mark.parametrize("fn", ["embedding", "embedding_bag"])
def test_embedding_float_indices_refused(fn):
    """Float indices (a common slip: labels made with np.float64) raise PyTorch's error;
    embedding_bag took them silently before."""
    w = r(7, 3)
    for dt in ("float32", "float64"):
        idx = np.array([1.0, 2.0], dtype=dt)
        with pytest.raises(RuntimeError) as e:
            getattr(F, fn)(T(idx), T(w), *([T(np.array([0]))] if fn == "embedding_bag" else []))
        with pytest.raises(RuntimeError) as et:
            getattr(tF(), fn)(
                torch.tensor(idx),
                torch.tensor(w),
                *([torch.tensor([0])] if fn == "embedding_bag" else []),
            )
        assert str(e.value) == str(et.value).replace("torch.", "nbgrad.")


def test_embedding_bag_weights_and_errors():
    w, psw = r(7, 3), r(8)
    idx, off = np.array([1, 2, 4, 5, 4, 3, 2, 6]), np.array([0, 3])
    parity(
        lambda w, p: F.embedding_bag(T(idx), w, T(off), mode="sum", per_sample_weights=p),
        lambda w, p: tF().embedding_bag(
            torch.tensor(idx), w, torch.tensor(off), mode="sum", per_sample_weights=p
        ),
        w,
        psw,
    )
    same_error(
        lambda w: F.embedding_bag(T(idx), w), lambda w: tF().embedding_bag(torch.tensor(idx), w), w
    )
    same_error(
        lambda w: F.embedding_bag(T(idx), w, T(off), mode="foo"),
        lambda w: tF().embedding_bag(torch.tensor(idx), w, torch.tensor(off), mode="foo"),
        w,
    )
    same_error(
        lambda w, p: F.embedding_bag(T(idx), w, T(off), per_sample_weights=p),
        lambda w, p: tF().embedding_bag(
            torch.tensor(idx), w, torch.tensor(off), per_sample_weights=p
        ),
        w,
        psw,
    )
