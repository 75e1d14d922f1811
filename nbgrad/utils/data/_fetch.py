"""Turning a batch of indices into a batch: the work a DataLoader (or its workers) does."""

import numpy as np

from ._collate import default_collate
from .dataset import IterableDataset, TensorDataset


def gather_arrays(dataset, collate_fn):
    """The NumPy arrays of a TensorDataset whose batches can be gathered in one indexing
    per tensor (default collation of CPU tensors that do not require grad), else None.
    PyTorch fetches and stacks sample by sample; one gather gives the same batch."""
    if type(dataset) is not TensorDataset or collate_fn is not default_collate:
        return None
    out = []
    for t in dataset.tensors:
        if t.is_cuda or t._rg:
            return None
        out.append(t._data)
    return out


def fetch(dataset, indices, collate_fn, arrays):
    """One batch: the samples at `indices` (a list, or an int64 array), collated."""
    if arrays is not None:
        from ...tensor import Tensor

        idx = np.asarray(indices, np.int64)
        return [Tensor._make(a[idx], -1, False) for a in arrays]
    if not isinstance(indices, list):
        indices = indices.tolist()
    many = getattr(dataset, "__getitems__", None)
    samples = many(indices) if many is not None else [dataset[i] for i in indices]
    return collate_fn(samples)


def index_batches(batch_sampler):
    """The batch sampler's batches, as index arrays when it can give them without a loop
    over indices (a BatchSampler over a sequential or random sampler)."""
    arrays = getattr(batch_sampler, "_arrays", None)
    batches = arrays() if arrays is not None and _exact_batch_sampler(batch_sampler) else None
    return iter(batch_sampler) if batches is None else batches


def _exact_batch_sampler(bs):
    from .sampler import BatchSampler

    return type(bs) is BatchSampler


class IterableFetcher:
    """Batches from an iterable dataset: `batch_size` samples each (None: one unbatched
    sample each); raises StopIteration when the iterable ends (or before a short last batch
    with drop_last)."""

    def __init__(self, dataset, batch_size, drop_last, collate_fn):
        self.it = iter(dataset)
        self.batch_size, self.drop_last, self.collate_fn = batch_size, drop_last, collate_fn
        self.ended = False

    def next(self):
        if self.batch_size is None:
            return self.collate_fn(next(self.it))
        if self.ended:
            raise StopIteration
        batch = []
        for x in self.it:
            batch.append(x)
            if len(batch) == self.batch_size:
                return self.collate_fn(batch)
        self.ended = True
        if not batch or self.drop_last:
            raise StopIteration
        return self.collate_fn(batch)


def is_iterable(dataset):
    return isinstance(dataset, IterableDataset)
