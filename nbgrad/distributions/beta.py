"""Beta(concentration1, concentration0): a two-category Dirichlet's first coordinate."""

import numbers

from .. import functions as F
from . import constraints
from .dirichlet import Dirichlet
from .distribution import Distribution
from .utils import broadcast_all


class Beta(Distribution):
    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        c1, c0 = broadcast_all(concentration1, concentration0)
        self._dirichlet = Dirichlet(F.stack([c1, c0], -1), validate_args=validate_args)
        scalar = isinstance(concentration1, numbers.Number) and isinstance(
            concentration0, numbers.Number
        )
        super().__init__(
            () if scalar else self._dirichlet._batch_shape, validate_args=validate_args
        )

    def expand(self, batch_shape, _instance=None):
        return self._expanded(batch_shape, _dirichlet=self._dirichlet.expand(batch_shape))

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total**2 * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = F.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        return self._dirichlet.entropy()
