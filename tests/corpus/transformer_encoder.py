"""nn.TransformerEncoder (two post-norm layers, dropout=0) as a sequence classifier with a
key padding mask, mean-pooled over the real tokens."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=3):
    nn = torch.nn
    layer = nn.TransformerEncoderLayer(
        d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True
    )
    encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    head = nn.Linear(8, 2)
    model = nn.ModuleDict({"encoder": encoder, "head": head})
    init_from_numpy(torch, model, 35)
    rng = np.random.default_rng(35)
    x = torch.from_numpy(rng.standard_normal((4, 5, 8)).astype(np.float32))
    lengths = np.array([5, 3, 4, 2])
    pad = torch.from_numpy(np.arange(5)[None, :] >= lengths[:, None])
    y = torch.from_numpy(np.array([0, 1, 1, 0]))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        h = encoder(x, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).float()
        pooled = (h * keep).sum(1) / keep.sum(1)
        loss = nn.functional.cross_entropy(head(pooled), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "pooled": pooled, "ff_grad": encoder.layers[1].linear1.weight.grad}
