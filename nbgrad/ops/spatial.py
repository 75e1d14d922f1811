"""F.pad, F.unfold / F.fold, F.interpolate and the adaptive average pools (PyTorch's names,
defaults and errors): gathers by position (ops/windows.py) and small matmuls."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..creation import zeros
from ..tensor import Tensor
from . import indexing
from .windows import gather_tail

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad(
    input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None
) -> Tensor:  # noqa: A002
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    nd = input.dim()
    k = len(pad) // 2
    if k > nd:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension "
            f"but got padding length {len(pad)} and input of dimension {nd}"
        )
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    shape = tuple(input.shape)
    if mode != "constant":
        if value not in (None, 0, 0.0):
            raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
        if k not in (1, 2, 3) or nd not in (k + 1, k + 2):
            raise NotImplementedError(
                f"Padding size {len(pad)} is not supported for {nd}D input tensor."
            )
    tail = shape[nd - k :]
    pads = tuple((pad[2 * (k - 1 - i)], pad[2 * (k - 1 - i) + 1]) for i in range(k))
    for i, (n, (lo, hi)) in enumerate(zip(tail, pads)):
        d = nd - k + i
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({lo}, {hi}) at dimension {d} of input "
                f"{list(shape)}"
            )
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "constant" and n + lo + hi < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
    if all(lo == 0 and hi == 0 for lo, hi in pads):
        return input.clone()
    plan = (tail, "pad", tail, pads, mode, None)
    return gather_tail(input, plan, 0.0 if value is None else float(value))


def _tuple(v, n, name="kernel_size"):
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return tuple(int(v[0]) for _ in range(n))
        if len(v) != n:
            raise RuntimeError(f"{name} must be an int or a tuple of {n} ints")
        return tuple(int(i) for i in v)
    return (int(v),) * n


def unfold(
    input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:  # noqa: A002
    if input.dim() not in (3, 4):
        raise NotImplementedError(
            f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)"
        )
    k, d = _tuple(kernel_size, 2), _tuple(dilation, 2)
    p, s = _tuple(padding, 2), _tuple(stride, 2)
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    n, c, h, w = x.shape
    out = [
        (size + 2 * pp - dd * (kk - 1) - 1) // ss + 1
        for size, kk, pp, dd, ss in zip((h, w), k, p, d, s)
    ]
    if out[0] < 1 or out[1] < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size=({k[0]}, {k[1]}), "
            f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), calculated shape of the "
            f"array of sliding blocks as ({out[0]}, {out[1]}), but its components must be at "
            "least one."
        )
    cols = window_gather(x, k, s, p, d, out, "unfold")
    cols = cols.reshape(n, c * k[0] * k[1], out[0] * out[1])
    return cols if batched else cols.squeeze(0)


def window_gather(x, kernel, stride: Any, pads, dilation: Any, out, layout, fill=0.0) -> Tensor:
    """x (N, C, *spatial) -> its windows, laid out as "unfold" (N, C, *kernel, *out),
    "conv" (N, *out, C, *kernel) or "pool" (N, C, *out, *kernel); positions outside the
    input read `fill`."""
    tail = tuple(x.shape[1:])
    nd = len(kernel)
    # the outer product orders (C, k0, o0, k1, o1, ...): permute to the wanted layout
    ks = [1 + 2 * i for i in range(nd)]
    os_ = [2 + 2 * i for i in range(nd)]
    perm = {"unfold": [0] + ks + os_, "conv": os_ + [0] + ks, "pool": [0] + os_ + ks}[layout]
    perm = tuple(perm)
    plan = (
        tail,
        "win",
        tail,
        tuple(kernel),
        tuple(stride),
        tuple(pads),
        tuple(dilation),
        tuple(out),
        perm,
    )
    return gather_tail(x, plan, fill)


def fold(
    input: Tensor,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:  # noqa: A002
    if input.dim() not in (2, 3):
        raise NotImplementedError(
            f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
            f"(got {input.dim()}D)"
        )
    o, k = _tuple(output_size, 2, "output_size"), _tuple(kernel_size, 2)
    d, p, s = _tuple(dilation, 2), _tuple(padding, 2), _tuple(stride, 2)
    batched = input.dim() == 3
    cols = input if batched else input.unsqueeze(0)
    n, ckk, nblocks = cols.shape
    kk = k[0] * k[1]
    if ckk % kk:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={ckk} and kernel_size=({k[0]}, {k[1]})"
        )
    blocks = [
        (size + 2 * pp - dd * (kk_ - 1) - 1) // ss + 1
        for size, kk_, pp, dd, ss in zip(o, k, p, d, s)
    ]
    if blocks[0] * blocks[1] != nblocks:
        raise RuntimeError(
            f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), "
            f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), "
            f"expected size of input's dimension 2 to match the calculated number of sliding "
            f"blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
            f"input.size(2)={nblocks}."
        )
    c = ckk // kk
    pos = _fold_positions((c, o[0], o[1]), k, s, p, d, tuple(blocks))
    out = zeros(n, c * o[0] * o[1] + 1, dtype=cols.dtype, device=cols.device)
    out = _scatter_cols(out, cols.reshape(n, ckk * nblocks), pos)
    out = out[:, :-1].reshape(n, c, o[0], o[1])
    return out if batched else out.squeeze(0)


def _fold_positions(tail, k, s, p, d, blocks):
    from .windows import _tail_positions

    plan = (tail, "win", tail, k, s, p, d, blocks, (0, 1, 3, 2, 4))  # unfold's order
    pos = _tail_positions(plan)[0]
    m = int(np.prod(tail))
    return np.where(pos < 0, m, pos).reshape(-1)  # outside: the dropped last column


@indexing._by_index
def _scatter_cols(out, cols, pos):
    n, width = out.shape
    rows = np.arange(n, dtype=np.int64)[:, None]
    dpos = (rows * width + pos[None, :]).reshape(-1)
    spos = np.arange(cols.shape[0] * cols.shape[1], dtype=np.int64)
    return indexing.put_add(out, cols, dpos, spos, 1.0, "IndexAddBackward0")


# -- resampling ----------------------------------------------------------------------------
_INTERP_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")


def interpolate(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor=None,
    antialias: bool = False,
) -> Tensor:
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    nsp = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    want = {"linear": 1, "bilinear": 2, "trilinear": 3}.get(mode)
    if mode not in _INTERP_MODES or nsp < 1 or (want is not None and want != nsp):
        raise NotImplementedError(
            "Input Error: Only 3D, 4D and 5D input Tensors supported (got "
            f"{input.dim()}D) for the modes: nearest | linear | bilinear | bicubic | trilinear "
            f"| lanczos | area | nearest-exact (got {mode})"
        )
    if mode == "bicubic":
        raise NotImplementedError("interpolate(mode='bicubic') is not supported")
    spatial = tuple(input.shape[2:])
    if size is not None:
        out = _tuple(size, nsp, "size")
        scales = [None] * nsp
    else:
        sf = [float(v) for v in _tuple_f(scale_factor, nsp)]
        out = tuple(int(math.floor(n * f)) for n, f in zip(spatial, sf))
        scales = [None] * nsp if recompute_scale_factor else sf
    if mode == "area":  # PyTorch's area mode is the adaptive average pool
        if nsp > 2:
            raise NotImplementedError("interpolate(mode='area') supports 3D and 4D input")
        return _adaptive_avg(input, out, nsp, f"adaptive_avg_pool{nsp}d")
    if mode in ("nearest", "nearest-exact"):
        maps = []
        for n, o, f in zip(spatial, out, scales):
            # PyTorch's index arithmetic is in float32
            r = np.float32((1.0 / f) if f else n / o)
            j = np.arange(o, dtype=np.float32)
            if mode == "nearest":
                i = np.floor(j * r).astype(np.int64)
            else:
                i = np.floor((j + np.float32(0.5)) * r).astype(np.int64)
            maps.append(tuple(int(v) for v in np.minimum(i, n - 1)))
        tail = tuple(spatial)
        return gather_tail(input, (tail, "idx", tail, tuple(maps), None))
    # linear family: one interpolation matrix per spatial dim, applied by matmul
    y = input
    for i, (n, o, f) in enumerate(zip(spatial, out, scales)):
        a = _linear_matrix(n, o, f, align_corners)
        m = Tensor._make(a.astype(input._data.dtype), -1, False)
        if input.is_cuda:
            m = m.cuda()
        y = y.movedim(2 + i, -1).matmul(m.t()).movedim(-1, 2 + i)
    return y


def _tuple_f(v, n):
    if isinstance(v, (tuple, list)):
        return tuple(v) if len(v) == n else (v[0],) * n
    return (v,) * n


def _linear_matrix(n, o, scale, align_corners):
    """(o, n) weights of linear interpolation from n samples to o (PyTorch's rule)."""
    a = np.zeros((o, n))
    if align_corners:
        r = (n - 1) / (o - 1) if o > 1 else 0.0
        src = np.arange(o) * r
    else:
        r = (1.0 / scale) if scale else n / o
        src = np.maximum((np.arange(o) + 0.5) * r - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), n - 1)
    i1 = np.minimum(i0 + 1, n - 1)
    w1 = src - i0
    rows = np.arange(o)
    np.add.at(a, (rows, i0), 1.0 - w1)
    np.add.at(a, (rows, i1), w1)
    return a


def _adaptive_matrix(n, o):
    a = np.zeros((o, n))
    for i in range(o):
        lo = (i * n) // o
        hi = -((-(i + 1) * n) // o)
        a[i, lo:hi] = 1.0 / (hi - lo)
    return a


def _adaptive_avg(input, output_size, nsp, name):  # noqa: A002
    if input.dim() not in (nsp + 1, nsp + 2):
        raise RuntimeError(
            f"{name}(): Expected {nsp + 1}D or {nsp + 2}D tensor, but got {list(input.shape)}"
        )
    spatial = tuple(input.shape[-nsp:])
    out = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * nsp
    out = tuple(n if o is None else int(o) for n, o in zip(spatial, out))
    y = input
    nd = input.dim()
    for i, (n, o) in enumerate(zip(spatial, out)):
        a = _adaptive_matrix(n, o).astype(input._data.dtype)
        m = Tensor._make(a, -1, False)
        if input.is_cuda:
            m = m.cuda()
        d = nd - nsp + i
        y = y.movedim(d, -1).matmul(m.t()).movedim(-1, d)
    return y


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    return _adaptive_avg(input, output_size, 1, "adaptive_avg_pool1d")


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    return _adaptive_avg(input, output_size, 2, "adaptive_avg_pool2d")
