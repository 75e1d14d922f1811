"""LogNormal(loc, scale): exp of Normal(loc, scale)."""

import numbers

from .. import functions as F
from . import constraints
from .distribution import Distribution
from .normal import Normal
from .utils import broadcast_all


class LogNormal(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        self.base_dist = Normal(self.loc, self.scale, validate_args=validate_args)
        scalar = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        super().__init__(() if scalar else self.loc.size(), validate_args=validate_args)

    @property
    def mean(self):
        return F.exp(self.loc + self.scale**2 / 2)

    @property
    def mode(self):
        return F.exp(self.loc - self.scale**2)

    @property
    def variance(self):
        s2 = self.scale**2
        return F.expm1(s2) * F.exp(2 * self.loc + s2)

    def rsample(self, sample_shape=()):
        return F.exp(self.base_dist.rsample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = F.log(value)
        return self.base_dist.log_prob(y) - y

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.base_dist.cdf(F.log(value))

    def icdf(self, value):
        return F.exp(self.base_dist.icdf(value))

    def entropy(self):
        return self.base_dist.entropy() + self.loc
