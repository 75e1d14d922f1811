"""An unrolled LSTMCell loop (the seq2seq-tutorial style): the state is stepped by hand over
time, outputs are stacked, and the loss covers every step; gradients of the initial state."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, T=6):
    nn = torch.nn
    rng = np.random.default_rng(24)
    cell = init_from_numpy(torch, nn.LSTMCell(3, 5), 24)
    head = init_from_numpy(torch, nn.Linear(5, 1), 25)
    xs = torch.from_numpy(rng.standard_normal((T, 4, 3)).astype(np.float32))
    target = torch.from_numpy(rng.standard_normal((T, 4, 1)).astype(np.float32))
    h0 = torch.zeros(4, 5, requires_grad=True)
    c0 = torch.zeros(4, 5, requires_grad=True)
    h, c = h0, c0
    outputs = []
    for t in range(T):
        h, c = cell(xs[t], (h, c))
        outputs.append(head(h))
    out = torch.stack(outputs)
    loss = nn.functional.mse_loss(out, target)
    loss.backward()
    rnn = init_from_numpy(torch, nn.RNNCell(3, 5, nonlinearity="relu"), 26)
    hr = torch.zeros(4, 5)
    for t in range(T):
        hr = rnn(xs[t], hr)
    hr.sum().backward()
    return {
        "loss": loss,
        "out": out,
        "h0_grad": h0.grad,
        "c0_grad": c0.grad,
        "w_hh_grad": cell.weight_hh.grad,
        "rnn_grad": rnn.weight_ih.grad,
    }
