"""A pre-norm transformer block (multi-head self-attention with a causal mask, LayerNorm,
GELU MLP, residuals) trained for next-token prediction on a toy sequence."""

import numpy as np

from corpus._util import init_from_numpy


def make_block(torch):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.ln1 = nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
            self.ln2 = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x, mask):
            h = self.ln1(x)
            x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
            return x + self.mlp(self.ln2(x))

    class TinyLM(nn.Module):
        def __init__(self, vocab, d, heads, T):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Parameter(torch.zeros(1, T, d))
            self.block = Block(d, heads)
            self.ln_f = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab)

        def forward(self, idx, mask):
            return self.head(self.ln_f(self.block(self.tok(idx) + self.pos, mask)))

    return TinyLM


def run(torch, steps=4):
    V, D, T = 11, 16, 8
    model = init_from_numpy(torch, make_block(torch)(V, D, 2, T), 3)
    mask = torch.from_numpy(np.triu(np.ones((T, T), dtype=bool), k=1))
    rng = np.random.default_rng(3)
    data = torch.from_numpy(rng.integers(0, V, (6, T + 1)))
    x, y = data[:, :-1], data[:, 1:]
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
    losses = []
    for _ in range(steps):
        logits = model(x, mask)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {
        "losses": losses,
        "in_proj_grad": model.block.attn.in_proj_weight.grad,
        "ln1": model.block.ln1.weight,
    }
