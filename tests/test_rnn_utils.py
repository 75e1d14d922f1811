"""nn.utils.rnn (padding and packing) and packed input to nn.RNN/LSTM/GRU, against PyTorch:
values, gradients, errors."""

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")


def seqs(lib, lengths, feat=3, seed=0, rg=False):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal((n, feat)).astype(np.float32) for n in lengths]
    return [lib.tensor(a, requires_grad=rg) for a in arrs]


def same(a, b, tol=1e-6):
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence(batch_first, side):
    n, t = (
        lib.nn.utils.rnn.pad_sequence(
            seqs(lib, [2, 4, 1]), batch_first=batch_first, padding_value=-1.0, padding_side=side
        )
        for lib in (nbgrad, torch)
    )
    same(n, t)


@pytest.mark.parametrize("lengths,enforce", [([4, 2, 1], True), ([2, 4, 3], False)])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_and_pad_round_trip(lengths, enforce, batch_first):
    out = []
    for lib in (nbgrad, torch):
        R = lib.nn.utils.rnn
        xs = seqs(lib, lengths, rg=True)
        padded = R.pad_sequence(xs, batch_first=batch_first)
        p = R.pack_padded_sequence(
            padded, lib.tensor(lengths), batch_first=batch_first, enforce_sorted=enforce
        )
        back, ls = R.pad_packed_sequence(p, batch_first=batch_first, total_length=5)
        (back * back.detach()).sum().backward()
        out.append((p, back, ls, [x.grad for x in xs], R.pack_sequence(xs, enforce_sorted=enforce)))
    (pn, bn, ln, gn, sn), (pt, bt, lt, gt, st) = out
    same(pn.data, pt.data)
    for f in ("batch_sizes", "sorted_indices", "unsorted_indices"):
        a, b = getattr(pn, f), getattr(pt, f)
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    same(bn, bt)
    np.testing.assert_array_equal(ln.numpy(), lt.numpy())
    for a, b in zip(gn, gt):
        same(a, b)
    same(sn.data, st.data)


@pytest.mark.parametrize("mode", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("with_hx", [False, True])
def test_packed_input_to_recurrent_layers(mode, with_hx):
    lengths = [3, 5, 2]
    res = []
    for lib in (nbgrad, torch):
        lib.manual_seed(0)
        m = getattr(lib.nn, mode)(3, 4, num_layers=2, bidirectional=True, batch_first=True)
        with lib.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(lib.tensor(np.random.default_rng(i).uniform(-0.5, 0.5, tuple(p.shape))))
        R = lib.nn.utils.rnn
        xs = seqs(lib, lengths, rg=True)
        packed = R.pack_sequence(xs, enforce_sorted=False)
        hx = None
        if with_hx:
            h0 = lib.tensor(np.random.default_rng(9).standard_normal((4, 3, 4)).astype(np.float32))
            hx = (h0, h0 * 0.5) if mode == "LSTM" else h0
        out, st = m(packed, hx)
        h = st[0] if mode == "LSTM" else st
        padded, _ = R.pad_packed_sequence(out, batch_first=True)
        (padded.pow(2).sum() + h.sum()).backward()
        res.append((out.data, padded, h, [x.grad for x in xs], m.weight_hh_l1_reverse.grad))
    (on, pn, hn, gn, wn), (ot, pt, ht, gt, wt) = res
    for a, b in [(on, ot), (pn, pt), (hn, ht), (wn, wt), *zip(gn, gt)]:
        same(a, b, 1e-5)


def test_errors_as_torch():
    for call in (
        lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 2, 1), [2, 3]),
        lambda lib: lib.nn.utils.rnn.pack_padded_sequence(
            lib.zeros(3, 2, 1), [0, 3], enforce_sorted=False
        ),
        lambda lib: lib.nn.utils.rnn.pad_packed_sequence(
            lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 2, 1), [3, 2]), total_length=2
        ),
    ):
        with pytest.raises(Exception) as et:
            call(torch)
        with pytest.raises(type(et.value)) as en:
            call(nbgrad)
        assert str(en.value) == str(et.value)
