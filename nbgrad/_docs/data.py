"""Docstrings of `nbgrad.utils.data` (keys are the names); the examples' outputs are PyTorch's."""

DOCS = {
    "BatchSampler": """Groups the indices of another sampler into lists of `batch_size`.

    Args:
        sampler (Sampler or iterable): the indices.
        batch_size (int): the size of each list.
        drop_last (bool): drop the last list if it is shorter. Default: required.

    Example::

        >>> sampler = torch.utils.data.SequentialSampler(range(5))
        >>> list(torch.utils.data.BatchSampler(sampler, batch_size=2, drop_last=False))
        [[0, 1], [2, 3], [4]]
    """,
    "ChainDataset": """The chaining of iterable datasets, one after the other.

    Args:
        datasets (iterable of IterableDataset): the datasets, in order.

    Example::

        >>> class Count(torch.utils.data.IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n))
        >>> list(torch.utils.data.ChainDataset([Count(2), Count(3)]))
        [0, 1, 0, 1, 2]
    """,
    "ConcatDataset": """The concatenation of map-style datasets.

    Args:
        datasets (sequence of Dataset): the datasets, in order.

    Example::

        >>> a = torch.utils.data.TensorDataset(torch.tensor([1., 2.]))
        >>> b = torch.utils.data.TensorDataset(torch.tensor([3.]))
        >>> ds = torch.utils.data.ConcatDataset([a, b])
        >>> len(ds), ds[2]
        (3, (tensor(3.),))
    """,
    "DataLoader": """Iterates over a dataset in batches: samples indices (in order or shuffled),
    fetches the samples (optionally in worker processes) and collates them into tensors.

    Args:
        dataset (Dataset): the data.
        batch_size (int or None): samples per batch; None yields single samples. Default: 1.
        shuffle (bool): a new random order each epoch. Default: False.
        sampler (Sampler, optional): the order of the indices (instead of shuffle).
        batch_sampler (Sampler, optional): yields lists of indices (instead of batch_size,
            shuffle, sampler, drop_last).
        num_workers (int): worker processes loading batches; 0 loads in this process.
            Default: 0.
        collate_fn (callable, optional): makes a batch from a list of samples. Default:
            `default_collate`.
        drop_last (bool): drop the last batch if it is smaller. Default: False.
        worker_init_fn (callable, optional): called with the worker id in each worker.
        generator (Generator, optional): the source of randomness of shuffling.
        persistent_workers (bool): keep the workers between epochs. Default: False.

    Example::

        >>> ds = torch.utils.data.TensorDataset(torch.arange(5.), torch.tensor([0, 1, 0, 1, 0]))
        >>> for x, y in torch.utils.data.DataLoader(ds, batch_size=2):
        ...     print(x, y)
        tensor([0., 1.]) tensor([0, 1])
        tensor([2., 3.]) tensor([0, 1])
        tensor([4.]) tensor([0])
    """,
    "Dataset": """The base class of map-style datasets: subclasses define `__getitem__(index)` and,
    for the default samplers, `__len__`.

    Example::

        >>> class Squares(torch.utils.data.Dataset):
        ...     def __len__(self):
        ...         return 4
        ...     def __getitem__(self, i):
        ...         return torch.tensor(float(i * i))
        >>> next(iter(torch.utils.data.DataLoader(Squares(), batch_size=4)))
        tensor([0., 1., 4., 9.])
    """,
    "DistributedSampler": """Gives each of `num_replicas` processes its own share of the dataset's
    indices (padded or truncated so every rank gets the same count); call `set_epoch(e)` before each
    epoch for a new shuffle.

    Args:
        dataset (Dataset): the dataset.
        num_replicas (int, optional): the number of processes. Default: the world size.
        rank (int, optional): this process's rank. Default: the current rank.
        shuffle (bool): Default: True.
        seed (int): the shuffle seed, the same on every rank. Default: 0.
        drop_last (bool): truncate instead of padding. Default: False.

    Example::

        >>> s = torch.utils.data.DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False)
        >>> list(s)
        [1, 3, 0]
    """,
    "IterableDataset": """The base class of datasets that are iterables of samples (`__iter__`),
    with no indices and no sampler.

    Example::

        >>> class Count(torch.utils.data.IterableDataset):
        ...     def __iter__(self):
        ...         return iter(range(5))
        >>> list(torch.utils.data.DataLoader(Count(), batch_size=2))
        [tensor([0, 1]), tensor([2, 3]), tensor([4])]
    """,
    "RandomSampler": """Yields the indices in a random order (a new permutation per pass), or
    `num_samples` draws with replacement.

    Args:
        data_source (Dataset): the dataset.
        replacement (bool): draw with replacement. Default: False.
        num_samples (int, optional): the number of indices. Default: len(data_source).
        generator (Generator, optional): the source of randomness.

    Example::

        >>> sorted(torch.utils.data.RandomSampler(range(5)))
        [0, 1, 2, 3, 4]
    """,
    "Sampler": """The base class of samplers: iterables of dataset indices (or of lists of indices,
    for batch samplers).

    Args:
        data_source (Dataset, optional): accepted for compatibility; unused.

    Example::

        >>> class Backwards(torch.utils.data.Sampler):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n - 1, -1, -1))
        ...     def __len__(self):
        ...         return self.n
        >>> list(Backwards(3))
        [2, 1, 0]
    """,
    "SequentialSampler": """Yields the indices `0, 1, ..., len(data_source) - 1` in order.

    Args:
        data_source (Dataset): the dataset (only its length is used).

    Example::

        >>> list(torch.utils.data.SequentialSampler(range(4)))
        [0, 1, 2, 3]
    """,
    "StackDataset": """A dataset whose samples are tuples (positional datasets) or dicts (keyword
    datasets) of the i-th samples of datasets of equal length.

    Args:
        *args (Dataset): datasets whose samples form a tuple.
        **kwargs (Dataset): datasets whose samples form a dict.

    Example::

        >>> x = torch.utils.data.TensorDataset(torch.tensor([1., 2.]))
        >>> ds = torch.utils.data.StackDataset(inputs=x, labels=[0, 1])
        >>> ds[1]
        {'inputs': (tensor(2.),), 'labels': 1}
    """,
    "Subset": """The samples of `dataset` at `indices`.

    Args:
        dataset (Dataset): the whole dataset.
        indices (sequence of ints): the indices to keep, in order.

    Example::

        >>> ds = torch.utils.data.TensorDataset(torch.arange(5.))
        >>> sub = torch.utils.data.Subset(ds, [4, 0])
        >>> len(sub), sub[0]
        (2, (tensor(4.),))
    """,
    "SubsetRandomSampler": """Yields the given indices in a random order.

    Args:
        indices (sequence of ints): the indices.
        generator (Generator, optional): the source of randomness.

    Example::

        >>> sorted(torch.utils.data.SubsetRandomSampler([7, 3, 5]))
        [3, 5, 7]
    """,
    "TensorDataset": """A dataset whose i-th sample is the tuple of the i-th rows of the given
    tensors.

    Args:
        *tensors (Tensor): tensors with the same first dimension.

    Example::

        >>> ds = torch.utils.data.TensorDataset(torch.tensor([[1., 2.], [3., 4.]]),
        ...     torch.tensor([0, 1]))
        >>> len(ds)
        2
        >>> ds[1]
        (tensor([3., 4.]), tensor(1))
    """,
    "WeightedRandomSampler": """Yields `num_samples` indices drawn with probabilities proportional
    to `weights`.

    Args:
        weights (sequence of floats): one non-negative weight per index.
        num_samples (int): the number of draws.
        replacement (bool): draw with replacement. Default: True.
        generator (Generator, optional): the source of randomness.

    Example::

        >>> list(torch.utils.data.WeightedRandomSampler([0., 1., 0.], num_samples=3))
        [1, 1, 1]
    """,
    "WorkerInfo": """What `get_worker_info()` returns in a DataLoader worker: `id`, `num_workers`,
    `seed` and `dataset` (the worker's copy).

    Example::

        >>> class Shard(torch.utils.data.IterableDataset):
        ...     def __iter__(self):
        ...         info = torch.utils.data.get_worker_info()
        ...         return iter([info is None])
        >>> list(Shard())
        [True]
    """,
    "default_collate": """Collates a list of samples into a batch: tensors and NumPy arrays are
    stacked along a new first dimension, Python numbers become tensors, and tuples, lists and dicts
    are collated field by field.

    Args:
        batch (list): the samples.

    Example::

        >>> torch.utils.data.default_collate([(torch.tensor([1., 2.]), 0), (torch.tensor([3.,
        ...     4.]), 1)])
        [tensor([[1., 2.],
                [3., 4.]]), tensor([0, 1])]
    """,
    "default_convert": """Converts NumPy arrays in a sample (and inside its containers) to tensors,
    leaving the rest as it is: what a DataLoader with `batch_size=None` yields.

    Args:
        data: a sample.

    Example::

        >>> import numpy as np
        >>> torch.utils.data.default_convert({"x": np.array([1, 2]), "y": "label"})
        {'x': tensor([1, 2]), 'y': 'label'}
    """,
    "get_worker_info": """In a DataLoader worker process, returns its `WorkerInfo` (id, num_workers,
    seed, dataset); in the main process, None.

    Example::

        >>> torch.utils.data.get_worker_info() is None
        True
    """,
    "random_split": """Splits a dataset into non-overlapping random subsets of the given lengths (or
    fractions of its length, summing to 1).

    Args:
        dataset (Dataset): the dataset to split.
        lengths (sequence of ints or floats): the lengths, or fractions, of the splits.
        generator (Generator, optional): the source of randomness.

    Example::

        >>> ds = torch.utils.data.TensorDataset(torch.arange(10.))
        >>> train, val = torch.utils.data.random_split(ds, [0.8, 0.2])
        >>> len(train), len(val)
        (8, 2)
        >>> sorted(train.indices + val.indices) == list(range(10))
        True
    """,
}
