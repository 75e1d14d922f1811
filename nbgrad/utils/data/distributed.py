"""DistributedSampler: each rank's share of a dataset, PyTorch's partition and padding."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .sampler import Sampler


class DistributedSampler(Sampler):
    """Rank `rank` of `num_replicas` gets every num_replicas-th index of the (shuffled,
    then padded by repeating its start, or truncated with drop_last) index list, so that
    every rank gets the same count. Call `set_epoch(e)` before each epoch: the shuffle is
    seeded by `seed + epoch` and is the same on every rank.

    The shuffle is NumPy's permutation under that seed (PyTorch's uses its own
    generator): the partition and padding rules are PyTorch's; the order differs."""

    def __init__(
        self,
        dataset: Any,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None or rank is None:
            from ... import distributed as dist

            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            idx = np.random.default_rng(self.seed + self.epoch).permutation(n)
        else:
            idx = np.arange(n)
        if self.drop_last:
            idx = idx[: self.total_size]
        elif self.total_size > n:  # pad with the list's start, repeated as often as needed
            idx = np.concatenate([idx, np.resize(idx, self.total_size - n)])
        return iter(idx[self.rank : self.total_size : self.num_replicas].tolist())

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch: int):
        self.epoch = epoch
