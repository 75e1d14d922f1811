"""`nn.utils.rnn`: padding and packing variable-length sequences, composed from indexing,
`cat` and `stack` (so gradients flow through every step)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ... import creation
from ...ops.joins import cat, stack
from ...tensor import Tensor

__all__ = [
    "PackedSequence",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
]


class PackedSequence(NamedTuple):
    """A batch of variable-length sequences packed time step by time step: `data` holds the
    steps of all sequences still running at step 0, then at step 1, ..., longest first;
    `batch_sizes[t]` is how many run at step t. `sorted_indices` is the batch order by
    decreasing length (None when the input was sorted) and `unsorted_indices` its inverse.
    Made by `pack_padded_sequence` or `pack_sequence`; `nn.RNN`, `nn.LSTM` and `nn.GRU`
    take it as input and return their output packed the same way.

    Example::

        >>> p = nn.utils.rnn.pack_sequence([torch.tensor([1., 2.]), torch.tensor([3.])])
        >>> p.data, p.batch_sizes
        (tensor([1., 3., 2.]), tensor([2, 1]))
    """

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None


def _lengths(lengths):
    if isinstance(lengths, Tensor):
        return [int(v) for v in lengths._data.reshape(-1)]
    return [int(v) for v in lengths]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks tensors of shape (L_i, *) into one (L, B, *) tensor (or (B, L, *) with
    `batch_first`), L the longest length, shorter ones padded with `padding_value`.

    Args:
        sequences (list of Tensor): the sequences, of one dtype.
        batch_first (bool): put the batch dimension first. Default: False.
        padding_value (float): the value of the padding. Default: 0.
        padding_side (str): pad on the `"right"` or the `"left"`. Default: `"right"`.

    Example::

        >>> seqs = [torch.tensor([1., 2., 3.]), torch.tensor([4.])]
        >>> nn.utils.rnn.pad_sequence(seqs, batch_first=True)
        tensor([[1., 2., 3.],
                [4., 0., 0.]])
    """
    if padding_side not in ("left", "right"):
        raise ValueError(f"padding_side must be 'left' or 'right', but got {padding_side}")
    seqs = list(sequences)
    n = max(s.shape[0] for s in seqs)
    padded = []
    for s in seqs:
        k = n - s.shape[0]
        if k:
            pad = creation.full((k, *s.shape[1:]), padding_value, dtype=s.dtype)
            s = cat([s, pad] if padding_side == "right" else [pad, s], 0)
        padded.append(s)
    return stack(padded, 0 if batch_first else 1)


