"""nbgrad.utils.data against torch.utils.data: same batches, lengths, collation and errors."""

import collections
import math

import numpy as np
import pytest

import nbgrad
from nbgrad.utils import data as nd

torch = pytest.importorskip("torch")
td = torch.utils.data


def _np(x):
    if isinstance(x, (list, tuple)):
        return [_np(v) for v in x]
    if isinstance(x, dict):
        return {k: _np(v) for k, v in x.items()}
    return x.numpy() if hasattr(x, "numpy") else x


def _same(a, b):
    """A batch from nbgrad equals torch's: container types, dtypes, values."""
    if isinstance(b, torch.Tensor):
        assert isinstance(a, nbgrad.Tensor)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    elif isinstance(b, dict):
        assert type(a) is type(b) and a.keys() == b.keys()
        for k in b:
            _same(a[k], b[k])
    elif isinstance(b, (list, tuple)):
        assert type(a).__name__ == type(b).__name__ and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert a == b


Point = collections.namedtuple("Point", "x y")


class Samples:
    """A map-style dataset of mixed samples, defined alike for both libraries."""

    def __init__(self, lib, kind, n=7):
        self.lib, self.kind, self.n = lib, kind, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        lib = self.lib
        if self.kind == "dict":
            return {"a": lib.full((2,), float(i)), "label": i, "w": 0.5 * i, "name": f"s{i}"}
        if self.kind == "tuple":
            return (np.arange(3, dtype=np.float32) + i, np.int64(i), [i, float(i)])
        if self.kind == "namedtuple":
            return Point(lib.tensor([i, i + 1]), np.float64(i))
        return lib.arange(3) * i


@pytest.mark.parametrize("kind", ["dict", "tuple", "namedtuple", "tensor"])
@pytest.mark.parametrize("batch_size,drop_last", [(3, False), (3, True), (1, False), (7, False)])
def test_batches_match_torch(kind, batch_size, drop_last):
    a = list(nd.DataLoader(Samples(nbgrad, kind), batch_size=batch_size, drop_last=drop_last))
    b = list(td.DataLoader(Samples(torch, kind), batch_size=batch_size, drop_last=drop_last))
    assert len(a) == len(b)
    for x, y in zip(a, b):
        _same(x, y)


def test_default_collate_values_and_errors():
    _same(nd.default_collate([True, False]), td.default_collate([True, False]))
    _same(nd.default_collate([1.5, 2.0]), td.default_collate([1.5, 2.0]))
    _same(nd.default_collate([b"a", b"b"]), td.default_collate([b"a", b"b"]))
    arr = [np.ones((2, 2), np.float64), np.zeros((2, 2), np.float64)]
    _same(nd.default_collate(arr), td.default_collate(arr))
    for bad in ([object(), object()], [np.array(["a"]), np.array(["b"])]):
        with pytest.raises(TypeError) as te:
            td.default_collate(bad)
        with pytest.raises(TypeError) as ne:
            nd.default_collate(bad)
        assert str(ne.value).split(";")[0] == str(te.value).split(";")[0]
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal"):
        nd.default_collate([[1, 2], [1]])
    # batch_size=None: samples as they are, NumPy arrays made tensors
    x = list(nd.DataLoader(Samples(nbgrad, "tuple", 2), batch_size=None))
    y = list(td.DataLoader(Samples(torch, "tuple", 2), batch_size=None))
    for p, q in zip(x, y):
        assert isinstance(p[0], nbgrad.Tensor) and isinstance(q[0], torch.Tensor)
        _same(p[:2], q[:2])  # a NumPy scalar becomes a 0-d tensor
        assert p[2] == q[2]


