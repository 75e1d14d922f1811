"""Embedding extras: max_norm renormalization and embedding bags (sum, mean, max), from
the embedding gather and index_add."""

from __future__ import annotations

import numpy as np

from .._array import contig
from ..autograd import no_grad
from ..autograd.function import Function
from ..creation import ones, zeros
from ..tensor import Tensor
from ._fn_norm import _const, _pnorm


def _host_const(arr):
    return Tensor._make(contig(arr), -1, False)


class _EmbeddingFn(Function):
    @staticmethod
    def forward(ctx, weight, idx, padding_idx):
        ctx.idx = idx
        ctx.padding_idx = padding_idx
        ctx.shape = weight._data.shape
        return _host_const(weight._data[idx])

    @staticmethod
    def backward(ctx, g):
        gw = np.zeros(ctx.shape, g._data.dtype)
        np.add.at(gw, ctx.idx.reshape(-1), g._data.reshape(-1, ctx.shape[1]))
        if ctx.padding_idx is not None:
            gw[ctx.padding_idx] = 0
        return _host_const(gw), None, None


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type=2.0,
    scale_grad_by_freq=False,
    sparse=False,
):  # noqa: A002
    """The rows of `weight` that `input` selects (indices checked on the host first)."""
    if input.is_cuda != weight.is_cuda:
        from ..ops.cuda.forwards import device_error

        raise device_error(weight.device, input.device)
    idx = input._data.host() if input.is_cuda else input._data  # checked on the host
    if idx.dtype.kind not in "iu":
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.dtype} instead"
        )
    n = weight._data.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):  # negative ones too, as PyTorch
        raise IndexError("index out of range in self")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += n
    select = getattr(weight, "index_select", None)
    if padding_idx is None and select is not None:
        # a recorded gather: the VJP (a scatter-add) runs inside the compiled sweep
        flat = Tensor._make(np.ascontiguousarray(idx.reshape(-1), np.int64), -1, False)
        return select(0, flat).reshape(*idx.shape, weight._data.shape[1])
    if weight.is_cuda:  # the padding row's value without its gradient (a recorded where)
        from ..creation import arange

        pad = (arange(n, device="cuda") == padding_idx).reshape(n, 1)
        w = weight.detach().where(pad, weight)
        flat = Tensor._make(np.ascontiguousarray(idx.reshape(-1), np.int64), -1, False)
        return w.index_select(0, flat).reshape(*idx.shape, weight._data.shape[1])
    return _EmbeddingFn.apply(weight, idx, padding_idx)


def embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> Tensor:  # noqa: A002
    """Rescale, in place, the rows of `weight` that `input` selects whose norm exceeds
    max_norm to norm max_norm (PyTorch's scale: max_norm / (norm + 1e-7))."""
    idx = input._data.host() if input.is_cuda else input._data
    rows = np.unique(np.asarray(idx, np.int64).reshape(-1))
    if not rows.size:
        return weight
    with no_grad():
        sel = _const(rows, weight)
        w = weight.index_select(0, sel)
        norm = _pnorm(w, norm_type, 1, True)
        big = norm > max_norm
        scale = (max_norm / (norm + 1e-7)).where(big, ones((), dtype=w.dtype, device=w.device))
        weight[sel] = w * scale
    return weight


def check_indices(input, fn):  # noqa: A002
    """PyTorch's error for indices that are not integers (embedding, embedding_bag)."""
    from .. import _dtype

    if input.dtype in (_dtype.int64, _dtype.int32):
        return
    dev = "CUDA" if input.is_cuda else "CPU"
    if input.dtype == _dtype.bool_:
        name = f"{dev}BoolType"
    else:
        name = f"nbgrad.{'cuda.' if input.is_cuda else ''}{_dtype.scalar_name(input.dtype)}Tensor"
    raise RuntimeError(
        "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
        f"Long, Int; but got {name} instead (while checking arguments for {fn})"
    )


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    from ..creation import full
    from ..ops.joins import cat
    from .functional import embedding

    check_indices(input, "embedding_bag")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{type(offsets)}"
            )
        b, n = input.shape
        starts = np.arange(b, dtype=np.int64) * n
        idx_t = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None or offsets.dim() != 1:
            raise ValueError(f"offsets has to be a 1D Tensor but got {offsets}")
        o = offsets._data.host() if offsets.is_cuda else offsets._data
        starts = np.asarray(o, np.int64)
        if include_last_offset:
            starts = starts[:-1]
        idx_t = input
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
        )
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub."
        )
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding_bag: scale_grad_by_freq and sparse are not supported")
    raw = idx_t._data.host() if idx_t.is_cuda else idx_t._data
    idx = np.asarray(raw, np.int64).reshape(-1)
    nbags, d = starts.size, weight.shape[1]
    bag = np.searchsorted(starts, np.arange(idx.size), side="right") - 1
    keep = bag >= 0
    if padding_idx is not None:
        keep &= idx != (padding_idx % weight.shape[0])
    kept = np.nonzero(keep)[0]
    sel = _const(idx[kept], weight)
    if max_norm is not None:
        embedding_renorm_(weight, sel, max_norm, norm_type)
    counts = np.bincount(bag[kept], minlength=nbags)[:nbags]
    if mode == "max":
        # a (bags, longest bag) table of rows; the slots past a bag's end read a -inf row
        width = max(int(counts.max()) if counts.size else 0, 1)
        table = np.full((nbags, width), weight.shape[0], np.int64)
        pos = np.arange(kept.size) - np.repeat(np.cumsum(counts) - counts, counts)
        table[bag[kept], pos] = idx[kept]
        ninf = full((1, d), -np.inf, dtype=weight.dtype, device=weight.device)
        rows = embedding(_const(table, weight), cat([weight, ninf], 0))
        out = rows.max(1)[0]
        empty = _const((counts == 0)[:, None], weight)
        return out.masked_fill(empty, 0.0)
    rows = embedding(sel, weight)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[_const(kept, weight)].unsqueeze(1)
    out = zeros(nbags, d, dtype=weight.dtype, device=weight.device)
    out = out.index_add(0, _const(bag[kept], weight), rows)
    if mode == "mean":
        div = np.maximum(counts, 1).astype(weight._data.dtype)[:, None]
        out = out / _const(div, weight)
    return out
