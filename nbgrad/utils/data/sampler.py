"""Samplers: which indices a DataLoader fetches, in what order, in what batches.

`generator` arguments take a `nbgrad.Generator` (or a `numpy.random.Generator`). Without
one, each pass draws a fresh generator seeded from nbgrad's global generator, so
`nbgrad.manual_seed(s)` makes the order reproducible, as in PyTorch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def _generator(generator):
    if generator is not None:
        from ..._generator import numpy_rng

        return numpy_rng(generator)
    from ...creation import _rng

    return np.random.default_rng(int(_rng[0].integers(0, 2**63 - 1)))


class Sampler:
    """Base class: an iterable of indices (or of lists of indices, for batch samplers)."""

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Shuffled indices (a permutation per pass of the data), or `num_samples` draws with
    replacement."""

    def __init__(
        self,
        data_source: Any,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Any = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={self.replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def _indices(self):
        n, m = len(self.data_source), self.num_samples
        g = _generator(self.generator)
        if self.replacement:
            return g.integers(0, n, m)
        parts = [g.permutation(n) for _ in range(m // n)]
        if m % n:
            parts.append(g.permutation(n)[: m % n])
        return np.concatenate(parts) if parts else np.empty(0, np.int64)

    def __iter__(self):
        return iter(self._indices().tolist())

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        perm = _generator(self.generator).permutation(len(self.indices))
        return (self.indices[i] for i in perm.tolist())

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probabilities proportional to `weights`."""

    def __init__(
        self,
        weights: Sequence[float],
        num_samples: int,
        replacement: bool = True,
        generator: Any = None,
    ) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}"
            )
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        w = self.weights
        if not self.replacement and self.num_samples > np.count_nonzero(w):
            raise RuntimeError(
                "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
            )
        g = _generator(self.generator)
        idx = g.choice(len(w), self.num_samples, replace=self.replacement, p=w / w.sum())
        return iter(idx.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of `batch_size` (the last one shorter
    unless `drop_last`)."""

    def __init__(self, sampler: Any, batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def _index_array(self):
        """The sampler's whole pass as one array, when it can give it without a loop."""
        s = self.sampler
        if type(s) is SequentialSampler:
            return np.arange(len(s))
        if type(s) is RandomSampler:
            return s._indices()
        return None

    def _arrays(self):
        """The batches as index arrays (None when the sampler is not one whose pass is
        one array): slices of one array, no per-index Python work."""
        idx = self._index_array()
        if idx is None:
            return None
        bs = self.batch_size
        stop = len(idx) - len(idx) % bs if self.drop_last else len(idx)
        return (idx[i : i + bs] for i in range(0, stop, bs))

    def __iter__(self):
        arrays = self._arrays()
        if arrays is not None:
            for a in arrays:
                yield a.tolist()
            return
        bs = self.batch_size
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == bs:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
