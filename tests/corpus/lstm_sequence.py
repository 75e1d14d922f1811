"""An LSTM sequence model: predict the next value of noisy sine waves from the last hidden
state (batch_first LSTM, Linear head, MSELoss, Adam, gradient clipping)."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=4):
    nn = torch.nn

    class SeqModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(input_size=1, hidden_size=8, num_layers=2, batch_first=True)
            self.fc = nn.Linear(8, 1)

        def forward(self, x):
            out, (h, c) = self.lstm(x)
            return self.fc(out[:, -1, :])

    rng = np.random.default_rng(6)
    t = np.linspace(0, 4 * np.pi, 13)
    phase = rng.uniform(0, 2 * np.pi, (16, 1))
    series = (np.sin(t + phase) + 0.05 * rng.standard_normal((16, 13))).astype(np.float32)
    x = torch.from_numpy(series[:, :-1, None])
    y = torch.from_numpy(series[:, -1:])

    model = init_from_numpy(torch, SeqModel(), 6)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    losses, norms = [], []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        norms.append(nn.utils.clip_grad_norm_(model.parameters(), 0.5).item())
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "norms": norms, "w_hh_l1": model.lstm.weight_hh_l1}
