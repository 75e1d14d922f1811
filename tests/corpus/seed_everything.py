"""The reproducibility boilerplate at the top of many scripts: seed Python, NumPy and the
library, ask for deterministic algorithms and one thread, then split a dataset with a seeded
torch.Generator (the split itself differs between libraries; its sizes and coverage do
not)."""

import random

import numpy as np


def run(torch):
    def seed_everything(seed):
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)
        torch.use_deterministic_algorithms(True)
        torch.set_num_threads(1)

    threads = torch.get_num_threads()
    try:
        seed_everything(0)
        return split(torch)
    finally:  # leave the test process as it was
        torch.use_deterministic_algorithms(False)
        torch.set_num_threads(threads)


def split(torch):
    data = torch.utils.data.TensorDataset(torch.arange(20.0).unsqueeze(1))
    g = torch.Generator().manual_seed(42)
    train, val = torch.utils.data.random_split(data, [0.8, 0.2], generator=g)
    seen = sorted(int(x.item()) for (x,) in train) + sorted(int(x.item()) for (x,) in val)
    loader = torch.utils.data.DataLoader(
        train, batch_size=5, shuffle=True, generator=torch.Generator().manual_seed(1)
    )
    return {
        "sizes": [len(train), len(val)],
        "covered": sorted(seen) == list(range(20)),
        "batches": len(list(loader)),
    }