def test_tensor_dataset_fast_path_and_shuffle():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((103, 5)).astype(np.float32)
    y = rng.integers(0, 4, 103)
    ds = nd.TensorDataset(nbgrad.from_numpy(X), nbgrad.from_numpy(y))
    tds = td.TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
    for kw in ({"batch_size": 10}, {"batch_size": 10, "drop_last": True}, {"batch_size": 200}):
        a, b = list(nd.DataLoader(ds, **kw)), list(td.DataLoader(tds, **kw))
        assert len(a) == len(b) == len(nd.DataLoader(ds, **kw))
        for x, t in zip(a, b):
            _same(x, t)
    # shuffle: one permutation per epoch, reproducible from nbgrad.manual_seed and a generator
    dl = nd.DataLoader(ds, batch_size=16, shuffle=True)
    nbgrad.manual_seed(3)
    e1 = np.concatenate([b[1].numpy() for b in dl])
    xs = np.concatenate([b[0].numpy() for b in dl])
    rows = {r.tobytes() for r in xs}
    assert len(rows) == 103 and rows == {r.tobytes() for r in X}
    nbgrad.manual_seed(3)
    np.testing.assert_array_equal(np.concatenate([b[1].numpy() for b in dl]), e1)
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    o1 = [b[0].numpy() for b in nd.DataLoader(ds, batch_size=16, shuffle=True, generator=g1)]
    o2 = [b[0].numpy() for b in nd.DataLoader(ds, batch_size=16, shuffle=True, generator=g2)]
    np.testing.assert_array_equal(np.concatenate(o1), np.concatenate(o2))
    # a tensor that requires grad: batches are recorded gathers (gradients flow back)
    w = nbgrad.from_numpy(X.astype(np.float64)).requires_grad_()
    (xb,) = next(iter(nd.DataLoader(nd.TensorDataset(w), batch_size=4)))
    xb.sum().backward()
    expect = np.zeros_like(X, dtype=np.float64)
    expect[:4] = 1
    np.testing.assert_array_equal(w.grad.numpy(), expect)
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        nd.TensorDataset(nbgrad.zeros(3), nbgrad.zeros(4))


def test_samplers_match_torch():
    data = list(range(10))
    assert list(nd.SequentialSampler(data)) == list(td.SequentialSampler(data))
    for bs, dl in ((3, False), (3, True), (5, True), (11, False)):
        a = nd.BatchSampler(nd.SequentialSampler(data), bs, dl)
        b = td.BatchSampler(td.SequentialSampler(data), bs, dl)
        assert list(a) == list(b) and len(a) == len(b)
        a = nd.BatchSampler(list(range(10)), bs, dl)
        b = td.BatchSampler(list(range(10)), bs, dl)  # any iterable of indices
        assert list(a) == list(b)
    r = list(nd.RandomSampler(data))
    assert sorted(r) == data
    for m in (4, 10, 23):
        s = nd.RandomSampler(data, num_samples=m)
        out = list(s)
        assert len(out) == len(s) == m
        # without replacement: whole permutations, then part of one
        for k in range(0, m - m % 10, 10):
            assert sorted(out[k : k + 10]) == data
        assert len(set(out[m - m % 10 :])) == m % 10
    rep = list(nd.RandomSampler(data, replacement=True, num_samples=50))
    assert len(rep) == 50 and set(rep) <= set(data)
    sub = list(nd.SubsetRandomSampler([2, 4, 6]))
    assert sorted(sub) == [2, 4, 6]
    for bad, err in (
        (lambda m: m.RandomSampler(data, num_samples=0), ValueError),
        (lambda m: m.RandomSampler(data, replacement=1), TypeError),
        (lambda m: m.BatchSampler(data, 0, False), ValueError),
        (lambda m: m.BatchSampler(data, 2, 1), ValueError),
        (lambda m: m.WeightedRandomSampler([1.0], -1), ValueError),
        (lambda m: m.WeightedRandomSampler([[1.0]], 1), ValueError),
    ):
        with pytest.raises(err) as te:
            bad(td)
        with pytest.raises(err) as ne:
            bad(nd)
        assert str(ne.value) == str(te.value)


def test_weighted_random_sampler():
    w = [0.0, 1.0, 3.0]
    nbgrad.manual_seed(0)
    out = np.array(list(nd.WeightedRandomSampler(w, 4000)))
    assert len(out) == 4000 and (out != 0).all()
    assert abs((out == 2).mean() - 0.75) < 0.03  # binomial sd ~0.007
    nr = list(nd.WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False))
    assert sorted(nr) == [0, 1, 2]
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist"):
        list(nd.WeightedRandomSampler([1.0, 0.0], 2, replacement=False))


