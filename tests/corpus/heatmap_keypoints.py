"""Keypoint decoding from heatmaps (pose-estimation style): argmax over each flattened map,
then row = idx // W and col = idx % W (also torch.div with rounding_mode="floor"), a
soft-argmax for a differentiable estimate, and an L1 loss on it."""

import numpy as np

TOL = dict(rtol=1e-10, atol=1e-12)


def run(torch):
    rng = np.random.default_rng(70)
    B, K, H, W = 2, 3, 5, 6
    heat = torch.from_numpy(rng.standard_normal((B, K, H, W))).requires_grad_(True)
    flat = heat.view(B, K, -1)
    idx = flat.argmax(dim=-1)
    rows, cols = idx // W, idx % W
    rows2 = torch.div(idx, W, rounding_mode="floor")
    probs = torch.softmax(flat * 5, dim=-1).view(B, K, H, W)
    ys = torch.arange(H, dtype=torch.float64).view(1, 1, H, 1)
    xs = torch.arange(W, dtype=torch.float64).view(1, 1, 1, W)
    soft = torch.stack([(probs * ys).sum((2, 3)), (probs * xs).sum((2, 3))], dim=-1)
    hard = torch.stack([rows, cols], dim=-1).double()
    loss = (soft - hard).abs().mean()
    loss.backward()
    return {
        "rows": rows,
        "cols": cols,
        "same": bool(torch.equal(rows, rows2)),
        "soft": soft,
        "grad": heat.grad,
    }
