"""Normalizations, distances and dropout variants (PyTorch's names, defaults and errors),
composed of recorded core ops."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd import no_grad
from ..creation import _rng
from ..ops import normalization as _ln
from ..tensor import Tensor


def _const(arr, like):
    t = Tensor._make(np.ascontiguousarray(arr), -1, False)
    return t.cuda() if like.is_cuda else t


def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-05,
) -> Tensor:  # noqa: A002
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or input.dim() < k or tuple(input.shape[input.dim() - k :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}"
        )
    y = _ln.fused(input, shape, weight, bias, eps)
    if y is not None:
        return y
    dims = tuple(range(-k, 0))
    y = _normalize_over(input, dims, eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def _normalize_over(x, dims, eps):
    mu = x.mean(dims, keepdim=True)
    xc = x - mu
    var = (xc * xc).mean(dims, keepdim=True)
    return xc * (var + eps).rsqrt()


def rms_norm(
    input: Tensor, normalized_shape: Any, weight: Tensor | None = None, eps: float | None = None
) -> Tensor:  # noqa: A002
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or input.dim() < k or tuple(input.shape[input.dim() - k :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}"
        )
    if eps is None:
        eps = float(np.finfo(input._data.dtype).eps)
    dims = tuple(range(-k, 0))
    y = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return y if weight is None else y * weight


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-05,
) -> Tensor:  # noqa: A002
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {list(input.shape)} and num_groups={num_groups}"
        )
    y = _normalize_over(input.reshape(n, num_groups, -1), (2,), eps).reshape(input.shape)
    bshape = (c,) + (1,) * (input.dim() - 2)
    if weight is not None:
        y = y * weight.reshape(bshape)
    if bias is not None:
        y = y + bias.reshape(bshape)
    return y


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-05,
) -> Tensor:
    c = input.shape[1] if input.dim() > 1 else input.shape[0]
    for name, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    dims = (0,) + tuple(range(2, input.dim()))
    bshape = (1, c) + (1,) * (input.dim() - 2)
    if training:
        count = input.numel() // c
        if count <= 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
        mean = input.mean(dims, keepdim=True)
        xc = input - mean
        var = (xc * xc).mean(dims, keepdim=True)
        y = xc * (var + eps).rsqrt()
        if running_mean is not None or running_var is not None:
            m = 0.1 if momentum is None else momentum
            with no_grad():
                if running_mean is not None:
                    running_mean.mul_(1 - m).add_(mean.detach().reshape(c) * m)
                if running_var is not None:
                    unbiased = var.detach().reshape(c) * (count / (count - 1))
                    running_var.mul_(1 - m).add_(unbiased * m)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        y = (input - running_mean.reshape(bshape)) * (running_var.reshape(bshape) + eps).rsqrt()
    if weight is not None:
        y = y * weight.reshape(bshape)
    if bias is not None:
        y = y + bias.reshape(bshape)
    return y


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:  # noqa: A002
    denom = _pnorm(input, p, dim, True).clamp_min(eps)
    return input / denom


def _pnorm(x, p, dim, keepdim):
    if p == 2:
        return (x * x).sum(dim, keepdim=keepdim).sqrt()
    if p == 1:
        return x.abs().sum(dim, keepdim=keepdim)
    if p == math.inf:
        return x.abs().amax(dim, keepdim=keepdim)
    return (x.abs() ** p).sum(dim, keepdim=keepdim) ** (1.0 / p)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-08) -> Tensor:
    # PyTorch: sum(x1 * x2) / sqrt(clamp_min(|x1|^2 * |x2|^2, eps^2)), on broadcast inputs
    prod = x1 * x2  # broadcasts (or raises PyTorch's error)
    x1, x2 = x1.expand(*prod.shape), x2.expand(*prod.shape)
    w12 = prod.sum(dim)
    w1 = (x1 * x1).sum(dim)
    w2 = (x2 * x2).sum(dim)
    return w12 * (w1 * w2).clamp_min(eps * eps).rsqrt()


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-06, keepdim: bool = False
) -> Tensor:
    d = max(x1.dim(), x2.dim()) - 1
    return _pnorm(x1 - x2 + eps, p, d, keepdim)


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = _rng[0].random(tuple(input.shape)) >= p
    return input * _const((keep / (1.0 - p)).astype(input._data.dtype), input)


def _feature_dropout(input, p, training, nsp, name):  # noqa: A002
    _check_p(p)
    if not training or p == 0.0:
        return input
    nd = input.dim()
    if nd not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"{name}: Expected {nsp + 1}D or {nsp + 2}D input, but got {nd}D input")
    lead = tuple(input.shape[: nd - nsp])
    if p == 1.0:
        return input * 0.0
    keep = _rng[0].random(lead) >= p
    mask = (keep / (1.0 - p)).astype(input._data.dtype).reshape(lead + (1,) * nsp)
    return input * _const(mask, input)


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:  # noqa: A002
    return _feature_dropout(input, p, training, 1, "dropout1d")


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:  # noqa: A002
    return _feature_dropout(input, p, training, 2, "dropout2d")
