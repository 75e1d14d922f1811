"""A GPT-style language model whose output projection shares the token embedding's weight
(`lm_head.weight = tok.weight`), with a learned position embedding, the fused
scaled_dot_product_attention (is_causal) and parameters de-duplicated by parameters()."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=3):
    nn, F = torch.nn, torch.nn.functional
    V, D, T, H = 13, 8, 6, 2

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(V, D)
            self.pos = nn.Embedding(T, D)
            self.qkv = nn.Linear(D, 3 * D)
            self.proj = nn.Linear(D, D)
            self.ln = nn.LayerNorm(D)
            self.lm_head = nn.Linear(D, V, bias=False)
            self.lm_head.weight = self.tok.weight

        def forward(self, idx):
            B, L = idx.shape
            x = self.tok(idx) + self.pos(torch.arange(L))
            q, k, v = self.qkv(self.ln(x)).chunk(3, dim=-1)
            q, k, v = (t.view(B, L, H, D // H).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(B, L, D))
            return self.lm_head(x)

    model = init_from_numpy(torch, GPT(), 52)
    n_params = sum(p.numel() for p in model.parameters())
    data = torch.from_numpy(np.random.default_rng(52).integers(0, V, (4, T + 1)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        logits = model(data[:, :-1])
        loss = F.cross_entropy(logits.view(-1, V), data[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {
        "losses": losses,
        "n_params": n_params,
        "tied": model.lm_head.weight is model.tok.weight,
        "tok_grad": model.tok.weight.grad,
        "state_keys": sorted(model.state_dict().keys()),
    }
