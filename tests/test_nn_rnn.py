"""RNN / LSTM / GRU (and cells), SDPA, MultiheadAttention and the Transformer encoder against
PyTorch after loading the same state_dict: values, gradients, parameter names, errors."""

import numpy as np
import pytest
from test_ops_helpers import T, gradcheck, needs_torch, parity, same_error, torch

import nbgrad as nb
from nbgrad import nn
from nbgrad.nn import functional as F

pytestmark = needs_torch
rng = np.random.default_rng(2)


def r(*shape):
    return rng.standard_normal(shape)


def _load_from_torch(m, tm):
    """Load torch's state_dict into the nbgrad module (the names must match)."""
    sd = {k: T(v.detach().numpy()) for k, v in tm.state_dict().items()}
    assert list(m.state_dict()) == list(sd)
    m.load_state_dict(sd)


def _flat(out):
    if isinstance(out, tuple):
        return [t for o in out for t in _flat(o)]
    return [out] if out is not None else []


def _parity(m, tm, *xs, atol=1e-10, kw=None):
    kw = kw or {}
    _load_from_torch(m, tm)
    xn = [T(x, x.dtype.kind == "f") if isinstance(x, np.ndarray) else x for x in xs]
    xt = [
        torch.tensor(x, requires_grad=x.dtype.kind == "f") if isinstance(x, np.ndarray) else x
        for x in xs
    ]
    on, ot = _flat(m(*xn, **kw)), _flat(tm(*xt, **kw))
    assert len(on) == len(ot)
    loss_n, loss_t = 0, 0
    for a, b in zip(on, ot):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=atol)
        if b.requires_grad:
            g = r(*b.shape)
            loss_n = loss_n + (a * T(g)).sum()
            loss_t = loss_t + (b * torch.tensor(g)).sum()
    loss_n.backward()
    loss_t.backward()
    for a, b in zip(xn, xt):
        if isinstance(b, torch.Tensor) and b.requires_grad:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=atol)
    for (k, p), (_, tp) in zip(m.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), atol=atol, err_msg=k)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize(
    "kw",
    [
        {},
        dict(num_layers=2, bidirectional=True),
        dict(batch_first=True, bias=False),
        dict(num_layers=2, batch_first=True),
    ],
)
def test_recurrent_layers(kind, kw):
    m = getattr(nn, kind)(3, 4, dtype=nb.float64, **kw)
    tm = getattr(torch.nn, kind)(3, 4, dtype=torch.float64, **kw)
    _parity(m, tm, r(5, 2, 3))
    assert repr(m) == repr(tm)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_recurrent_initial_state_and_unbatched(kind):
    kw = dict(num_layers=2, bidirectional=True)
    m = getattr(nn, kind)(3, 4, dtype=nb.float64, **kw)
    tm = getattr(torch.nn, kind)(3, 4, dtype=torch.float64, **kw)
    h0 = r(4, 2, 4)
    if kind == "LSTM":
        _load_from_torch(m, tm)
        x, c0 = r(5, 2, 3), r(4, 2, 4)
        xn, hn, cn = T(x, True), T(h0, True), T(c0, True)
        xt = torch.tensor(x, requires_grad=True)
        ht, ct = torch.tensor(h0, requires_grad=True), torch.tensor(c0, requires_grad=True)
        on, (hN, cN) = m(xn, (hn, cn))
        ot, (htN, ctN) = tm(xt, (ht, ct))
        (on.sum() + hN.sum() * 2 + cN.sum() * 3).backward()
        (ot.sum() + htN.sum() * 2 + ctN.sum() * 3).backward()
        for a, b in (
            (on, ot),
            (cN, ctN),
            (xn.grad, xt.grad),
            (hn.grad, ht.grad),
            (cn.grad, ct.grad),
        ):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-10)
        _parity(m, tm, r(5, 3))
    else:
        _parity(m, tm, r(5, 2, 3), h0)
        _parity(m, tm, r(5, 3), r(4, 4))


