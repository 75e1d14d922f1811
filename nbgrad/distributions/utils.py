"""Helpers shared by the distributions: parameter broadcasting, lazily computed
parameters, probability/logit conversions and sampling from nbgrad's generator."""

import numbers
from functools import update_wrapper

import numpy as np

from .. import creation
from .. import functions as F
from .._dtype import get_default_dtype
from .._size import Size
from ..autograd.grad_mode import enable_grad
from ..tensor import Tensor


def broadcast_all(*values):
    """Numbers become tensors (of the first tensor's dtype, else the default dtype) and
    all are expanded to their broadcast shape (a differentiable view, as torch's)."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of numbers.Number, torch.Tensor or "
            "objects implementing __torch_function__."
        )
    like = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = like.dtype if like is not None else get_default_dtype()
    device = like.device if like is not None else None
    vals = [
        v if isinstance(v, Tensor) else creation.tensor(float(v), dtype=dtype, device=device)
        for v in values
    ]
    shape = np.broadcast_shapes(*(tuple(v.shape) for v in vals))
    return tuple(v if tuple(v.shape) == shape else v.expand(shape) for v in vals)


def broadcast_shapes(*shapes):
    return Size(np.broadcast_shapes(*(tuple(s) for s in shapes)))


class lazy_property:  # noqa: N801 - torch's name
    """Computed on first access (with grad enabled) and then stored on the instance, so a
    parameter given as probs has logits only once asked for (and is not validated)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def finfo(t):
    return np.finfo(t._data.dtype)


def clamp_probs(probs):
    eps = float(finfo(probs).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps = clamp_probs(probs)
    if is_binary:
        return F.log(ps) - F.log1p(-ps)
    return F.log(ps)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return F.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def softplus(x):
    """log(1 + exp(x)), exact for every x (no threshold) and with derivative sigmoid(x)
    at 0 too: the exponential only ever sees -|x|."""
    pos = x > 0
    return F.where(pos, x, creation.zeros_like(x)) + F.log1p(F.exp(F.where(pos, -x, x)))


def bce_with_logits(logits, target):
    """Binary cross-entropy of `target` under Bernoulli(logits), elementwise, and
    differentiable in both."""
    return softplus(logits) - logits * target


def sum_rightmost(value, dim):
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[: value.dim() - dim]) + (-1,)).sum(-1)


def xlogy(x, y):
    """x * log(y), 0 where x == 0 (the log then never sees the 0 it would turn into nan)."""
    zero = x == 0
    safe = F.where(zero, creation.ones_like(y), y)
    return F.where(zero, creation.zeros_like(x * safe), x * F.log(safe))


def randn(shape, like):
    return creation.randn(tuple(shape), dtype=like.dtype, device=like.device)


def rand(shape, like):
    return creation.rand(tuple(shape), dtype=like.dtype, device=like.device)


def host(t):
    return t._data.host() if t.is_cuda else t._data
