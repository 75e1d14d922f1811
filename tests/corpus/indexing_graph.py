"""Indexing inside a graph: repeated integer indices accumulate gradients, boolean masks
select and assign, in-place writes into a non-leaf through a slice, index_put with
accumulate, scatter_add and gather with duplicates, split / chunk / unbind / flip /
repeat on the way."""

import numpy as np

TOL = dict(rtol=1e-12, atol=1e-12)


def run(torch):
    rng = np.random.default_rng(62)
    w = torch.from_numpy(rng.standard_normal((5, 4))).requires_grad_(True)
    idx = torch.tensor([0, 2, 2, 4, 0, 0])
    h = w * 1.0
    h[1:3] = h[1:3] * 2  # in-place write into a non-leaf through a slice
    h[:, 0] = 0.0  # and through a column (a copying view in nbgrad)
    picked = h[idx]  # repeated rows: their gradients add up
    mask = picked > 0
    masked = picked[mask].sum() + (picked * mask).pow(2).sum()
    parts = torch.split(h, [2, 3], dim=0)
    chunks = h.chunk(3, dim=1)
    rows = h.unbind(0)
    other = (
        parts[0].flip(0).sum()
        + (chunks[-1] ** 3).sum()
        + rows[4].repeat(2, 3).sum()
        + h.gather(1, torch.tensor([[1, 1], [3, 3], [2, 2], [0, 1], [3, 2]])).exp().sum()
    )
    target = torch.zeros(3, 4, dtype=torch.float64).scatter_add(
        0, torch.tensor([[0, 1, 2, 0], [0, 0, 2, 2]]), h[:2]
    )
    acc = torch.zeros(3, dtype=torch.float64).index_put(
        (torch.tensor([0, 0, 2]),), h[0, 1:], accumulate=True
    )
    loss = masked + other + (target**2).sum() + acc.prod()
    loss.backward()
    z = torch.zeros(4, 3, dtype=torch.float64)
    z[torch.tensor([True, False, True, False])] = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    return {"loss": loss, "grad": w.grad, "h": h, "masked_assign": z, "n_pos": int(mask.sum())}
