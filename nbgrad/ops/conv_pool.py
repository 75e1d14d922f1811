"""Convolutions and pools (PyTorch's names, defaults and errors), composed as im2col: one
recorded gather of the input's windows (ops/windows.py), then one matmul or a
reduction over the window. Transposed convolution is the matmul followed by F.fold."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ..tensor import TENSOR_TYPES, Tensor
from . import conv, indexing
from .linear import linear
from .pooling import pool_positions, window_argmax
from .spatial import _tuple, fold, window_gather


def _batched(input, nsp, name):  # noqa: A002
    if input.dim() == nsp + 2:
        return input, True
    if input.dim() == nsp + 1:
        return input.unsqueeze(0), False
    raise RuntimeError(
        f"Expected {nsp + 1}D (unbatched) or {nsp + 2}D (batched) input to {name}, but got "
        f"input of size: {list(input.shape)}"
    )


def _size_str(v):
    return " x ".join(str(int(i)) for i in v)


@functools.lru_cache(maxsize=256)
def _conv_geometry(xshape, wshape, stride, padding, dilation, groups, nsp):
    """Checks a convolution's shapes and settings as PyTorch does; returns (kernel, stride,
    leading padding, dilation, output size), one entry per spatial dim. Memoized: a layer
    calls it with the same arguments every step."""
    c = xshape[1]
    spatial = tuple(xshape[2:])
    o_ch = wshape[0]
    if len(wshape) != nsp + 2:
        raise RuntimeError(
            f"Expected {nsp + 2}-dimensional weight for {nsp + 2}-dimensional input "
            f"{list(xshape)}, but got {len(wshape)}-dimensional weight of size "
            f"{list(wshape)} instead"
        )
    k = tuple(wshape[2:])
    s, d = _tuple(stride, nsp, "stride"), _tuple(dilation, nsp, "dilation")
    if c != wshape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(wshape)}, expected "
            f"input{list(xshape)} to have {wshape[1] * groups} channels, but got {c} "
            "channels instead"
        )
    if o_ch % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
            f"0, but got weight of size {list(wshape)} instead"
        )
    if isinstance(padding, str):
        if padding == "valid":
            pads = [(0, 0)] * nsp
        elif padding == "same":
            if any(v != 1 for v in s):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            tot = [dd * (kk - 1) for dd, kk in zip(d, k)]
            pads = [(t // 2, t - t // 2) for t in tot]
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pads = [(p, p) for p in _tuple(padding, nsp, "padding")]
    padded = [sz + lo + hi for sz, (lo, hi) in zip(spatial, pads)]
    eff = [dd * (kk - 1) + 1 for dd, kk in zip(d, k)]
    if any(e > p for e, p in zip(eff, padded)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({_size_str(padded)}). Kernel size: "
            f"({_size_str(eff)}). Kernel size can't be greater than actual input size"
        )
    out = tuple((p - e) // ss + 1 for p, e, ss in zip(padded, eff, s))
    return k, s, tuple(p[0] for p in pads), d, out


def _conv(input, weight, bias, stride, padding, dilation, groups, nsp, name):  # noqa: A002
    x, batched = _batched(input, nsp, name)
    args = (tuple(x.shape), tuple(weight.shape), stride, padding, dilation, groups, nsp)
    try:
        k, s, lo, d, out = _conv_geometry(*args)
    except TypeError:  # a list among the settings (unhashable): no memo
        k, s, lo, d, out = _conv_geometry.__wrapped__(*args)
    y = conv.fused(x, weight, bias, (s, lo, d, out), groups)
    if y is not None:
        return y if batched else y.squeeze(0)
    n, c, o_ch = x.shape[0], x.shape[1], weight.shape[0]
    cols = window_gather(x, k, s, lo, d, out, "conv")  # (N, *out, C, *k)
    nl, ckk = n * int(np.prod(out)), c * int(np.prod(k))
    if groups == 1:
        y = linear(cols.reshape(nl, ckk), weight.reshape(o_ch, ckk), bias)
    else:
        g = groups
        cg = cols.reshape(nl, g, ckk // g).transpose(0, 1)
        wg = weight.reshape(g, o_ch // g, ckk // g).transpose(1, 2)
        y = cg.matmul(wg).transpose(0, 1).reshape(nl, o_ch)
        if bias is not None:
            y = y + bias
    y = y.reshape(n, *out, o_ch).movedim(-1, 1)
    return y if batched else y.squeeze(0)


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:  # noqa: A002
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:  # noqa: A002
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    x, batched = _batched(input, 2, "conv_transpose2d")
    return _conv_t(x, batched, weight, bias, stride, padding, output_padding, groups, dilation, 2)


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    x, batched = _batched(input, 1, "conv_transpose1d")
    return _conv_t(x, batched, weight, bias, stride, padding, output_padding, groups, dilation, 1)


def _conv_t(x, batched, weight, bias, stride, padding, output_padding, groups, dilation, nsp):
    n, c = x.shape[0], x.shape[1]
    if weight.dim() != nsp + 2:
        raise RuntimeError(
            f"Expected {nsp + 2}-dimensional weight for {nsp + 2}-dimensional input "
            f"{list(x.shape)}, but got {weight.dim()}-dimensional weight of size "
            f"{list(weight.shape)} instead"
        )
    if weight.shape[0] != c:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {weight.shape[0]} channels, but got {c} channels instead"
        )
    s, p = _tuple(stride, nsp, "stride"), _tuple(padding, nsp, "padding")
    op, d = _tuple(output_padding, nsp, "output_padding"), _tuple(dilation, nsp, "dilation")
    for o_, s_, d_ in zip(op, s, d):
        if o_ >= s_ and o_ >= d_:
            raise RuntimeError(
                "output padding must be smaller than either stride or dilation, but got "
                f"output_padding_height: {op[0]} output_padding_width: {op[-1]} stride_height: "
                f"{s[0]} stride_width: {s[-1]} dilation_height: {d[0]} dilation_width: {d[-1]}"
            )
    k = tuple(weight.shape[2:])
    spatial = tuple(x.shape[2:])
    out = tuple(
        (i - 1) * s_ - 2 * p_ + d_ * (k_ - 1) + o_ + 1
        for i, s_, p_, d_, k_, o_ in zip(spatial, s, p, d, k, op)
    )
    g = groups
    cg, og = c // g, weight.shape[1]
    kk, nl = int(np.prod(k)), int(np.prod(spatial))
    xs = x.reshape(n, g, cg, nl).transpose(2, 3)  # (N, g, L, Cg)
    cols = xs.matmul(weight.reshape(g, cg, og * kk))  # (N, g, L, Og*kk)
    cols = cols.transpose(2, 3).reshape(n, g * og * kk, nl)
    if nsp == 1:
        y = fold(cols, (1, out[0]), (1, k[0]), (1, d[0]), (0, p[0]), (1, s[0])).squeeze(2)
    else:
        y = fold(cols, out, k, d, p, s)
    if bias is not None:
        y = y + bias.reshape(g * og, *([1] * nsp))
    return y if batched else y.squeeze(0)


# -- pools --------------------------------------------------------------------------------
def _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, nsp):
    k = _tuple(kernel_size, nsp)
    s = k if stride is None or stride == [] or stride == () else _tuple(stride, nsp, "stride")
    p, d = _tuple(padding, nsp, "padding"), _tuple(dilation, nsp, "dilation")
    for kk, pp, dd in zip(k, p, d):
        if pp > ((kk - 1) * dd + 1) // 2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={pp}, kernel_size={kk} and dilation={dd}"
            )
    spatial = tuple(x.shape[2:])
    out = []
    for n, kk, ss, pp, dd in zip(spatial, k, s, p, d):
        num = n + 2 * pp - dd * (kk - 1) - 1
        o = (-(-num // ss) if ceil_mode else num // ss) + 1
        if ceil_mode and (o - 1) * ss >= n + pp:
            o -= 1
        out.append(o)
    if any(o < 1 for o in out):
        c = x.shape[1]
        raise RuntimeError(
            f"Given input size: ({c}x{'x'.join(map(str, spatial))}). Calculated output size: "
            f"({c}x{'x'.join(map(str, out))}). Output size is too small"
        )
    return k, s, p, d, tuple(out)


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nsp):  # noqa: A002
    x, batched = _batched_pool(input, nsp)
    k, s, p, d, out = _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, nsp)
    if type(x) in TENSOR_TYPES and not x.is_cuda and x._data.dtype in (np.float32, np.float64):
        # the window maxima's positions in x, found in one compiled pass: one recorded take
        pos = pool_positions(x._data, k, s, p, d, out)
        y = indexing.take(x, pos, pos.shape, "MaxBackward0")
        if not batched:
            y, pos = y.squeeze(0), pos[0]
        if not return_indices:
            return y
        plane = int(np.prod(x.shape[2:]))
        return y, Tensor._make(pos % plane, -1, False)
    win = window_gather(x, k, s, p, d, out, "pool", fill=-math.inf)
    win = win.reshape(*win.shape[: 2 + nsp], -1)
    y, arg = _window_max(win)
    if not batched:
        y, arg = y.squeeze(0), arg.squeeze(0)
    if not return_indices:
        return y
    return y, _pool_indices(x, k, s, p, d, out, arg)


def _window_max(win):
    """win.max(-1), its search compiled for float32/float64 on CPU (ops/pooling.py)."""
    if win.is_cuda or win._data.dtype not in (np.float32, np.float64):
        return win.max(-1)
    arg, pos = window_argmax(win._data.reshape(-1, win.shape[-1]))
    shape = tuple(win.shape[:-1])
    y = indexing.take(win, pos, shape, "MaxBackward0")
    return y, Tensor._make(arg.reshape(shape), -1, False)


def _pool_indices(x, k, s, p, d, out, arg):
    """The argmax's flat position in each channel's spatial plane (PyTorch's indices)."""
    from .windows import _tail_positions

    tail = tuple(x.shape[1:])
    nd = len(k)
    perm = tuple([0] + [2 + 2 * i for i in range(nd)] + [1 + 2 * i for i in range(nd)])
    pos = _tail_positions((tail, "win", tail, k, s, p, d, out, perm))[0]
    plane = int(np.prod(tail[1:]))
    pos = pos.reshape(*pos.shape[: 1 + nd], -1) % plane
    a = arg._data
    a = a.host() if arg.is_cuda else a
    a = a.reshape(-1, *pos.shape[:-1])
    idx = np.take_along_axis(pos[None], a[..., None], -1)[..., 0].reshape(a.shape)
    t = Tensor._make(np.ascontiguousarray(idx.reshape(arg.shape), np.int64), -1, False)
    return t.cuda() if arg.is_cuda else t


def _batched_pool(input, nsp):  # noqa: A002
    if input.dim() == nsp + 2:
        return input, True
    if input.dim() == nsp + 1:
        return input.unsqueeze(0), False
    raise RuntimeError(f"non-empty {nsp + 1}D or {nsp + 2}D (batch mode) tensor expected for input")


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1)


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


