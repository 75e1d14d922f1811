"""Gradient clipping, in place on `.grad` (not recorded, as in PyTorch)."""

import math

import numpy as np

from ...tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p._grad for p in parameters if p._grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale all gradients together so that their joint norm is at most `max_norm`;
    returns the total norm (before clipping) as a tensor."""
    grads = _grads(parameters)
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if not grads:
        return Tensor._make(np.zeros((), np.float32), -1, False)
    dt = grads[0]._data.dtype
    if norm_type == math.inf:
        norms = [np.max(np.abs(g._data)) if g._data.size else 0.0 for g in grads]
        total = float(max(norms))
    else:
        acc = 0.0
        for g in grads:
            d = g._data.astype(np.float64, copy=False)
            acc += float(np.sum(np.abs(d) ** norm_type))
        total = acc ** (1.0 / norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    coef = min(max_norm / (total + 1e-6), 1.0)
    for g in grads:
        g._data *= g._data.dtype.type(coef)
        g._version += 1
    return Tensor._make(np.asarray(total, dt), -1, False)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        np.clip(g._data, -clip_value, clip_value, out=g._data)
        g._version += 1
