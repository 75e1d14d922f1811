"""nanoGPT's CausalSelfAttention: one Linear makes q, k, v; the mask is a registered
`tril` buffer applied with masked_fill; softmax, dropout-free."""

import math

import numpy as np

from corpus._util import init_from_numpy


def run(torch):
    nn, F = torch.nn, torch.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self, n_embd, n_head, block_size):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.n_head, self.n_embd = n_head, n_embd
            mask = torch.tril(torch.ones(block_size, block_size))
            self.register_buffer("bias", mask.view(1, 1, block_size, block_size))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
            return self.c_proj(y)

    attn = init_from_numpy(torch, CausalSelfAttention(12, 3, 8), 4)
    x = torch.from_numpy(np.random.default_rng(4).standard_normal((2, 6, 12)).astype(np.float32))
    x.requires_grad_(True)
    y = attn(x)
    (y**2).sum().backward()
    return {"y": y, "x_grad": x.grad, "w_grad": attn.c_attn.weight.grad}