def _avg_pool(
    input,
    kernel_size,
    stride,
    padding,
    ceil_mode,
    count_include_pad,  # noqa: A002
    divisor_override,
    nsp,
):
    x, batched = _batched_pool(input, nsp)
    k, s, p, d, out = _pool_geometry(x, kernel_size, stride, padding, 1, ceil_mode, nsp)
    win = window_gather(x, k, s, p, d, out, "pool")
    total = win.reshape(*win.shape[: 2 + nsp], -1).sum(-1)
    if divisor_override:
        y = total / float(divisor_override)
    else:
        div = _avg_divisor(tuple(x.shape[2:]), k, s, p, out, count_include_pad)
        if np.all(div == div.flat[0]):  # one divisor: a scalar (no constant tensor)
            y = total / float(div.flat[0])
        else:
            dv = Tensor._make(div.astype(x._data.dtype), -1, False)
            y = total / (dv.cuda() if x.is_cuda else dv)
    return y if batched else y.squeeze(0)


def _avg_divisor(spatial, k, s, p, out, count_include_pad):
    div = np.ones(())
    for n, kk, ss, pp, o in zip(spatial, k, s, p, out):
        start = np.arange(o) * ss - pp
        end = np.minimum(start + kk, n + pp)
        size = end - start
        if not count_include_pad:
            size = np.minimum(end, n) - np.maximum(start, 0)
        div = np.multiply.outer(div, size)
    return div


