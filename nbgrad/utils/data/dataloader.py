"""DataLoader: PyTorch's batching, shuffling and worker processes over a dataset.

Batches of a TensorDataset under the default collation are gathered with one indexing
per tensor rather than fetched and stacked sample by sample (the same batches, faster)."""

from __future__ import annotations

import multiprocessing
import queue
from collections.abc import Callable
from typing import Any

from . import _fetch, _worker
from ._collate import default_collate, default_convert
from .sampler import BatchSampler, RandomSampler, SequentialSampler

_POLL = 5.0  # seconds between checks that the workers are alive while waiting on them


class DataLoader:
    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        batch_sampler: Any = None,
        num_workers: int = 0,
        collate_fn: Callable[[list], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context=None,
        generator: Any = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device="",
        in_order=True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let "
                "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory  # accepted: a CPU tensor is used as is
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self._iterable = _fetch.is_iterable(dataset)
        if self._iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler),
                                ("batch_sampler", batch_sampler)):  # fmt: skip
                if value not in (None, False):
                    raise ValueError(
                        "DataLoader with IterableDataset: expected unspecified "
                        f"{name} option, but got {name}={value}"
                    )
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        if sampler is None and not self._iterable:
            if shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self._workers = None  # persistent workers, kept between epochs

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self.batch_sampler if self._auto_collation else self.sampler)

    def __iter__(self):
        if self.num_workers == 0:
            return _Iter(self, self._single())
        if self.persistent_workers:
            if self._workers is None:
                self._workers = _Workers(self)
            else:
                self._workers.new_epoch()
            return _Iter(self, self._workers.batches())
        w = _Workers(self)
        return _Iter(self, w.batches(shutdown=True), w)

    def _tasks(self):
        """What each batch is made from: index lists (or arrays) of the batch sampler, or
        single indices without auto-batching."""
        if self._auto_collation:
            return _fetch.index_batches(self.batch_sampler)
        return iter(self.sampler)

    def _single(self):
        ds, collate = self.dataset, self.collate_fn
        if self._iterable:
            f = _fetch.IterableFetcher(ds, self.batch_size, self.drop_last, collate)
            while True:
                try:
                    b = f.next()
                except StopIteration:
                    return
                yield b
        if not self._auto_collation:
            for i in self.sampler:
                yield collate(ds[i])
            return
        arrays = _fetch.gather_arrays(ds, collate)
        for indices in self._tasks():
            yield _fetch.fetch(ds, indices, collate, arrays)

    def _base_seed(self):
        from .sampler import _generator

        return int(_generator(self.generator).integers(0, 2**63 - 1))


class _Iter:
    """The iterator over one epoch; `len()` is the loader's."""

    def __init__(self, loader, gen, owner=None) -> None:
        self._loader, self._gen, self._owner = loader, gen, owner

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._gen)

    def __len__(self):
        return len(self._loader)

    def __del__(self):
        if self._owner is not None:
            self._owner.shutdown()


class _Workers:
    """`num_workers` processes fed batches of indices round-robin, at most
    `prefetch_factor` batches ahead per worker; results come back in order (or as they
    arrive when `in_order=False`)."""

    def __init__(self, loader) -> None:
        self.loader = loader
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = multiprocessing.get_context()
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        n = loader.num_workers
        seed = loader._base_seed()
        self.result_q = ctx.Queue()
        self.index_qs = [ctx.Queue() for _ in range(n)]
        self.procs = []
        for wid in range(n):
            p = ctx.Process(
                target=_worker.loop,
                args=(
                    loader.dataset,
                    loader._iterable,
                    self.index_qs[wid],
                    self.result_q,
                    loader.collate_fn,
                    loader.batch_size,
                    loader.drop_last,
                    seed + wid,
                    loader.worker_init_fn,
                    wid,
                    n,
                ),  # fmt: skip
                daemon=True,
            )
            p.start()
            self.procs.append(p)
        self.epoch = 0
        self.closed = False

    def new_epoch(self):
        self.epoch += 1
        for q in self.index_qs:
            q.put(("resume", self.epoch))

    def _get(self):
        """The next result of this epoch (results of an abandoned earlier epoch dropped)."""
        timeout = self.loader.timeout
        while True:
            try:
                epoch, idx, data = self.result_q.get(timeout=timeout or _POLL)
            except queue.Empty:
                if timeout:
                    raise RuntimeError(f"DataLoader timed out after {timeout} seconds") from None
                dead = [p.pid for p in self.procs if not p.is_alive()]
                if dead:
                    self.shutdown()
                    pids = ", ".join(str(d) for d in dead)
                    raise RuntimeError(
                        f"DataLoader worker (pid(s) {pids}) exited unexpectedly"
                    ) from None
                continue
            if epoch == self.epoch:
                return idx, data

    def batches(self, shutdown=False):
        loader = self.loader
        tasks = None if loader._iterable else loader._tasks()
        n = loader.num_workers
        active = list(range(n))
        outstanding = {}  # idx -> worker
        done = {}
        sent = want = 0
        turn = 0
        try:
            while True:
                # keep prefetch_factor batches per active worker in flight
                while active and len(outstanding) < loader.prefetch_factor * len(active):
                    if tasks is not None:
                        indices = next(tasks, None)
                        if indices is None:
                            tasks = None
                            active = []
                            break
                    else:
                        indices = None
                    w = active[turn % len(active)]
                    turn += 1
                    self.index_qs[w].put((self.epoch, sent, indices))
                    outstanding[sent] = w
                    sent += 1
                if not outstanding and not done:
                    return
                if loader.in_order:
                    while want not in done:
                        idx, data = self._get()
                        done[idx] = data
                    data = done.pop(want)
                    want += 1
                else:
                    idx, data = self._get()
                w = outstanding.pop(idx if not loader.in_order else want - 1)
                if isinstance(data, _worker.Stop):
                    if w in active:
                        active.remove(w)
                    continue
                if isinstance(data, _worker.ExceptionWrapper):
                    data.reraise()
                yield data
        finally:
            if shutdown:
                self.shutdown()

    def shutdown(self):
        if self.closed:
            return
        self.closed = True
        for q in self.index_qs:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
        for q in (*self.index_qs, self.result_q):
            q.cancel_join_thread()
            q.close()

    def __del__(self):
        self.shutdown()