def _batch_sizes(lengths):
    """Sequences still running at each step, for lengths sorted in decreasing order."""
    ls = np.asarray(lengths)
    return [int((ls > t).sum()) for t in range(int(ls[0]))]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):  # noqa: A002
    """Packs a padded batch (L, B, *) (or (B, L, *) with `batch_first`) of sequences of the
    given lengths into a `PackedSequence`.

    Args:
        input (Tensor): the padded batch.
        lengths (Tensor or list of int): each sequence's length (all > 0).
        batch_first (bool): the batch dimension is first. Default: False.
        enforce_sorted (bool): require lengths in decreasing order; otherwise they are
            sorted, and the order kept in `sorted_indices`. Default: True.

    Example::

        >>> x = torch.tensor([[1., 2., 3.], [4., 5., 0.]])
        >>> nn.utils.rnn.pack_padded_sequence(x, [3, 2], batch_first=True).data
        tensor([1., 4., 2., 5., 3.])
    """
    ls = _lengths(lengths)
    if any(v <= 0 for v in ls):
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    x = input.transpose(0, 1) if batch_first else input
    if enforce_sorted:
        if any(a < b for a, b in zip(ls, ls[1:])):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
        sorted_idx = unsorted_idx = None
    else:
        order = np.argsort(-np.asarray(ls), kind="stable")
        sorted_idx = creation.tensor(order, dtype=None)
        unsorted_idx = creation.tensor(np.argsort(order, kind="stable"))
        x = x.index_select(1, sorted_idx)
        ls = [ls[i] for i in order]
    if ls[0] > x.shape[0]:
        raise RuntimeError(f"Expected sequence length to be at most {x.shape[0]}, but got {ls[0]}")
    sizes = _batch_sizes(ls)
    data = cat([x[t, :b] for t, b in enumerate(sizes)], 0)
    return PackedSequence(data, creation.tensor(sizes), sorted_idx, unsorted_idx)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Unpacks a `PackedSequence` into a padded batch (L, B, *) (or (B, L, *) with
    `batch_first`) in the original batch order, and the lengths (an int64 tensor).

    Args:
        sequence (PackedSequence): the packed batch.
        batch_first (bool): put the batch dimension first. Default: False.
        padding_value (float): the value of the padding. Default: 0.
        total_length (int, optional): pad to this length (at least the longest).

    Example::

        >>> p = nn.utils.rnn.pack_sequence([torch.tensor([1., 2.]), torch.tensor([3.])])
        >>> padded, lengths = nn.utils.rnn.pad_packed_sequence(p, batch_first=True)
        >>> padded, lengths
        (tensor([[1., 2.],
                [3., 0.]]), tensor([2, 1]))
    """
    data, sizes = sequence.data, _lengths(sequence.batch_sizes)
    n, steps = sizes[0], len(sizes)
    if total_length is not None and total_length < steps:
        raise ValueError(
            "Expected total_length to be at least the length of the longest sequence in input, "
            f"but got total_length={total_length} and max sequence length being {steps}"
        )
    rows, off = [], 0
    for b in sizes:
        step = data[off : off + b]
        if b < n:
            pad = creation.full((n - b, *data.shape[1:]), padding_value, dtype=data.dtype)
            step = cat([step, pad], 0)
        rows.append(step)
        off += b
    length = steps if total_length is None else total_length
    for _ in range(length - steps):
        rows.append(creation.full((n, *data.shape[1:]), padding_value, dtype=data.dtype))
    padded = stack(rows, 0)
    lengths = np.array([sum(b > j for b in sizes) for j in range(n)], np.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices._data]
    return (padded.transpose(0, 1) if batch_first else padded), creation.tensor(lengths)


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of tensors of shape (L_i, *) into a `PackedSequence`
    (`pad_sequence` then `pack_padded_sequence`).

    Args:
        sequences (list of Tensor): the sequences.
        enforce_sorted (bool): require decreasing lengths. Default: True.

    Example::

        >>> nn.utils.rnn.pack_sequence([torch.tensor([1., 2.]), torch.tensor([3.])]).data
        tensor([1., 3., 2.])
    """
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def run_packed_input(rnn: Any, packed: PackedSequence, hx):
    """`rnn` (an RNN, LSTM or GRU module) over a packed batch: each sequence alone, through
    its own length, its outputs packed as the input was and the final states in the
    original batch order (hx is given in that order too)."""
    lstm = rnn.mode == "LSTM"
    data, sizes = packed.data, _lengths(packed.batch_sizes)
    n = sizes[0]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    lengths = [sum(b > j for b in sizes) for j in range(n)]
    order = packed.sorted_indices._data if packed.sorted_indices is not None else np.arange(n)
    outs, hs, cs, rows = [], [], [], []
    for j in range(n):
        idx = [int(offsets[t]) + j for t in range(lengths[j])]
        rows.extend(idx)
        x = data.index_select(0, creation.tensor(np.array(idx, np.int64))).unsqueeze(
            0 if rnn.batch_first else 1
        )
        state = None
        if hx is not None:
            b = int(order[j])
            state = (hx[0][:, b : b + 1], hx[1][:, b : b + 1]) if lstm else hx[:, b : b + 1]
        out, st = rnn(x, state)
        outs.append(out.squeeze(0 if rnn.batch_first else 1))
        h, c = st if lstm else (st, None)
        hs.append(h)
        cs.append(c)
    where = np.empty(len(rows), np.int64)
    where[np.array(rows, np.int64)] = np.arange(len(rows))  # packed row -> row of `outs`
    out_data = cat(outs, 0).index_select(0, creation.tensor(where))
    out = PackedSequence(
        out_data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices
    )

    def final(states):
        s = cat(states, 1)
        u = packed.unsorted_indices
        return s if u is None else s.index_select(1, u)

    return out, ((final(hs), final(cs)) if lstm else final(hs))