def test_rnn_relu_and_dropout_and_errors():
    m = nn.RNN(3, 4, 2, nonlinearity="relu", dtype=nb.float64)
    tm = torch.nn.RNN(3, 4, 2, nonlinearity="relu", dtype=torch.float64)
    _parity(m, tm, r(4, 2, 3))
    d = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    y, _ = d(T(r(4, 2, 3).astype(np.float32)))
    assert y.shape == (4, 2, 4)
    d.eval()
    with pytest.raises(RuntimeError) as en:
        nn.LSTM(3, 4)(T(r(5, 2, 4).astype(np.float32)))
    with pytest.raises(RuntimeError) as et:
        torch.nn.LSTM(3, 4)(torch.randn(5, 2, 4))
    assert str(en.value) == str(et.value)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.GRU(3, 4, dropout=2)


def test_recurrent_init_bounds():
    m = nn.LSTM(5, 16)
    for p in m.parameters():
        assert np.abs(p.detach().numpy()).max() <= 0.25 + 1e-7
    assert [n for n, _ in m.named_parameters()] == [
        n for n, _ in torch.nn.LSTM(5, 16).named_parameters()
    ]


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells(kind):
    m = getattr(nn, kind)(3, 4, dtype=nb.float64)
    tm = getattr(torch.nn, kind)(3, 4, dtype=torch.float64)
    _parity(m, tm, r(2, 3))
    if kind == "LSTMCell":
        _load_from_torch(m, tm)
        x, h, c = r(2, 3), r(2, 4), r(2, 4)
        hn, cn = m(T(x), (T(h), T(c)))
        ht, ct = tm(torch.tensor(x), (torch.tensor(h), torch.tensor(c)))
        np.testing.assert_allclose(cn.detach().numpy(), ct.detach().numpy(), atol=1e-12)
        _parity(m, tm, r(3))
    else:
        _parity(m, tm, r(2, 3), r(2, 4))
        _parity(m, tm, r(3), r(4))


def test_lstm_cell_gradcheck():
    cell = nn.LSTMCell(2, 2, dtype=nb.float64)

    def f(x, h):
        return nb.cat(list(cell(x, (h, h))), -1)

    gradcheck(f, r(1, 2), r(1, 2))


# -- attention ----------------------------------------------------------------------------
def test_sdpa():
    tF = torch.nn.functional
    q, k, v = r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 2)
    parity(F.scaled_dot_product_attention, tF.scaled_dot_product_attention, q, k, v)
    parity(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.3),
        lambda q, k, v: tF.scaled_dot_product_attention(q, k, v, scale=0.3),
        q,
        k,
        v,
    )
    parity(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        lambda q, k, v: tF.scaled_dot_product_attention(q, k, v, is_causal=True),
        q,
        k,
        v,
    )
    bmask = rng.random((4, 6)) > 0.3
    bmask[:, 0] = True
    parity(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, T(bmask)),
        lambda q, k, v: tF.scaled_dot_product_attention(q, k, v, torch.tensor(bmask)),
        q,
        k,
        v,
    )
    fmask = r(2, 1, 4, 6)
    parity(
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m),
        lambda q, k, v, m: tF.scaled_dot_product_attention(q, k, v, m),
        q,
        k,
        v,
        fmask,
    )
    gradcheck(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        r(1, 3, 2),
        r(1, 3, 2),
        r(1, 3, 2),
    )
    same_error(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, T(bmask[:4, :4]), is_causal=True),
        lambda q, k, v: tF.scaled_dot_product_attention(
            q, k, v, torch.tensor(bmask[:4, :4]), is_causal=True
        ),
        r(2, 4, 4),
        r(2, 4, 4),
        r(2, 4, 4),
    )
    y = F.scaled_dot_product_attention(T(q), T(k), T(v), dropout_p=0.5)
    assert y.shape == (2, 3, 4, 2)


