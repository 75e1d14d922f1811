"""DataLoader benchmark: one shuffled epoch over a TensorDataset, nbgrad against torch.

  loader-epoch   60,000 x 784 float32 samples with int64 labels, batch 128, shuffle=True,
                 default collation, no workers: every batch is fetched and touched

nbgrad gathers each batch with one indexing per tensor; PyTorch fetches the 128 samples
one by one and stacks them. Both peers check that an epoch sees every sample once.
"""

import numpy as np
import pytest

from benchmarks.test_training import tag


def test_loader_epoch(benchmark, peer):
    if not peer.torchlike:
        pytest.skip("the DataLoader benchmark uses the torch API (nbgrad and torch)")
    torch = peer.mod
    tag(benchmark, "loader-epoch", peer.name)
    rng = np.random.default_rng(0)
    X = torch.from_numpy(rng.random((60_000, 784), dtype=np.float32))
    y = torch.from_numpy(np.arange(60_000, dtype=np.int64))
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(X, y), batch_size=128, shuffle=True
    )

    def epoch():
        seen = 0
        total = 0
        for xb, yb in loader:
            seen += xb.shape[0]
            total += int(yb.sum())
        return seen, total

    assert epoch() == (60_000, 60_000 * 59_999 // 2)
    benchmark.pedantic(epoch, rounds=10, iterations=1, warmup_rounds=1)