def test_random_split_subset_concat():
    ds = list(range(10))
    parts = nd.random_split(ds, [3, 7], generator=np.random.default_rng(0))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted([*(parts[0][i] for i in range(3)), *(parts[1][i] for i in range(7))]) == ds
    for fr in ([0.3, 0.3, 0.4], [0.5, 0.5], [0.33, 0.33, 0.34]):
        a = [len(p) for p in nd.random_split(ds, fr)]
        b = [len(p) for p in td.random_split(ds, fr)]
        assert a == b
    for lens in ([3, 3], [0.5, 0.6]):
        with pytest.raises(ValueError) as te:
            td.random_split(ds, lens)
        with pytest.raises(ValueError) as ne:
            nd.random_split(ds, lens)
        assert str(ne.value) == str(te.value)
    sub = nd.Subset(ds, [5, 1])
    assert len(sub) == 2 and [sub[0], sub[1]] == [5, 1]
    cat = nd.ConcatDataset([list(range(3)), list(range(10, 14))])
    tcat = td.ConcatDataset([list(range(3)), list(range(10, 14))])
    assert len(cat) == len(tcat) == 7
    assert [cat[i] for i in range(-7, 7)] == [tcat[i] for i in range(-7, 7)]
    assert cat.cumulative_sizes == tcat.cumulative_sizes
    both = list(nd.DataLoader(nd.TensorDataset(nbgrad.arange(4)) + nd.TensorDataset(
        nbgrad.arange(2)), batch_size=3))  # fmt: skip
    assert [b[0].tolist() for b in both] == [[0, 1, 2], [3, 0, 1]]


class Stream:
    """An iterable dataset; in workers each takes every num_workers-th item."""

    def __init__(self, lib, n):
        self.lib, self.n = lib, n

    def __iter__(self):
        info = nd.get_worker_info() if self.lib is nbgrad else td.get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))

    def __len__(self):
        return self.n


def _stream(lib, n):
    base = nd.IterableDataset if lib is nbgrad else td.IterableDataset
    return type("S", (Stream, base), {})(lib, n)


def test_iterable_dataset():
    for kw in ({"batch_size": 4}, {"batch_size": 4, "drop_last": True}, {"batch_size": None}):
        a = list(nd.DataLoader(_stream(nbgrad, 10), **kw))
        b = list(td.DataLoader(_stream(torch, 10), **kw))
        assert len(a) == len(b) == len(nd.DataLoader(_stream(nbgrad, 10), **kw))
        for x, y in zip(a, b):
            if isinstance(y, torch.Tensor):
                _same(x, y)
            else:
                assert x == y
    for kw in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):
        with pytest.raises(ValueError) as te:
            td.DataLoader(_stream(torch, 3), **kw)
        with pytest.raises(ValueError) as ne:
            nd.DataLoader(_stream(nbgrad, 3), **kw)
        assert str(ne.value).split(", but got")[0] == str(te.value).split(", but got")[0]


def test_loader_argument_errors():
    ds = list(range(5))
    for kw in (
        {"num_workers": -1},
        {"timeout": -1},
        {"prefetch_factor": 2},
        {"persistent_workers": True},
        {"sampler": [0], "shuffle": True},
        {"batch_sampler": [[0]], "batch_size": 2},
        {"batch_sampler": [[0]], "drop_last": True},
        {"batch_size": None, "drop_last": True},
    ):
        with pytest.raises(ValueError) as te:
            td.DataLoader(ds, **kw)
        with pytest.raises(ValueError) as ne:
            nd.DataLoader(ds, **kw)
        assert str(ne.value) == str(te.value), kw
    # custom samplers and batch samplers, and the lengths torch gives
    for kw in ({"sampler": [4, 0, 2], "batch_size": 2}, {"batch_sampler": [[1, 2], [0]]}):
        a, b = nd.DataLoader(ds, **kw), td.DataLoader(ds, **kw)
        assert len(a) == len(b)
        assert [x.tolist() for x in a] == [x.tolist() for x in b]
    dl = nd.DataLoader(ds, batch_size=2, pin_memory=True)
    assert len(iter(dl)) == 3 and [x.tolist() for x in dl] == [[0, 1], [2, 3], [4]]