def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1)


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override=None,
) -> Tensor:
    return _avg_pool(
        input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2
    )


def _adaptive_max(input, output_size, return_indices, nsp, name):  # noqa: A002
    if input.dim() not in (nsp + 1, nsp + 2):
        raise RuntimeError(
            f"{name}(): Expected {nsp + 1}D or {nsp + 2}D tensor, but got: {list(input.shape)}"
        )
    from .windows import _tail_positions, gather_tail

    x, batched = _batched_pool(input, nsp)
    spatial = tuple(x.shape[2:])
    out = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * nsp
    out = tuple(n if o is None else int(o) for n, o in zip(spatial, out))
    tail = tuple(x.shape[1:])
    # the maps' outer product orders (C, o0, k0, o1, k1, ...): windows last
    perm = tuple([0] + [1 + 2 * i for i in range(nsp)] + [2 + 2 * i for i in range(nsp)])
    plan = (tail, "adapt", tail, out, perm)
    win = gather_tail(x, plan, -math.inf)
    y, arg = win.reshape(*win.shape[: 2 + nsp], -1).max(-1)
    if return_indices:
        pos = _tail_positions(plan)[0]
        plane = int(np.prod(spatial))
        pos = pos.reshape(*pos.shape[: 1 + nsp], -1) % plane
        a = arg._data.host() if arg.is_cuda else arg._data
        a = a.reshape(-1, *pos.shape[:-1])
        idx = np.take_along_axis(pos[None], a[..., None], -1)[..., 0]
        it = Tensor._make(np.ascontiguousarray(idx.reshape(arg.shape), np.int64), -1, False)
        it = it.cuda() if arg.is_cuda else it
    if not batched:
        y = y.squeeze(0)
        it = it.squeeze(0) if return_indices else None
    return (y, it) if return_indices else y


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    return _adaptive_max(input, output_size, return_indices, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    return _adaptive_max(input, output_size, return_indices, 2, "adaptive_max_pool2d")
