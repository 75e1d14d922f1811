"""Normalizations, distances, dropout variants, attention and extra losses (PyTorch's names,
defaults and errors), composed of recorded core ops."""

import math

import numpy as np

from ..autograd import no_grad
from ..creation import _rng, ones, zeros
from ..ops import softmax as _sm
from ..ops.linear import linear
from ..tensor import Tensor


def _const(arr, like):
    t = Tensor._make(np.ascontiguousarray(arr), -1, False)
    return t.cuda() if like.is_cuda else t


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or input.dim() < k or tuple(input.shape[input.dim() - k :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}"
        )
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


def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
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


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
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
    input,  # noqa: A002
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training=False,
    momentum=0.1,
    eps=1e-5,
):
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


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):  # noqa: A002
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


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    # PyTorch: sum(x1 * x2) / sqrt(clamp_min(|x1|^2 * |x2|^2, eps^2)), on broadcast inputs
    prod = x1 * x2  # broadcasts (or raises PyTorch's error)
    x1, x2 = x1.expand(*prod.shape), x2.expand(*prod.shape)
    w12 = prod.sum(dim)
    w1 = (x1 * x1).sum(dim)
    w2 = (x2 * x2).sum(dim)
    return w12 * (w1 * w2).clamp_min(eps * eps).rsqrt()


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    d = max(x1.dim(), x2.dim()) - 1
    return _pnorm(x1 - x2 + eps, p, d, keepdim)


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
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


def dropout1d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    return _feature_dropout(input, p, training, 1, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    return _feature_dropout(input, p, training, 2, "dropout2d")


def embedding_renorm_(weight, input, max_norm, norm_type):  # noqa: A002
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


# -- attention ----------------------------------------------------------------------------
def scaled_dot_product_attention(
    query,
    key,
    value,
    attn_mask=None,
    dropout_p=0.0,
    is_causal=False,
    scale=None,
    enable_gqa=False,
):
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    L, S = query.shape[-2], key.shape[-2]
    sc = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa:
        raise NotImplementedError("scaled_dot_product_attention(enable_gqa=True) is not supported")
    s = query.matmul(key.transpose(-2, -1)) * sc
    if is_causal:
        attn_mask = _const(np.tril(np.ones((L, S), bool)), query)
    if attn_mask is not None:
        if attn_mask.is_floating_point():
            s = s + attn_mask
        else:
            s = s.masked_fill(~attn_mask, -math.inf)
    w = _sm.softmax(s, -1)
    if dropout_p > 0.0:
        w = dropout(w, dropout_p, True)
    return w.matmul(value)


def multi_head_attention_forward(
    q,
    k,
    v,
    num_heads,
    in_w,
    in_b,
    q_w,
    k_w,
    v_w,
    out_w,
    out_b,
    key_padding_mask,
    need_weights,
    attn_mask,
    average_attn_weights,
    dropout_p,
    training,
    bias_k=None,
    bias_v=None,
    is_causal=False,
):
    """q (L, N, E), k, v (S, N, E*) -> (out (L, N, E), weights or None)."""
    L, N, E = q.shape
    S = k.shape[0]
    hd = E // num_heads
    if in_w is not None:
        wq, wk, wv = in_w.chunk(3, 0)
    else:
        wq, wk, wv = q_w, k_w, v_w
    bq = bk = bv = None
    if in_b is not None:
        bq, bk, bv = in_b.chunk(3, 0)
    qp = linear(q, wq, bq)
    kp = linear(k, wk, bk)
    vp = linear(v, wv, bv)
    # (L, N, E) -> (N, H, L, hd)
    qh = qp.reshape(L, N * num_heads, hd).transpose(0, 1).reshape(N, num_heads, L, hd)
    kh = kp.reshape(S, N * num_heads, hd).transpose(0, 1).reshape(N, num_heads, S, hd)
    vh = vp.reshape(S, N * num_heads, hd).transpose(0, 1).reshape(N, num_heads, S, hd)
    s = qh.matmul(kh.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
    if is_causal and attn_mask is None:
        attn_mask = _const(~np.tril(np.ones((L, S), bool)), q)
    if attn_mask is not None:
        s = _add_mask(s, attn_mask, N, num_heads, L, S)
    if key_padding_mask is not None:
        s = _add_mask(s, key_padding_mask.reshape(N, 1, 1, S), N, num_heads, L, S)
    w = _sm.softmax(s, -1)
    if dropout_p > 0.0 and training:
        w = dropout(w, dropout_p, True)
    o = w.matmul(vh)  # (N, H, L, hd)
    o = o.permute(2, 0, 1, 3).reshape(L, N, E)
    out = linear(o, out_w, out_b)
    if not need_weights:
        return out, None
    if average_attn_weights:
        w = w.mean(1)
    return out, w


def _add_mask(s, mask, N, H, L, S):
    """A boolean mask (True: masked out) or an additive float mask, of shape (L, S),
    (N*H, L, S) or broadcastable to (N, H, L, S)."""
    if mask.dim() == 3:
        mask = mask.reshape(N, H, L, S)
    if mask.is_floating_point():
        return s + mask
    return s.masked_fill(mask, -math.inf)


# -- losses -------------------------------------------------------------------------------
def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):  # noqa: A002
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


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):  # noqa: A002
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
    input,
    target,
    log_input=True,
    full=False,
    size_average=None,  # noqa: A002
    eps=1e-8,
    reduce=None,
    reduction="mean",
):
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
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    from .functional import _red

    reduction = _red(reduction, size_average, reduce)
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0.0), reduction)


def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin=1.0,
    p=2,
    eps=1e-6,
    swap=False,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    from .functional import _red

    reduction = _red(reduction, size_average, reduce)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((d_pos - d_neg + margin).clamp_min(0.0), reduction)


def cosine_embedding_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
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


# -- embedding bags -----------------------------------------------------------------------
def embedding_bag(
    input,  # noqa: A002
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    from ..creation import full
    from ..ops.joins import cat
    from .functional import embedding

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