@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention(batch_first):
    m = nn.MultiheadAttention(8, 2, batch_first=batch_first, dtype=nb.float64)
    tm = torch.nn.MultiheadAttention(8, 2, batch_first=batch_first, dtype=torch.float64)
    assert list(m.state_dict()) == list(tm.state_dict())
    shape = (3, 4, 8) if batch_first else (4, 3, 8)
    q, k = r(*shape), r(*((3, 5, 8) if batch_first else (5, 3, 8)))
    _parity(m, tm, q, k, k)
    _parity(m, tm, q, k, k, kw=dict(average_attn_weights=False))
    kpm = rng.random((3, 5)) > 0.6
    kpm[:, 0] = False
    amask = rng.random((4, 5)) > 0.7
    amask[:, 1] = False
    _load_from_torch(m, tm)
    on, wn = m(T(q), T(k), T(k), key_padding_mask=T(kpm), attn_mask=T(amask))
    ot, wt = tm(
        torch.tensor(q),
        torch.tensor(k),
        torch.tensor(k),
        key_padding_mask=torch.tensor(kpm),
        attn_mask=torch.tensor(amask),
    )
    np.testing.assert_allclose(on.detach().numpy(), ot.detach().numpy(), atol=1e-10)
    np.testing.assert_allclose(wn.detach().numpy(), wt.detach().numpy(), atol=1e-10)
    fm = r(4, 5)
    on, wn = m(T(q), T(k), T(k), attn_mask=T(fm), need_weights=False)
    ot, wt = tm(
        torch.tensor(q),
        torch.tensor(k),
        torch.tensor(k),
        attn_mask=torch.tensor(fm),
        need_weights=False,
    )
    assert wn is None and wt is None
    np.testing.assert_allclose(on.detach().numpy(), ot.detach().numpy(), atol=1e-10)


def test_multihead_attention_kdim_unbatched_errors():
    m = nn.MultiheadAttention(6, 3, kdim=4, vdim=5, dtype=nb.float64)
    tm = torch.nn.MultiheadAttention(6, 3, kdim=4, vdim=5, dtype=torch.float64)
    _parity(m, tm, r(2, 3, 6), r(4, 3, 4), r(4, 3, 5))
    m = nn.MultiheadAttention(6, 3, bias=False, dtype=nb.float64)
    tm = torch.nn.MultiheadAttention(6, 3, bias=False, dtype=torch.float64)
    _parity(m, tm, r(2, 6), r(4, 6), r(4, 6))
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_transformer_encoder_eval(norm_first, activation):
    kw = dict(
        dim_feedforward=16,
        dropout=0.1,
        activation=activation,
        norm_first=norm_first,
        batch_first=True,
    )
    layer = nn.TransformerEncoderLayer(8, 2, dtype=nb.float64, **kw)
    tlayer = torch.nn.TransformerEncoderLayer(8, 2, dtype=torch.float64, **kw)
    enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8, dtype=nb.float64))
    tenc = torch.nn.TransformerEncoder(
        tlayer, 2, norm=torch.nn.LayerNorm(8, dtype=torch.float64), enable_nested_tensor=False
    )
    for p in tenc.parameters():
        torch.nn.init.normal_(p, std=0.3)
    enc.eval()
    tenc.eval()
    x = r(3, 5, 8)
    _parity(enc, tenc, x)
    kpm = rng.random((3, 5)) > 0.7
    kpm[:, 0] = False
    _load_from_torch(enc, tenc)
    yn = enc(T(x), src_key_padding_mask=T(kpm))
    with torch.no_grad():
        yt = tenc(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
    keep = ~kpm  # PyTorch's fast path may leave padded positions unspecified
    np.testing.assert_allclose(yn.detach().numpy()[keep], yt.numpy()[keep], atol=1e-10)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64)
    yn = enc(T(x), mask=T(mask.numpy()))
    yt = tenc(torch.tensor(x), mask=mask)
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), atol=1e-10)


def test_transformer_train_mode_dropout_shapes():
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
    y = layer(T(r(5, 3, 8).astype(np.float32)))
    assert y.shape == (5, 3, 8)
    y.sum().backward()
    assert layer.linear1.weight.grad is not None


