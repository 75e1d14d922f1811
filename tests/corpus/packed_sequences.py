"""Variable-length batches through an LSTM the usual way: pad_sequence, pack_padded_sequence
(enforce_sorted=False), the packed LSTM, pad_packed_sequence, last real step per sequence."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch):
    nn = torch.nn
    rnn_utils = nn.utils.rnn
    rng = np.random.default_rng(68)
    lengths = [4, 2, 5]
    seqs = [torch.from_numpy(rng.standard_normal((n, 3)).astype(np.float32)) for n in lengths]
    padded = rnn_utils.pad_sequence(seqs, batch_first=True)
    lstm = init_from_numpy(torch, nn.LSTM(3, 6, batch_first=True, bidirectional=True), 68)
    packed = rnn_utils.pack_padded_sequence(
        padded, torch.tensor(lengths), batch_first=True, enforce_sorted=False
    )
    out, (h, c) = lstm(packed)
    unpacked, out_lengths = rnn_utils.pad_packed_sequence(out, batch_first=True)
    last = torch.cat([h[0], h[1]], dim=1)
    last.pow(2).sum().backward()
    return {"unpacked": unpacked, "lengths": out_lengths, "h": h, "grad": lstm.weight_ih_l0.grad}
