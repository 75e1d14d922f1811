"""One recorded gather for the layers that read windows or remapped positions of their input.

Padding, im2col (unfold, convolution, pooling) and nearest resampling all read
`x.flat[pos]` for positions that depend only on shapes and layer settings. Each is one
`take` row (its VJP a scatter-add), so it runs on CPU and CUDA, under create_graph, and is
replayed by nbgrad.compile (positions are remade from the plan, a hashable tuple).

A plan maps the trailing dims of the input (the "tail"), one int map per tail dim, and
combines the maps as an outer product; an entry of -1 reads the fill column that
`gather_tail` appends (the pad value), so padding costs no extra op beyond that column.
"""

import threading
from collections import OrderedDict

import numpy as np

from ..creation import full
from . import indexing
from .joins import cat

_KEPT = OrderedDict()  # recent position arrays, each at most _KEEP_MAX entries
_KEEP_MAX = 1 << 20
_KEEP_N = 32


_LOCK = threading.Lock()


def _kept(key, make):
    """make() once per key while the result is small (a few recent ones are kept)."""
    with _LOCK:
        hit = _KEPT.get(key)
        if hit is not None:
            _KEPT.move_to_end(key)
            return hit
    val = make()
    if val[0].size <= _KEEP_MAX:
        with _LOCK:
            _KEPT[key] = val
            if len(_KEPT) > _KEEP_N:
                _KEPT.popitem(last=False)
    return val


def _tail_positions(plan):
    """(positions over the tail, -1 where the fill column is read; the output tail shape;
    whether any position reads the fill column)."""
    return _kept(("tail", plan), lambda: _make_tail(plan))


def _make_tail(plan):
    tail, maps, perm = plan[0], _build_maps(plan), plan[-1]
    strides = np.ones(len(tail), np.int64)
    for d in range(len(tail) - 2, -1, -1):
        strides[d] = strides[d + 1] * tail[d + 1]
    pos = np.zeros((), np.int64)
    bad = np.zeros((), bool)
    for m, st in zip(maps, strides):
        m = np.asarray(m, np.int64)
        pos = np.add.outer(pos, m * st)
        bad = np.logical_or.outer(bad, m < 0)
    pos[bad] = -1
    if perm is not None:
        pos = pos.transpose(perm)
    return np.ascontiguousarray(pos), pos.shape, bool(bad.any())


def _full_positions(nlead, plan, width, pos):
    """Flat positions over (nlead, width) rows: the tail positions `pos` repeated per lead
    row (-1 reads the last column)."""

    def make():
        p = np.where(pos < 0, width - 1, pos).reshape(-1)
        return ((np.arange(nlead, dtype=np.int64)[:, None] * width + p[None, :]).reshape(-1),)

    return _kept(("full", nlead, plan, width), make)[0]


def _build_maps(plan):
    kind = plan[1]
    return _BUILDERS[kind](*plan[2:-1])


def _pad_maps(tail, pads, mode):
    maps = []
    for n, (lo, hi) in zip(tail, pads):
        i = np.arange(-lo, n + hi, dtype=np.int64)
        if mode == "constant":
            i = np.where((i >= 0) & (i < n), i, -1)
        elif mode == "reflect":
            i = np.abs(i)
            i = np.where(i >= n, 2 * (n - 1) - i, i)
        elif mode == "replicate":
            i = np.clip(i, 0, n - 1)
        else:  # circular
            i = i % n
        maps.append(i)
    return maps


def _window_maps(tail, kernel, stride, pads, dilation, out):
    """im2col maps: channels, then per spatial dim a (kernel, out) map of input rows."""
    maps = [np.arange(tail[0], dtype=np.int64)]
    for n, k, s, p, d, o in zip(tail[1:], kernel, stride, pads, dilation, out):
        i = np.arange(k)[:, None] * d + np.arange(o)[None, :] * s - p
        maps.append(np.where((i >= 0) & (i < n), i, -1))
    return maps


def _index_maps(tail, maps):
    return [np.asarray(m, np.int64) for m in maps]


def _adaptive_maps(tail, out):
    """Adaptive pooling maps: channels, then per spatial dim an (out, longest window) map of
    input rows [floor(i n / o), ceil((i + 1) n / o)), -1 past a window's end."""
    maps = [np.arange(tail[0], dtype=np.int64)]
    for n, o in zip(tail[1:], out):
        i = np.arange(o)
        lo, hi = (i * n) // o, -((-(i + 1) * n) // o)
        j = lo[:, None] + np.arange(int((hi - lo).max()))[None, :]
        maps.append(np.where(j < hi[:, None], j, -1))
    return maps


_BUILDERS = {"pad": _pad_maps, "win": _window_maps, "idx": _index_maps, "adapt": _adaptive_maps}


@indexing._by_index
def gather_tail(x, plan, fill=0.0):
    """x (lead..., *plan tail) -> (lead..., *output tail): one recorded gather."""
    tail = plan[0]
    k = len(tail)
    lead = tuple(x.shape[: x.dim() - k])
    nlead = int(np.prod(lead, dtype=np.int64))
    m = int(np.prod(tail, dtype=np.int64))
    src = x.reshape(nlead, m)
    pos, out_tail, fills = _tail_positions(plan)
    if fills:
        if indexing.TRACE is None:
            col = full((nlead, 1), fill, dtype=x.dtype, device=x.device)
        else:  # nbgrad.compile replays only recorded ops: the column is derived from x
            col = src[:, :1] * 0.0 + fill  # (exact for finite x; NaN next to inf / NaN)
        src = cat([src, col], 1)
        m += 1
    full_pos = _full_positions(nlead, plan, m, pos)
    return indexing.take(src, full_pos, lead + tuple(out_tail), "IndexSelectBackward0")
