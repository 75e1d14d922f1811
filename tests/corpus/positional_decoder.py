"""The sinusoidal positional encoding of "Attention Is All You Need", filled with strided
slice assignment (pe[:, 0::2] = sin, pe[:, 1::2] = cos) and registered as a buffer, in a
TransformerDecoder with a causal mask from generate_square_subsequent_mask over an encoded
memory."""

import math

import numpy as np

from corpus._util import init_from_numpy

NONFINITE = True  # some results are inf or nan on purpose (as in PyTorch)


def run(torch, steps=2):
    nn = torch.nn

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=16):
            super().__init__()
            position = torch.arange(max_len).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
            pe = torch.zeros(max_len, d_model)
            pe[:, 0::2] = torch.sin(position * div_term)
            pe[:, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe)

        def forward(self, x):
            return x + self.pe[: x.size(1)]

    V, D = 10, 8
    emb = nn.Embedding(V, D)
    pos = PositionalEncoding(D)
    layer = nn.TransformerDecoderLayer(D, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
    decoder = nn.TransformerDecoder(layer, num_layers=1)
    head = nn.Linear(D, V)
    model = nn.ModuleList([emb, decoder, head])
    init_from_numpy(torch, model, 77)
    rng = np.random.default_rng(77)
    memory = torch.from_numpy(rng.standard_normal((3, 5, D)).astype(np.float32))
    seq = torch.from_numpy(rng.integers(0, V, (3, 7)))
    tgt_in, tgt_out = seq[:, :-1], seq[:, 1:]
    mask = nn.Transformer.generate_square_subsequent_mask(tgt_in.size(1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        h = decoder(pos(emb(tgt_in)), memory, tgt_mask=mask)
        loss = nn.functional.cross_entropy(head(h).reshape(-1, V), tgt_out.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {
        "losses": losses,
        "pe": pos.pe,
        "mask": mask,
        "cross_attn_grad": decoder.layers[0].multihead_attn.in_proj_weight.grad,
    }
