"""Gamma(concentration, rate)."""

import numbers

from .. import functions as F
from . import constraints
from ._functions import gammainc, standard_gamma
from .distribution import Distribution
from .utils import broadcast_all, xlogy


class Gamma(Distribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalar = isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
        batch = () if scalar else self.concentration.size()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(batch_shape, ("concentration", "rate"))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate**2

    def rsample(self, sample_shape=()):
        """Reparameterised: Gamma(a, 1) draws carry the implicit gradient in a, then are
        scaled by 1 / rate."""
        shape = tuple(self._extended_shape(sample_shape))
        return standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a, r = self.concentration, self.rate
        return xlogy(a, r) + xlogy(a - 1, value) - r * value - F.lgamma(a)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)

    def entropy(self):
        a = self.concentration
        return a - self.rate.log() + F.lgamma(a) + (1.0 - a) * F.digamma(a)