def test_multihead_attention_3d_mask_and_causal():
    m = nn.MultiheadAttention(4, 2, dtype=nb.float64)
    tm = torch.nn.MultiheadAttention(4, 2, dtype=torch.float64)
    _load_from_torch(m, tm)
    q = r(3, 2, 4)
    m3 = r(4, 3, 3)  # (N * heads, L, S), float
    on, wn = m(T(q), T(q), T(q), attn_mask=T(m3))
    ot, wt = tm(*(torch.tensor(q),) * 3, attn_mask=torch.tensor(m3))
    np.testing.assert_allclose(on.detach().numpy(), ot.detach().numpy(), atol=1e-10)
    np.testing.assert_allclose(wn.detach().numpy(), wt.detach().numpy(), atol=1e-10)
    causal = np.triu(np.ones((3, 3), bool), 1)
    on, _ = m(T(q), T(q), T(q), attn_mask=T(causal), is_causal=True)
    ot, _ = tm(*(torch.tensor(q),) * 3, attn_mask=torch.tensor(causal), is_causal=True)
    np.testing.assert_allclose(on.detach().numpy(), ot.detach().numpy(), atol=1e-10)


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_eval(norm_first):
    kw = dict(
        d_model=8,
        nhead=2,
        num_encoder_layers=2,
        num_decoder_layers=2,
        dim_feedforward=16,
        norm_first=norm_first,
        batch_first=True,
    )
    m = nn.Transformer(dtype=nb.float64, **kw)
    tm = torch.nn.Transformer(dtype=torch.float64, **kw)
    for p in tm.parameters():
        torch.nn.init.normal_(p, std=0.3)
    m.eval()
    tm.eval()
    src, tgt = r(2, 5, 8), r(2, 4, 8)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    mine = nn.Transformer.generate_square_subsequent_mask(4, dtype=nb.float64)
    np.testing.assert_array_equal(mine.numpy(), mask.numpy())
    _parity(m, tm, src, tgt, kw=dict(tgt_mask=None))
    _load_from_torch(m, tm)
    kpm = np.zeros((2, 5), bool)
    kpm[1, 3:] = True
    yn = m(T(src), T(tgt), tgt_mask=mine, memory_key_padding_mask=T(kpm))
    yt = tm(
        torch.tensor(src),
        torch.tensor(tgt),
        tgt_mask=mask,
        memory_key_padding_mask=torch.tensor(kpm),
    )
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), atol=1e-10)


def test_transformer_decoder_layer_train_mode_and_errors():
    layer = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16)
    dec = nn.TransformerDecoder(layer, 2)
    y = dec(T(r(4, 3, 8).astype(np.float32)), T(r(5, 3, 8).astype(np.float32)))
    assert y.shape == (4, 3, 8)
    y.sum().backward()
    assert dec.layers[1].multihead_attn.in_proj_weight.grad is not None
    names = [n for n, _ in dec.named_parameters()]
    tdec = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(8, 2, 16), 2)
    assert names == [n for n, _ in tdec.named_parameters()]
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        nn.Transformer(8, 2, 1, 1, 16)(T(r(3, 2, 8)), T(r(3, 4, 8)))


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_default_state_gradients(kind):
    """Without an initial state, weight_hh gets PyTorch's gradient: zeros for one step."""
    for seq in (1, 3):
        m = getattr(nn, kind)(3, 4, dtype=nb.float64)
        tm = getattr(torch.nn, kind)(3, 4, dtype=torch.float64)
        _parity(m, tm, r(seq, 2, 3))
        if seq == 1:
            assert not np.any(m.weight_hh_l0.grad.numpy())


def test_compiled_lstm_without_state():
    import warnings

    m = nn.LSTM(3, 4)
    x = T(r(6, 2, 3).astype(np.float32))

    def f(x):
        loss = m(x)[0].sum()
        loss.backward()
        return loss

    eager = f(x).item()
    cf = nb.compile(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # replayed, not run eagerly
        got = [cf(x).item() for _ in range(3)]
    assert got == [eager] * 3
