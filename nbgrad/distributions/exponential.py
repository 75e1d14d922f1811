"""Exponential(rate)."""

import numbers

from .. import creation
from .. import functions as F
from ..creation import _rng
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Exponential(Distribution):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        scalar = isinstance(rate, numbers.Number)
        super().__init__(() if scalar else self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(batch_shape, ("rate",))

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return creation.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate ** (-2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        e = _rng[0].standard_exponential(tuple(shape))
        e = creation.tensor(e.astype(self.rate._data.dtype), device=self.rate.device)
        return e / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - F.exp(-self.rate * value)

    def icdf(self, value):
        return -F.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()
