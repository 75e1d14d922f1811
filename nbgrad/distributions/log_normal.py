"""LogNormal(loc, scale): exp of Normal(loc, scale)."""

from .. import functions as F
from . import constraints
from .distribution import Distribution
from .normal import Normal


class LogNormal(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(batch_shape, base_dist=self.base_dist.expand(batch_shape))

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

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
