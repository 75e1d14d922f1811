"""DataLoader worker processes: each fetches the batches it is sent and puts them on one
result queue; the loader hands them out in order."""

import queue
import random
import sys
import traceback
from dataclasses import dataclass

from . import _fetch

_INFO = [None]


@dataclass(frozen=True)
class WorkerInfo:
    id: int
    num_workers: int
    seed: int
    dataset: object


def get_worker_info():
    """In a DataLoader worker process: its WorkerInfo (id, num_workers, seed, dataset, the
    worker's own copy); in the main process: None."""
    return _INFO[0]


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its traceback."""

    def __init__(self, where):
        exc_type, exc, _ = sys.exc_info()
        self.exc_type = exc_type
        self.msg = f"Caught {exc_type.__name__} {where}.\nOriginal {traceback.format_exc()}"

    def reraise(self):
        try:
            err = self.exc_type(self.msg)
        except Exception:  # an exception type whose constructor takes other arguments
            raise RuntimeError(self.msg) from None
        raise err


class Stop:
    """A worker's iterable dataset is exhausted (for this epoch)."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


def loop(dataset, iterable, index_q, result_q, collate_fn, batch_size, drop_last, seed,
         init_fn, wid, num_workers):  # fmt: skip
    """A worker's main loop. Messages in: (epoch, idx, indices), ("resume", epoch) for a
    new epoch of persistent workers, None to exit. Out: (epoch, idx, batch | Stop |
    ExceptionWrapper)."""
    random.seed(seed)
    try:
        import nbgrad

        nbgrad.manual_seed(seed)
    except ImportError:
        pass
    _INFO[0] = WorkerInfo(wid, num_workers, seed, dataset)
    init_error = None
    if init_fn is not None:
        try:
            init_fn(wid)
        except Exception:
            init_error = ExceptionWrapper(f"in DataLoader worker process {wid}")
    arrays = None if iterable else _fetch.gather_arrays(dataset, collate_fn)
    fetcher = None
    while True:
        try:
            msg = index_q.get(timeout=5.0)
        except queue.Empty:
            continue
        if msg is None:
            break
        if msg[0] == "resume":
            fetcher = None
            continue
        epoch, idx, indices = msg
        if init_error is not None:
            result_q.put((epoch, idx, init_error))
            continue
        try:
            if iterable:
                if fetcher is None:
                    fetcher = _fetch.IterableFetcher(dataset, batch_size, drop_last, collate_fn)
                try:
                    data = fetcher.next()
                except StopIteration:
                    data = Stop(wid)
            else:
                data = _fetch.fetch(dataset, indices, collate_fn, arrays)
        except Exception:
            data = ExceptionWrapper(f"in DataLoader worker process {wid}")
        result_q.put((epoch, idx, data))
    result_q.cancel_join_thread()
