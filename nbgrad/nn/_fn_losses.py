"""KL divergence, Gaussian and Poisson NLL, margin ranking, triplet margin and cosine
embedding losses (PyTorch's names, defaults and errors), composed of recorded core ops."""

from __future__ import annotations

import math

from ..creation import ones, zeros
from ..tensor import Tensor
from ._fn_norm import pairwise_distance


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:  # noqa: A002
    from .functional import _red

    reduction = _red(reduction, size_average, reduce)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # xlogy(t, t) - t * input: 0 where t == 0
        t = target
        pos = t > 0
        safe = t.where(pos, ones((), dtype=t.dtype, device=t.device))
        loss = (t * safe.log()).where(pos, zeros((), dtype=t.dtype, device=t.device)) - t * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() else loss.sum()
    return _reduce(loss, reduction)


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var: Tensor,
    full: bool = False,
    eps: float = 1e-06,
    reduction: str = "mean",
) -> Tensor:  # noqa: A002
    if var.shape != input.shape:
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var.detach() < 0).numpy().any()):
        raise ValueError("var has negative entry/entries")
    # PyTorch clamps a copy of var without recording: the value is clamped, the gradient
    # reaches var unchanged
    v = var + (var.detach().clamp_min(eps) - var.detach())
    d = input - target
    loss = 0.5 * (v.log() + d * d / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average=None,
    eps: float = 1e-08,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    from .functional import _red

    reduction = _red(reduction, size_average, reduce)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        t = target
        big = t > 1
        safe = t.where(big, ones((), dtype=t.dtype, device=t.device))
        st = safe * safe.log() - safe + 0.5 * (2 * math.pi * safe).log()
        loss = loss + st.where(big, zeros((), dtype=t.dtype, device=t.device))
    return _reduce(loss, reduction)


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0.0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    from .functional import _red

    reduction = _red(reduction, size_average, reduce)
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0.0), reduction)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-06,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    from .functional import _red

    reduction = _red(reduction, size_average, reduce)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((d_pos - d_neg + margin).clamp_min(0.0), reduction)


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0.0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    from .functional import _red

    reduction = _red(reduction, size_average, reduce)
    eps = 1e-12
    prod = (input1 * input2).sum(-1)
    m1 = (input1 * input1).sum(-1) + eps
    m2 = (input2 * input2).sum(-1) + eps
    cos = prod / (m1 * m2).sqrt()
    zero = zeros((), dtype=cos.dtype, device=cos.device)
    pos = (1.0 - cos).where(target == 1, zero)
    neg = (cos - margin).clamp_min(0.0).where(target == -1, zero)
    return _reduce(pos + neg, reduction)
