"""Categorical(probs | logits) over {0, ..., K-1} (the last dim indexes the categories)."""

import numpy as np

from .. import creation
from .. import functions as F
from .._size import Size
from ..autograd.grad_mode import no_grad
from ..creation import _rng
from . import constraints
from .distribution import Distribution
from .utils import finfo, host, lazy_property, logits_to_probs, probs_to_logits


class Categorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - F.logsumexp(logits, -1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch = self._param.size()[:-1] if self._param.dim() > 1 else Size()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(batch_shape, ("probs", "logits"), _num_events=self._num_events)
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return creation.full(
            self._extended_shape(), float("nan"), dtype=self.probs.dtype, device=self.probs.device
        )

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return self.mean

    def sample(self, sample_shape=()):
        """Inverse-CDF draws from nbgrad's generator."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            p = host(self.probs).astype(np.float64)
        cum = np.cumsum(p / p.sum(-1, keepdims=True), -1)
        u = _rng[0].random(tuple(shape))
        idx = (u[..., None] >= cum).sum(-1)
        idx = np.minimum(idx, self._num_events - 1).astype(np.int64)
        return creation.tensor(idx, device=self._param.device)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        shape = np.broadcast_shapes(tuple(value.shape), tuple(self.logits.shape))
        value = value.expand(shape)[..., :1]
        return self.logits.expand(shape).gather(-1, value).squeeze(-1)

    def entropy(self):
        logits = self.logits.clamp(min=float(finfo(self.logits).min))
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = creation.arange(self._num_events, dtype=None, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
