"""A hand-written Elman RNN module whose forward makes its initial state with x.new_zeros
(so it follows the input's dtype and device), trained on a running-sum task."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=4):
    nn = torch.nn

    class ElmanRNN(nn.Module):
        def __init__(self, n_in, n_hidden):
            super().__init__()
            self.i2h = nn.Linear(n_in, n_hidden)
            self.h2h = nn.Linear(n_hidden, n_hidden, bias=False)
            self.h2o = nn.Linear(n_hidden, 1)

        def forward(self, x):
            h = x.new_zeros(x.size(0), self.h2h.in_features)
            outs = []
            for t in range(x.size(1)):
                h = torch.tanh(self.i2h(x[:, t]) + self.h2h(h))
                outs.append(self.h2o(h))
            return torch.cat(outs, dim=1)

    rng = np.random.default_rng(44)
    x = rng.uniform(-1, 1, (8, 7, 1)).astype(np.float32)
    y = np.cumsum(x[..., 0], axis=1) / 3
    model = init_from_numpy(torch, ElmanRNN(1, 10), 44)
    opt = torch.optim.Adagrad(model.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        loss = nn.functional.l1_loss(model(torch.from_numpy(x)), torch.from_numpy(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "h2h": model.h2h.weight}
