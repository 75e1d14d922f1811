"""Launchers that many CUDA ops share: small device int arrays (shapes, strides), sums over
dims (a forward of sum/mean and the reduction in every broadcast VJP) and the batched
matrix product (matmul's forward and VJP)."""

import math

import numpy as np

from . import runtime as rt
from .kernels import build as _kernels
from .launch import MAX_GRID_X, grid, launch_grid

_CACHE = {}


def dev_ints(*vals):
    """Small int64 device arrays (shapes, strides), cached by value."""
    key = tuple(tuple(v) for v in vals)
    r = _CACHE.get(key)
    if r is None:
        r = tuple(rt.cuda().to_device(np.array(list(v) or [0], np.int64)) for v in vals)
        if len(_CACHE) > 4096:
            _CACHE.clear()
        _CACHE[key] = r
    return r


def cstrides(shape):
    """The element strides of a C-contiguous array of `shape`."""
    st, run = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        st[d] = run
        run *= shape[d]
    return st


def reduce_dims(src, shape, dims, dst, acc, scale):
    """dst (+)= scale * src (flat, C-contiguous `shape`) summed over `dims` (integer
    tensors: int64 kernels, exact, scale 1)."""
    st = cstrides(shape)
    keep = [d for d in range(len(shape)) if d not in dims]
    kshp, kst = [shape[d] for d in keep], [st[d] for d in keep]
    rshp, rst = [shape[d] for d in dims], [st[d] for d in dims]
    nr = math.prod(rshp)
    KK = _kernels()
    ints = dst.dtype.kind != "f"
    sum_all, sum_dims = (KK.isum_all, KK.isum_dims) if ints else (KK.sum_all, KK.sum_dims)
    if ints:
        scale = 1
    if not keep:  # everything: per-block partial sums, then one block sums those
        nb, tpb = grid(src.size)
        if nb == 1:
            launch_grid(sum_all, 1, tpb, src, dst, acc, scale)
        else:
            part = rt.cuda().device_array(nb, src.dtype)
            launch_grid(sum_all, nb, tpb, src, part, False, 1)
            launch_grid(sum_all, 1, tpb, part, dst, acc, scale)
        return
    args = dev_ints([1] + kshp, [0] + kst, [1] + rshp, [0] + rst)
    L = rt.configure()
    launch_grid(sum_dims, min(dst.size, L.max_blocks * 16), L.tpb, src, dst, *args, nr, acc, scale)


def sum_to(full, ys, xs, gx, acc):
    """Sum a gradient of broadcast shape `ys` down to the operand's shape `xs`."""
    lead = len(ys) - len(xs)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(xs) if d == 1 and ys[lead + i] != 1
    )
    reduce_dims(full, ys, dims, gx, acc, 1.0)


def bmm_launch(A, B, C, nb, M, Kd, N, ta, tb, sa, sb, acc):
    """C (+)= A @ B for `nb` batches of (M, Kd) @ (Kd, N) flat matrices (`ta`/`tb`: read
    transposed; `sa`/`sb`: the batch strides, 0 for one matrix shared by every batch)."""
    L = rt.configure()
    T = L.tile
    K = _kernels()
    blocks = ((N + T - 1) // T, min((M + T - 1) // T, L.max_grid_yz), min(nb, L.max_grid_yz))
    if blocks[0] > MAX_GRID_X:
        raise RuntimeError(f"matmul: {N} columns are more than a CUDA grid holds")
    kernel = K.bmm if C.dtype.kind == "f" else K.ibmm
    launch_grid(kernel, blocks, (T, T), A, B, C, nb, M, Kd, N, ta, tb, sa, sb, acc)
