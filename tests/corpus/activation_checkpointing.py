"""Activation checkpointing with torch.utils.checkpoint: the blocks' activations are
recomputed in backward; gradients equal the plain run's."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch):
    nn = torch.nn
    checkpoint = torch.utils.checkpoint.checkpoint
    blocks = nn.ModuleList([nn.Sequential(nn.Linear(6, 6), nn.GELU()) for _ in range(3)])
    init_from_numpy(torch, blocks, 69)
    x = torch.from_numpy(np.random.default_rng(69).standard_normal((4, 6)).astype(np.float32))
    h = x
    for blk in blocks:
        h = checkpoint(blk, h, use_reentrant=False)
    h.pow(2).sum().backward()
    with_ckpt = [p.grad.clone() for p in blocks.parameters()]
    blocks.zero_grad()
    h = x
    for blk in blocks:
        h = blk(h)
    h.pow(2).sum().backward()
    return {"ckpt": with_ckpt, "plain": [p.grad for p in blocks.parameters()]}