def _init_fn(wid):
    info = nd.get_worker_info()
    assert info.id == wid and info.num_workers == 2
    info.dataset.tag = f"w{wid}"


class Tagged(nd.Dataset):
    tag = "main"

    def __len__(self):
        return 9

    def __getitem__(self, i):
        if i == 99:
            raise KeyError("no sample 99")
        info = nd.get_worker_info()
        return {"i": i, "tag": self.tag, "worker": -1 if info is None else info.id}


def test_workers():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 3)).astype(np.float32)
    ds = nd.TensorDataset(nbgrad.from_numpy(X), nbgrad.arange(50))
    a = [[t.numpy() for t in b] for b in nd.DataLoader(ds, batch_size=8)]
    for kw in ({}, {"persistent_workers": True}):
        dl = nd.DataLoader(ds, batch_size=8, num_workers=2, **kw)
        for _ in range(2):  # two epochs (persistent workers kept between them)
            b = [[t.numpy() for t in bt] for bt in dl]
            assert len(b) == len(a)
            for x, y in zip(a, b):
                np.testing.assert_array_equal(x[0], y[0])
                np.testing.assert_array_equal(x[1], y[1])
    out = list(nd.DataLoader(Tagged(), batch_size=2, num_workers=2, worker_init_fn=_init_fn))
    assert [i for b in out for i in b["i"].tolist()] == list(range(9))
    assert {t for b in out for t in b["tag"]} == {"w0", "w1"}
    assert {w for b in out for w in b["worker"].tolist()} == {0, 1}
    assert Tagged.tag == "main" and nd.get_worker_info() is None
    with pytest.raises(KeyError, match="in DataLoader worker process"):
        list(nd.DataLoader(Tagged(), sampler=[0, 99], num_workers=2))
    # an iterable dataset split across workers by get_worker_info, as in PyTorch
    a = sorted(int(v) for b in nd.DataLoader(_stream(nbgrad, 11), batch_size=3, num_workers=2)
               for v in b.tolist())  # fmt: skip
    assert a == list(range(11))
    unordered = nd.DataLoader(Tagged(), batch_size=3, num_workers=2, in_order=False)
    assert sorted(i for b in unordered for i in b["i"].tolist()) == list(range(9))


def _shares(m, n, reps, drop_last):
    return [
        list(m.DistributedSampler(range(n), reps, r, shuffle=False, drop_last=drop_last))
        for r in range(reps)
    ]


def test_distributed_sampler_matches_torch():
    for n in (10, 11, 3, 1):
        for reps in (1, 2, 3, 4):
            for drop_last in (False, True):
                if drop_last and n < reps:
                    continue
                ours, theirs = (_shares(m, n, reps, drop_last) for m in (nd, td))
                assert ours == theirs, (n, reps, drop_last)
                s = nd.DistributedSampler(range(n), reps, 0, drop_last=drop_last)
                assert len(s) == len(theirs[0])
    # shuffled: per epoch the same on every rank, disjoint shares covering the data
    for drop_last in (False, True):

        def shares(epoch, drop_last=drop_last):
            out = []
            for r in range(3):
                s = nd.DistributedSampler(range(10), 3, r, seed=7, drop_last=drop_last)
                s.set_epoch(epoch)
                out.append(list(s))
            return out

        e0, e1 = shares(0), shares(1)
        assert e0 == shares(0) and e0 != e1
        flat = [i for sh in e0 for i in sh]
        if drop_last:
            assert len(flat) == 9 and len(set(flat)) == 9
        else:
            assert len(flat) == 12 and set(flat) == set(range(10))
            # padding repeats the start of the shuffled list: rank order interleaves it
            order = [e0[k % 3][k // 3] for k in range(12)]
            assert order[10:] == order[:2]
    with pytest.raises(
        ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"
    ):
        nd.DistributedSampler(range(4), 3, 3)
    assert math.ceil(10 / 4) == len(nd.DistributedSampler(range(10), 4, 0))
