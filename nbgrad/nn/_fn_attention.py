"""Scaled dot-product attention and the multi-head attention behind nn.MultiheadAttention,
composed of recorded core ops (matmul, softmax, masked_fill)."""

from __future__ import annotations

import math

import numpy as np

from ..ops import attention as _fused
from ..ops import softmax as _sm
from ..ops.linear import linear
from ..tensor import Tensor
from ._fn_norm import _const, dropout


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    L, S = query.shape[-2], key.shape[-2]
    sc = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and query.dim() >= 3:
        key, value = _gqa(query, key, value)
    y = _fused.fused(query, key, value, attn_mask, is_causal, sc, dropout_p)
    if y is not None:
        return y
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


def _gqa(q, k, v):
    """Key and value heads repeated up to the query's (grouped-query attention)."""
    hq, hk, hv = q.shape[-3], k.shape[-3], v.shape[-3]
    if hk == 0 or hv == 0 or hq % hk or hq % hv:
        # (PyTorch's message, cut short as it is there)
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    if hk != hq:
        k = k.repeat_interleave(hq // hk, -3)
    if hv != hq:
        v = v.repeat_interleave(hq // hv, -3)
    return k, v


def mha_forward(
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
    attn_mask: Tensor | None,
    average_attn_weights,
    dropout_p: float,
    training: bool,
    bias_k=None,
    bias_v=None,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
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
